// expect: line 4, column 1: gate 'rx' takes 1 parameter(s), got 2
OPENQASM 2.0;
qreg q[1];
rx(0.1, 0.2) q[0];
