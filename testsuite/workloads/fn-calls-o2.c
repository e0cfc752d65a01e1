/* fn-calls-o2.c - fn-calls.c optimized (-O2): add() and scale() are inlined into their
 * callers (add into main and into the other thread's function), fact(4) is folded into
 * a constant, and most variables live in registers or location lists.
 *   fn-calls-o2 [ROUNDS [PAGES [SPINS [NAP_MS [fork|- [THREADS]]]]]]
 */
// cflags: -O2 -g -static -pthread
#include "fn-calls.c"
