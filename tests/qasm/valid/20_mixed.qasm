OPENQASM 2.0;
include "qelib1.inc";
gate bell a, b { h a; cx a, b; }
qreg q[4];
bell q[0], q[1];
bell q[2], q[3];
cry(pi/5) q[1], q[2];
rzz(0.123) q[0], q[3];
sdg q[1]; tdg q[2]; sx q[3];
cu(0.2, 0.3, 0.4, 0.5) q[3], q[0];
ccx q[3], q[1], q[0];
