/* deep-o2-debugframe.c - deep-o2's call chain built with its call frame information in
 * .debug_frame instead of .eh_frame (-fno-asynchronous-unwind-tables -g: GCC then writes
 * the CFI for the debugger only, as some C code and Go's linker do), still -O2 without
 * frame pointers; the start files' own .eh_frame is linked in beside it.
 *   deep-o2-debugframe [MS [signal]]    (1000 ms)
 */
// cflags: -O2 -g -fPIE -pie -fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables
#include "deep-o2.c"
