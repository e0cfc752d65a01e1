# a range of lines, each with the variables that have a value there, the inner block's
# ($pos, $ppos) first, as stap -L lists them
# needs: kernel-dwarf
-L 'kernel.statement("ksys_write@fs/read_write.c:632-634")'
