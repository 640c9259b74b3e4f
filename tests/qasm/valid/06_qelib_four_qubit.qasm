OPENQASM 2.0;
include "qelib1.inc";
qreg q[4];
h q; rz(0.3) q[3]; ry(0.2) q[0];
c3x q[0], q[1], q[2], q[3];
c3sqrtx q[3], q[1], q[0], q[2];
rc3x q[2], q[3], q[0], q[1];
