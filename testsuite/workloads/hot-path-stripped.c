/* hot-path-stripped.c - hot-path.c linked statically and stripped of its symbol table
 * (-s): a program whose addresses have no names, only a file.
 *   hot-path-stripped [MS [THREADS]]
 */
// cflags: -O0 -static -fno-omit-frame-pointer -pthread -s
#include "hot-path.c"
