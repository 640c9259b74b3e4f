// expect: line 2, column 10: only OpenQASM 2.x is read here
OPENQASM 3.0;
qubit q;
