// Order finding with one recycled control qubit (Kitaev's semiclassical scheme) for
// a -> 4a mod 15 on a 4-qubit work register: each round resets the control, applies the
// controlled modular multiplication, and corrects by the earlier bits.
OPENQASM 2.0;
include "qelib1.inc";
qreg ctl[1];
qreg w[4];
creg c0[1];
creg c1[1];
x w[0];
h ctl[0];
cswap ctl[0], w[0], w[2];
cswap ctl[0], w[1], w[3];
h ctl[0];
measure ctl[0] -> c0[0];
reset ctl[0];
h ctl[0];
if (c0==1) p(-pi/2) ctl[0];
h ctl[0];
measure ctl[0] -> c1[0];
