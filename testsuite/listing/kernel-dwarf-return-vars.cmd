# a .return resolved with DWARF: $return and the parameters (kept at the call)
# needs: kernel-dwarf
-L 'kernel.function("ksys_read@*").return'
