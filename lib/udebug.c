/* udebug.c - a stripped file's separate debug file and MiniDebugInfo (udebug.h). */
#include "udebug.h"

#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* The section named NAME of type TYPE, within SIZE_MAX bytes, with its header: or NULL. */
static Elf_Scn *find_section(Elf *elf, const char *name, unsigned type, size_t size_max,
			     GElf_Shdr *sh)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, sh) || sh->sh_type != type)
			continue;
		const char *n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return sh->sh_size <= size_max ? scn : NULL;
	}
	return NULL;
}

/* The GNU build ID in DATA's notes into REF: whether there was one within the bounds. */
static bool note_id(Elf_Data *data, UDebugRef *ref)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;
	while (data && off < data->d_size &&
	       (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((char *)data->d_buf + name_off, "GNU", 4))
			continue;
		if (nh.n_descsz < 2 || nh.n_descsz > UDEBUG_ID_MAX)
			return false;
		memcpy(ref->id, (char *)data->d_buf + desc_off, nh.n_descsz);
		ref->id_len = nh.n_descsz;
		return true;
	}
	return false;
}

/* ELF's build ID into REF, from its note sections, else its PT_NOTE segments. */
static void read_id(Elf *elf, UDebugRef *ref)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE &&
		    sh.sh_size <= UDEBUG_NOTES_MAX && note_id(elf_getdata(scn, NULL), ref))
			return;
	}
	size_t nph = 0;
	if (elf_getphdrnum(elf, &nph))
		return;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_NOTE &&
		    ph.p_filesz <= UDEBUG_NOTES_MAX &&
		    note_id(elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz, ELF_T_NHDR), ref))
			return;
	}
}

static bool link_valid(const char *s)
{
	size_t n = strnlen(s, UDEBUG_LINK_MAX + 1);
	if (!n || n > UDEBUG_LINK_MAX || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '/' || (unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7e)
			return false;
	}
	return true;
}

/* ELF's .gnu_debuglink into REF: a NUL-terminated name, padding to 4 bytes, the CRC. */
static void read_link(Elf *elf, UDebugRef *ref)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(elf, ".gnu_debuglink", SHT_PROGBITS,
				    UDEBUG_LINK_MAX + 1 + 3 + 4, &sh);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	if (!data || data->d_size < 8)
		return;
	const char *p = data->d_buf;
	size_t n = strnlen(p, data->d_size);
	size_t at = (n + 4) & ~(size_t)3;
	if (n == data->d_size || at + 4 > data->d_size || n > UDEBUG_LINK_MAX)
		return;
	memcpy(ref->link, p, n);
	ref->link[n] = '\0';
	if (!link_valid(ref->link)) {
		ref->link[0] = '\0';
		return;
	}
	const unsigned char *c = (const unsigned char *)p + at;
	bool big = elf_getident(elf, NULL)[EI_DATA] == ELFDATA2MSB;
	ref->crc = big ? (uint32_t)c[0] << 24 | c[1] << 16 | c[2] << 8 | c[3]
		       : (uint32_t)c[3] << 24 | c[2] << 16 | c[1] << 8 | c[0];
}

bool udebug_ref(Elf *elf, UDebugRef *ref)
{
	memset(ref, 0, sizeof(*ref));
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return false;
	}
	read_id(elf, ref);
	read_link(elf, ref);
	return ref->id_len || ref->link[0];
}

bool udebug_ref_valid(const UDebugRef *ref)
{
	if (ref->id_len == 1 || ref->id_len > UDEBUG_ID_MAX ||
	    !memchr(ref->link, '\0', sizeof(ref->link)))
		return false;
	return !ref->link[0] || link_valid(ref->link);
}

/* Whether PATH is absolute and has no "." or ".." among its components. */
static bool plain_path(const char *path)
{
	if (path[0] != '/')
		return false;
	for (const char *p = path; *p; ) {
		while (*p == '/')
			p++;
		size_t n = strcspn(p, "/");
		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += n;
	}
	return true;
}

int udebug_path(const UDebugRef *ref, const char *path, int i, char *buf, size_t size)
{
	int n = -1;
	if (i == 0) {
		if (!ref->id_len)
			return -1;
		char hex[2 * UDEBUG_ID_MAX + 1];
		for (uint32_t k = 0; k < ref->id_len; k++)
			snprintf(hex + 2 * k, 3, "%02x", ref->id[k]);
		n = snprintf(buf, size, "%s/.build-id/%.2s/%s.debug", UDEBUG_ROOT, hex, hex + 2);
	} else if (i == 1) {
		const char *slash = strrchr(path, '/');
		if (!ref->link[0] || !slash || !plain_path(path))
			return -1;
		n = snprintf(buf, size, "%s%.*s/%s", UDEBUG_ROOT, (int)(slash - path), path,
			     ref->link);
	} else {
		return 0;
	}
	return n > 0 && (size_t)n < size ? 1 : -1;
}

bool udebug_matches(Elf *debug, int fd, const UDebugRef *ref)
{
	if (ref->id_len) {
		UDebugRef got = {0};
		read_id(debug, &got);
		return got.id_len == ref->id_len && !memcmp(got.id, ref->id, ref->id_len);
	}
	if (!ref->link[0])
		return false;
	/* the whole file's CRC-32 (zlib's: the one .gnu_debuglink takes), read with pread */
	static unsigned char chunk[1 << 16];
	uLong crc = crc32(0, NULL, 0);
	off_t at = 0;
	ssize_t n;
	while ((n = pread(fd, chunk, sizeof(chunk), at)) > 0) {
		crc = crc32(crc, chunk, (uInt)n);
		at += n;
	}
	return !n && (uint32_t)crc == ref->crc;
}

int udebug_minidebuginfo(Elf *elf, unsigned char **out, size_t *len)
{
	*out = NULL;
	*len = 0;
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(elf, ".gnu_debugdata", SHT_PROGBITS, UDEBUG_XZ_IN_MAX, &sh);
	Elf_Data *data = scn ? elf_rawdata(scn, NULL) : NULL;
	if (!data || !data->d_size)
		return 0;
	lzma_stream z = LZMA_STREAM_INIT;
	if (lzma_stream_decoder(&z, UDEBUG_XZ_MEM_MAX, 0) != LZMA_OK)
		return 0;
	z.next_in = data->d_buf;
	z.avail_in = data->d_size;
	size_t cap = data->d_size * 4 < UDEBUG_XZ_OUT_MAX ? data->d_size * 4 : UDEBUG_XZ_OUT_MAX;
	unsigned char *buf = NULL;
	lzma_ret r = LZMA_OK;
	while (r == LZMA_OK) {
		if (!buf || z.total_out == cap) {
			if (buf && cap == UDEBUG_XZ_OUT_MAX)
				break;                  /* past the bound: not taken */
			if (buf)
				cap = cap * 2 < UDEBUG_XZ_OUT_MAX ? cap * 2 : UDEBUG_XZ_OUT_MAX;
			unsigned char *b = realloc(buf, cap);
			if (!b) {
				free(buf);
				lzma_end(&z);
				return -1;
			}
			buf = b;
			z.next_out = buf + z.total_out;
			z.avail_out = cap - z.total_out;
		}
		r = lzma_code(&z, LZMA_FINISH);
	}
	size_t got = z.total_out;
	lzma_end(&z);
	if (r != LZMA_STREAM_END) {
		free(buf);
		return r == LZMA_MEM_ERROR ? -1 : 0;
	}
	*out = buf;
	*len = got;
	return 1;
}
