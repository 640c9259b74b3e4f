// leading comment
OPENQASM   2.0 ;
include "qelib1.inc" ;
// a comment line
      // an indented comment line
qreg	q [ 3 ] ;
h	q[0];h q[1];   // two on one line
cx q[0],q[1] ;
   rz( -0.5 )q[2]
   ;
cx
  q[1],
  q[2];  // trailing
