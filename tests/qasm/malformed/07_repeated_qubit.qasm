// expect: line 4, column 1: a qubit is used twice in one gate call: [1, 1]
OPENQASM 2.0;
qreg q[2];
cx q[1], q[1];
