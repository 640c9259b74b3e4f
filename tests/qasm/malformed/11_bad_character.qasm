// expect: line 4, column 6: unexpected character '$'
OPENQASM 2.0;
qreg q[1];
rx(1 $ 2) q[0];
