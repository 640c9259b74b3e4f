// expect: line 4, column 6: gate 'g' is already defined (line 3, column 6)
include "qelib1.inc";
gate g a { h a; }
gate g a { x a; }
