# a kernel function from the target kernel's BTF, with its parameters and their types,
# named where the kernel's DWARF says it is declared, as stap -L names it
# needs: kernel-dwarf
-L 'kernel.function("vfs_read")'
