// expect: line 2, column 6: gate 'cx' is built in and cannot be redefined
gate cx a, b { h a; }
