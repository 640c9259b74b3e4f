OPENQASM 2.0;
include "qelib1.inc";
qreg q[2];
h q; x q[0]; y q[1]; z q[0]; s q[1]; sdg q[0]; t q[1]; tdg q[0];
sx q[1]; sxdg q[0]; id q[1];
rx(0.3) q[0]; ry(-1.1) q[1]; rz(2.2) q[0]; p(0.7) q[1];
u1(0.4) q[0]; u2(0.1, 0.2) q[1]; u3(0.5, 0.6, 0.7) q[0]; u(1.5, -0.5, 0.25) q[1];
U(0.9, 0.8, 0.7) q[0];
