// genqsim-only: /* block comments */ are an extension that OpenQASM 2.0 parsers differ on
OPENQASM 2.0;
include "qelib1.inc";
/* a block comment
   over several lines */
qreg q[2];
h q[0]; /* inline */ cx q[0], q[1];
