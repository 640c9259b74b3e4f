// expect: line 5, column 1: registers of different sizes cannot be broadcast together
OPENQASM 2.0;
qreg a[2];
qreg b[3];
cx a, b;
