// expect: line 3, column 1: opaque gates have no definition and cannot be simulated
OPENQASM 2.0;
opaque magic a;
