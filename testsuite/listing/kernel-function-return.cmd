# a kernel function's .return, with the value it returns and the parameters (their
# values at the call), as stap -L lists them
# needs: kernel-dwarf
-L 'kernel.function("vfs_read").return'
