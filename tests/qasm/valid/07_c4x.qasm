OPENQASM 2.0;
include "qelib1.inc";
qreg q[5];
x q[0]; x q[1]; h q[2]; x q[3];
c4x q[0], q[1], q[2], q[3], q[4];
