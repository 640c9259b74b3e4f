// Bit-flip repetition code on 3 data qubits with 2 syndrome ancillas: encode, flip q[1],
// measure the syndrome, correct with conditionals on the syndrome register, read out.
OPENQASM 2.0;
include "qelib1.inc";
qreg q[5];
creg syn[2];
creg out[3];
ry(0.7) q[0];
cx q[0], q[1];
cx q[0], q[2];
x q[1];
cx q[0], q[3];
cx q[1], q[3];
cx q[1], q[4];
cx q[2], q[4];
measure q[3] -> syn[0];
measure q[4] -> syn[1];
if (syn==1) x q[0];
if (syn==3) x q[1];
if (syn==2) x q[2];
measure q[0] -> out[0];
measure q[1] -> out[1];
measure q[2] -> out[2];
