// expect: line 5, column 11: expected '->', found 'c'
OPENQASM 2.0;
qreg q[1];
creg c[1];
measure q c;
