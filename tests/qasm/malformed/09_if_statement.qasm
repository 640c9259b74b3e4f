// expect: line 5, column 10: value 2 does not fit in register c[1]
OPENQASM 2.0;
qreg q[1];
creg c[1];
if (c == 2) x q[0];
