// expect: line 5, column 1: gate 'g' body is not closed with '}'
OPENQASM 2.0;
qreg q[1];
gate g a { h a;
