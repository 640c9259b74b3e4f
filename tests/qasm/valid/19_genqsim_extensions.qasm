// genqsim-only: iswap, ryy and dcx are not in qelib1.inc
OPENQASM 2.0;
include "qelib1.inc";
qreg q[3];
h q;
iswap q[0], q[2];
ryy(0.6) q[1], q[2];
dcx q[0], q[1];
