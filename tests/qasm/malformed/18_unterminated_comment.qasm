// expect: line 4, column 1: unterminated block comment
OPENQASM 2.0;
qreg q[1];
/* never closed
h q[0];
