OPENQASM 2.0;
include "qelib1.inc";
qreg q[5];
x q[0]; h q[4]; t q[4];
swap q[0], q[1]; swap q[1], q[2]; swap q[2], q[3]; swap q[3], q[4];
swap q[4], q[0]; cswap q[2], q[1], q[3];
