# a kernel function from the target kernel's BTF, with its parameters and their types
-L 'kernel.function("vfs_read")'
