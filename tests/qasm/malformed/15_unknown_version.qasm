// expect: line 2, column 10: only OpenQASM 2.x is read here
OPENQASM 4.0;
qreg q[1];
