// expect: line 4, column 6: division by zero
OPENQASM 2.0;
qreg q[1];
rx(1 / 0) q[0];
