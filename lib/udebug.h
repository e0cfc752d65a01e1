/* udebug.h - the names a stripped file keeps elsewhere: its separate debug file, which
 * Debian's -dbg and -dbgsym packages install under /usr/lib/debug (by the file's GNU build
 * ID, .build-id/NN/REST.debug, or by its .gnu_debuglink, /usr/lib/debug/DIR/NAME beside
 * its path), and its MiniDebugInfo (.gnu_debugdata: an xz-compressed ELF file holding the
 * symbols .dynsym lacks, as Fedora and CentOS ship their programs). For the translator's
 * built-in files (translator/target/usyms.c) and hwtap-run's readers (loader/usyms.c) alike;
 * lib/usymtab.c takes the symbols from whichever there is.
 *
 * Debug files are looked for under UDEBUG_ROOT only, root's tree, never beside the file
 * (gdb also tries DIR/NAME and DIR/.debug/NAME: a local user's folders, whose files
 * hwtap-run would then open as root for another user's process). What a file says of its
 * debug file is bounded and checked before it names a path: a build ID of 2 to
 * UDEBUG_ID_MAX bytes, a link name of one component (no '/', not "." or "..", printable,
 * up to UDEBUG_LINK_MAX bytes); a debug file is taken only if it is the file's own: the
 * same build ID, or, where the file has none, the CRC the link gives. */
#ifndef HWTAP_UDEBUG_H
#define HWTAP_UDEBUG_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UDEBUG_ROOT "/usr/lib/debug"
#define UDEBUG_ID_MAX 64
#define UDEBUG_LINK_MAX 255
#define UDEBUG_NOTES_MAX (1u << 20)             /* a note section or segment read */
#define UDEBUG_PATH_MAX 4096
#define UDEBUG_XZ_IN_MAX (64u << 20)            /* .gnu_debugdata, compressed */
#define UDEBUG_XZ_OUT_MAX (64u << 20)           /* and decompressed */
#define UDEBUG_XZ_MEM_MAX (128u << 20)          /* liblzma's decoder memory (xz -9: 65 MiB) */

typedef struct {
	unsigned char id[UDEBUG_ID_MAX];        /* the GNU build ID */
	uint32_t id_len;                        /* 0: none */
	char link[UDEBUG_LINK_MAX + 1];         /* .gnu_debuglink's name; "": none */
	uint32_t crc;                           /* and its CRC-32 of the debug file */
} UDebugRef;

/* What ELF says of its debug file into REF: whether there is anything to look for (not
 * when ELF has a .symtab of its own). */
bool udebug_ref(Elf *elf, UDebugRef *ref);

/* Whether REF, as it came from anywhere, keeps udebug_ref's bounds. */
bool udebug_ref_valid(const UDebugRef *ref);

/* The Ith place (0, 1 ...) to look for REF's debug file, for a file at PATH, into BUF of
 * SIZE bytes: 1, 0 when there is no Ith (-1: none here, try the next). */
int udebug_path(const UDebugRef *ref, const char *path, int i, char *buf, size_t size);

/* Whether DEBUG, read from FD, is REF's debug file. */
bool udebug_matches(Elf *debug, int fd, const UDebugRef *ref);

/* ELF's MiniDebugInfo decompressed into *OUT (malloc'd, *LEN bytes): 1, 0 when it has
 * none or it is not within the bounds, -1 when out of memory. */
int udebug_minidebuginfo(Elf *elf, unsigned char **out, size_t *len);

#endif /* HWTAP_UDEBUG_H */
