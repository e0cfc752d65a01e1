# every line of a function with code, as stap -l reads the line table: one line per
# address (605 and 607 share one: 607 is no line of its own), none of file_ppos's
# (declared before ksys_read and inlined into it)
# needs: kernel-dwarf
-l 'kernel.statement("ksys_read@fs/read_write.c:*")'
