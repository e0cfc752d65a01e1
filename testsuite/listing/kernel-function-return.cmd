# a kernel function's .return, with the value it returns
-L 'kernel.function("vfs_read").return'
