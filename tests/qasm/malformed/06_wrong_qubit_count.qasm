// expect: line 4, column 1: gate 'cx' acts on 2 qubit(s), got 1
OPENQASM 2.0;
qreg q[2];
cx q[0];
