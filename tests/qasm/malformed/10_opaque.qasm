// expect: line 5, column 1: gate 'magic' is declared opaque (line 3): the file gives no definition of it
OPENQASM 2.0;
opaque magic a;
qreg q[1];
magic q[0];
