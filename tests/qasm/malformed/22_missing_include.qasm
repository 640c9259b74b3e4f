// expect: line 3, column 9: cannot include 'nowhere.inc': no such file
OPENQASM 2.0;
include "nowhere.inc";
