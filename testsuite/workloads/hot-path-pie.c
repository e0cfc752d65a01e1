/* hot-path-pie.c - hot-path.c as a position-independent program linked with the C
 * library (runok.exp copies the library and its loader into the guest): its functions
 * are where a random bias puts them, its clock calls go through libc.so.6.
 *   hot-path-pie [MS [THREADS]]
 */
// cflags: -O0 -g -fPIE -pie -fno-omit-frame-pointer -pthread
#include "hot-path.c"
