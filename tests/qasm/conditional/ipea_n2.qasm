// Iterative phase estimation of the phase 1/4 + 1/8 of a controlled phase gate (2 qubits):
// each round measures the ancilla and feeds the bit back through a conditional rotation.
OPENQASM 2.0;
include "qelib1.inc";
qreg q[2];
creg c[2];
x q[1];
h q[0];
cp(3*pi/2) q[0], q[1];
h q[0];
measure q[0] -> c[0];
reset q[0];
h q[0];
cp(3*pi/4) q[0], q[1];
if (c==1) p(-pi/2) q[0];
h q[0];
measure q[0] -> c[1];
