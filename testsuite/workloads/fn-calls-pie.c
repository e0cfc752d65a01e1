/* fn-calls-pie.c - fn-calls.c as a position-independent program linked with the C
 * library (which the guest then needs: runok.exp copies it in): loaded at a random
 * address, its static variables and functions are where the file says plus a bias.
 *   fn-calls-pie [ROUNDS [PAGES [SPINS [NAP_MS]]]]
 */
// cflags: -O0 -g -fPIE -pie -pthread
#include "fn-calls.c"
