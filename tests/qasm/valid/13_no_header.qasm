include "qelib1.inc";
qreg q[2];
h q[0];
cx q[0], q[1];
rz(0.25) q[1];
