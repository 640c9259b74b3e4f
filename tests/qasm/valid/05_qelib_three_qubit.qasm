OPENQASM 2.0;
include "qelib1.inc";
qreg q[3];
h q; t q[1]; s q[2];
ccx q[0], q[1], q[2];
cswap q[2], q[0], q[1];
rccx q[1], q[2], q[0];
