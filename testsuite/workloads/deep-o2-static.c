/* deep-o2-static.c - deep-o2.c linked statically, for the arm64 guest, which has no C
 * library: the chain main() -> run_phase() -> mid() -> hot_spin() (a leaf, whose return
 * address stays in the link register) through code without frame pointers, the C library's
 * start code included.
 *   deep-o2-static [MS [signal]]
 */
// cflags: -O2 -g -static -fomit-frame-pointer
#include "deep-o2.c"
