// expect: line 4, column 4: unknown quantum register 'r'
OPENQASM 2.0;
qreg q[2];
cx r[0], q[1];
