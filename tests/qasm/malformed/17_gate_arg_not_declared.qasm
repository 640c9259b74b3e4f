// expect: line 3, column 18: 'b' is not an argument of gate 'g'
OPENQASM 2.0;
gate g a { cx a, b; }
