// expect: line 5, column 1: measure maps 2 qubit(s) onto 1 classical bit(s)
OPENQASM 2.0;
qreg q[2];
creg c[1];
measure q -> c;
