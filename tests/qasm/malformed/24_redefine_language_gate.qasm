// expect: line 2, column 6: gate 'CX' is built into OpenQASM and cannot be redefined
gate CX a, b { U(0, 0, 0) a; }
