OPENQASM 2.0;
include "qelib1.inc";
gate zz_layer(gamma) a, b { cx a, b; rz(2*gamma) b; cx a, b; }
gate mixer(beta) a { rx(2*beta) a; }
qreg q[3];
h q;
zz_layer(0.4) q[0], q[1];
zz_layer(0.4) q[1], q[2];
mixer(0.7) q;
