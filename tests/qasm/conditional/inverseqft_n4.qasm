// Semiclassical inverse QFT on 4 qubits (Griffiths-Niu): measure a qubit, then rotate the
// next ones conditioned on the outcomes so far. Input: the Fourier state of 5 = 0101.
OPENQASM 2.0;
include "qelib1.inc";
qreg q[4];
creg c0[1];
creg c1[1];
creg c2[1];
creg c3[1];
h q[0]; h q[1]; h q[2]; h q[3];
p(5*pi/8) q[0];
p(5*pi/4) q[1];
p(5*pi/2) q[2];
p(5*pi) q[3];
h q[3];
measure q[3] -> c0[0];
if (c0==1) p(-pi/2) q[2];
h q[2];
measure q[2] -> c1[0];
if (c0==1) p(-pi/4) q[1];
if (c1==1) p(-pi/2) q[1];
h q[1];
measure q[1] -> c2[0];
if (c0==1) p(-pi/8) q[0];
if (c1==1) p(-pi/4) q[0];
if (c2==1) p(-pi/2) q[0];
h q[0];
measure q[0] -> c3[0];
