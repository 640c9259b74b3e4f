// expect: line 4, column 1: unknown gate 'foo'
OPENQASM 2.0;
qreg q[2];
foo q[0];
