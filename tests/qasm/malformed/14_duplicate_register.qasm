// expect: line 4, column 6: register 'q' is declared twice
OPENQASM 2.0;
qreg q[2];
qreg q[3];
