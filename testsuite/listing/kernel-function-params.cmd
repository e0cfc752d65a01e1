# a kernel function from the target kernel's BTF, with its parameters
-L 'kernel.function("vfs_read")'
