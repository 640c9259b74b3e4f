OPENQASM 2.0;
include "qelib1.inc";
gate my_h() a { u2(0, pi) a; }
gate pair a, b { my_h a; my_h b; cz a, b; }
qreg q[2];
pair q[0], q[1];
