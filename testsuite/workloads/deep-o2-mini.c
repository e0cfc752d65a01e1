/* deep-o2-mini.c - deep-o2's call chain in a program shipped as Fedora and CentOS ship
 * theirs: stripped (.dynsym only, where a PIE program exports nothing of its own), its
 * local and global functions kept in MiniDebugInfo (.gnu_debugdata, an xz-compressed ELF
 * file with just that .symtab), made after the link by testsuite/lib/minidebuginfo.sh as
 * gdb's manual describes.
 *   deep-o2-mini [MS [signal]]    (1000 ms)
 */
// cflags: -O2 -g -fPIE -pie -fomit-frame-pointer
// post: minidebuginfo.sh
#include "deep-o2.c"
