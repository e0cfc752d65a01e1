# a function named by its source file: the kernel's DWARF, as stap -L prints it (the
# parameters, the locals live where the probe is: none at the body's start)
# needs: kernel-dwarf
-L 'kernel.function("vfs_read@fs/read_write.c")'
