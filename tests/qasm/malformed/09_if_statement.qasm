// expect: line 5, column 1: classically controlled operations ('if') are not supported
OPENQASM 2.0;
qreg q[1];
creg c[1];
if (c == 1) x q[0];
