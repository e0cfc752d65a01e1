# a source line: the variables that have a location there ($count is gone by 479)
# needs: kernel-dwarf
-L 'kernel.statement("vfs_read@fs/read_write.c:479")'
