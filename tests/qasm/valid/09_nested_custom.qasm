OPENQASM 2.0;
include "qelib1.inc";
gate inner(t) a { rx(t) a; rz(t/2) a; }
gate middle(t, s) a, b { inner(t*s) a; cx a, b; inner(-t) b; }
gate outer a, b, c { middle(pi/3, 2) a, b; middle(0.5, -1) b, c; barrier a, c; h c; }
qreg q[3];
outer q[0], q[1], q[2];
outer q[2], q[0], q[1];
