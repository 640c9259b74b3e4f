// expect: line 4, column 4: unknown identifier 'theta' in expression
OPENQASM 2.0;
qreg q[1];
rx(theta) q[0];
