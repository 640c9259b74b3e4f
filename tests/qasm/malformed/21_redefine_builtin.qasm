// expect: line 3, column 6: gate 'cx' is declared by qelib1.inc and cannot be redefined
include "qelib1.inc";
gate cx a, b { h a; }
