// expect: line 4, column 3: index 5 out of range for register 'q' of size 2
OPENQASM 2.0;
qreg q[2];
h q[5];
