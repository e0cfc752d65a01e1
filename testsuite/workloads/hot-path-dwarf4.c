/* hot-path-dwarf4.c - hot-path.c with DWARF 4 debug information, whose line tables
 * SystemTap 4.8 reads (it gives no source lines for gcc 12's default, DWARF 5): the oracle
 * for usymfileline() and its siblings.
 *   hot-path-dwarf4 [MS [THREADS]]
 */
// cflags: -O0 -gdwarf-4 -static -fno-omit-frame-pointer -pthread
#include "hot-path.c"
