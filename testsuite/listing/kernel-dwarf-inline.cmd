# the inlined copies of a function, by the header that declares it
# needs: kernel-dwarf
-l 'kernel.function("fdget_pos").inline'
