# a program without debug information: its symbol table's functions, no variables
-L 'process("/root/touch-pages").function("main")'
