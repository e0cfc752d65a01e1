/* guest_back.c - files that come home from the guest (GuestOptions.files_back): what
 * hwtap-run wrote there for --ras-db, --textfile, --pprof, copied back to the host paths
 * once the script has ended, as -o's output comes back.
 *
 * /init finds a fourth virtio-serial port, hwtap.back (a file in the work folder, as
 * stdout is), and after the script, for each guest path in /hwtap/back (one a line, in
 * files_back's order) writes "\001hwtap-file NONCE INDEX SIZE MODE\n" and the file's bytes,
 * or SIZE -1 for a file that is not there; then "\001hwtap-files-end NONCE\n". The host
 * reads the records in order after QEMU ends and replaces each host file: written beside
 * it under a temporary name, then renamed over it (a link planted at the name is replaced,
 * never followed). A record that is cut short, out of order or missing leaves the host
 * file as it was, and says so.
 */
#include "guest_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BACK_MARK "\001hwtap-file "
#define BACK_END "\001hwtap-files-end "

/* The host path of "GUEST:HOST" (after the first ':' that starts a host path). */
static const char *host_part(const char *spec)
{
	const char *colon = strchr(spec, ':');
	return colon ? colon + 1 : "";
}

char *guest_back_list(const Guest *g, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);
	if (!f) {
		fputs("hwtap: error: out of memory\n", stderr);
		exit(1);
	}
	for (const char **p = g->o->files_back; p && *p; p++) {
		const char *colon = strchr(*p, ':');
		fprintf(f, "%.*s\n", colon ? (int)(colon - *p) : (int)strlen(*p), *p);
	}
	fclose(f);
	return text;
}

void guest_back_init(FILE *f, const Guest *g)
{
	if (!g->o->files_back || !*g->o->files_back)
		return;
	fputs("back=$(port hwtap.back) && exec 6>\"$back\" || die \"no port hwtap.back\"\n", f);
	fprintf(f, "send_back() {\n"
		"\ti=0\n"
		"\twhile IFS= read -r f; do\n"
		"\t\tif [ -f \"$f\" ]; then\n"
		"\t\t\tprintf '\\001hwtap-file %s %%d %%s %%s\\n' $i \"$(stat -c %%s \"$f\")\" "
		"\"$(stat -c %%a \"$f\")\" >&6\n"
		"\t\t\tcat \"$f\" >&6\n"
		"\t\telse\n"
		"\t\t\tprintf '\\001hwtap-file %s %%d -1 0\\n' $i >&6\n"
		"\t\tfi\n"
		"\t\ti=$((i + 1))\n"
		"\tdone </hwtap/back\n"
		"\tprintf '\\001hwtap-files-end %s\\n' >&6\n"
		"}\n", g->nonce, g->nonce, g->nonce);
}

/* HOST replaced by LEN bytes of DATA, mode MODE: written beside it, renamed over it. */
static int replace_file(Guest *g, const char *host, const char *data, size_t len,
			unsigned mode)
{
	const char *slash = strrchr(host, '/');
	char *tmp = slash ? guest_xformat("%.*s/.%s.hwtap-XXXXXX", (int)(slash - host), host,
					   slash + 1) : guest_xformat(".%s.hwtap-XXXXXX", host);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		int e = errno;
		free(tmp);
		return guest_error(g, -e, "cannot write %s, which came back from the guest: %s",
				   host, strerror(e));
	}
	size_t done = 0;
	while (done < len) {
		ssize_t n = write(fd, data + done, len - done);
		if (n <= 0)
			break;
		done += n;
	}
	int e = done < len ? errno : 0;
	if (!e && fchmod(fd, mode & 0777))
		e = errno;
	if (close(fd) && !e)
		e = errno;
	if (!e && rename(tmp, host))
		e = errno;
	if (e) {
		unlink(tmp);
		free(tmp);
		return guest_error(g, -e, "cannot write %s, which came back from the guest: %s",
				   host, strerror(e ? e : EIO));
	}
	free(tmp);
	guest_note(g, "file back: %s (%zu bytes)", host, len);
	return 0;
}

int guest_back_collect(Guest *g, const char *path)
{
	int n = 0;
	for (const char **p = g->o->files_back; p && *p; p++)
		n++;
	if (!n)
		return 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *data = NULL;
	size_t len = 0;
	if (fd >= 0 && !fstat(fd, &st) && st.st_size > 0) {
		data = guest_xmalloc(st.st_size + 1);
		ssize_t got;
		while (len < (size_t)st.st_size &&
		       (got = read(fd, data + len, st.st_size - len)) > 0)
			len += got;
		data[len] = '\0';
	}
	if (fd >= 0)
		close(fd);
	int rc = 0, index = 0;
	size_t at = 0;
	char *mark = guest_xformat("%s%s ", BACK_MARK, g->nonce);
	char *end = guest_xformat("%s%s\n", BACK_END, g->nonce);
	for (; index < n; index++) {
		const char *host = host_part(g->o->files_back[index]);
		int i = -1;
		long long size = -2;
		unsigned mode = 0;
		int used = 0;
		if (!data || len - at < strlen(mark) || memcmp(data + at, mark, strlen(mark)) ||
		    sscanf(data + at + strlen(mark), "%d %lld %o\n%n", &i, &size, &mode, &used) < 3 ||
		    !used || i != index)
			break;
		at += strlen(mark) + used;
		if (size < 0) {
			fprintf(g->err, "hwtap: warning: the guest wrote no %s: nothing came back "
				"(left as it was)\n", host);
			continue;
		}
		if ((unsigned long long)size > len - at) {
			rc = guest_error(g, -EIO, "the guest's %s was cut short (%zu of %lld bytes "
					 "came back): %s left as it was", host, len - at, size, host);
			index = n;
			break;
		}
		if (replace_file(g, host, data + at, size, mode))
			rc = -EIO;
		at += size;
	}
	if (index < n) {
		rc = guest_error(g, -EIO, "%d of the files the run wrote did not come back from "
				 "the guest (the script's run did not end normally): %s%s left as "
				 "they were", n - index, host_part(g->o->files_back[index]),
				 n - index > 1 ? " and the others" : "");
	} else if (rc == 0 && (len - at < strlen(end) || memcmp(data + at, end, strlen(end)))) {
		rc = guest_error(g, -EIO, "the files that came back from the guest do not end "
				 "as they should");
	}
	free(mark);
	free(end);
	free(data);
	return rc;
}
