/* sign.c - signed modules, for kernels that take no others (UEFI Secure Boot's lockdown,
 * module.sig_enforce=1, CONFIG_MODULE_SIG_FORCE).
 *
 * The key pair: --sign-key/--sign-cert, else /etc/hwtap/signing.conf's "key = PATH" and
 * "cert = PATH" (hwtap-keygen writes it), else none. The private key is a secret: it must
 * be the user's own and nobody else's to read, and it is only ever named to the target
 * tree's scripts/sign-file (as DKMS signs), never copied, never in the cache or a log.
 * The cache keeps the unsigned module as it always has, and each signed copy in a folder
 * of its own beside it, named by the certificate (signed-HASH/NAME.ko): signed and
 * unsigned builds never stand in for each other, and a new certificate signs anew.
 *
 * Before pass 4, sign_check_rule() says at once when the kernel the module is for takes
 * only signed modules and no key is set: from the tree's own CONFIG_MODULE_SIG_FORCE,
 * from --vm-append's module.sig_enforce= and lockdown= words for the guest, and for this
 * machine's running kernel from /sys (sig_enforce, and the lockdown LSM's level).
 */
#include "hwtap.h"
#include "../../guest/guest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#define SIGNING_CONF "/etc/hwtap/signing.conf"
#define SIGNING_CONF_MAX (64 << 10)
#define CERT_MAX (1 << 20)

/* ---- the key pair ----------------------------------------------------------------------- */

/* Whether PATH, the private key, may be used: the user's own regular file that only the
 * user can read. NULL, or why not (for "the signing key PATH ..."). A PKCS#11 URI names a
 * token's key, which sign-file reaches through OpenSSL's engine: nothing to check here. */
static const char *key_unfit(const char *path)
{
	if (!strncmp(path, "pkcs11:", 7))
		return NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return errno == ELOOP ? "is a symbolic link: name the file itself" :
		       xformat("cannot be read: %s", strerror(errno));
	struct stat st;
	const char *why = NULL;
	if (fstat(fd, &st))
		why = xformat("cannot be read: %s", strerror(errno));
	else if (!S_ISREG(st.st_mode))
		why = "is not a regular file";
	else if (st.st_uid != geteuid())
		why = xformat("is owned by uid %u, not by uid %u who signs with it",
			      (unsigned)st.st_uid, (unsigned)geteuid());
	else if (st.st_mode & 077)
		why = xformat("can be read or written by others (mode %04o): it is a secret; "
			      "chmod 600 %s", (unsigned)(st.st_mode & 07777), path);
	close(fd);
	return why;
}

/* Whether PATH holds an X.509 certificate, PEM or DER as sign-file reads them. */
static const char *cert_unfit(const char *path)
{
	struct stat st;
	if (stat(path, &st))
		return xformat("cannot be read: %s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return "is not a regular file";
	size_t len;
	char *text = read_whole_file(path, &len);
	if (!text)
		return xformat("cannot be read: %s", strerror(errno));
	if (len > CERT_MAX)
		return "is too large for a certificate (over 1 MiB)";
	if (strstr(text, "-----BEGIN CERTIFICATE-----"))
		return NULL;
	/* DER: a SEQUENCE with a long-form length, as every certificate has */
	if (len > 4 && (unsigned char)text[0] == 0x30 && ((unsigned char)text[1] & 0x80))
		return NULL;
	return "holds no X.509 certificate (PEM or DER)";
}

/* /etc/hwtap/signing.conf: "key = PATH" and "cert = PATH" lines, '#' comments. Root's
 * file, which nobody else may write (it says what hwtap signs with). False after saying
 * why; true with nothing set when there is no file. */
static bool read_conf(Session *s)
{
	int fd = open(SIGNING_CONF, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 && errno == ENOENT)
		return true;
	struct stat st;
	if (fd < 0 || fstat(fd, &st)) {
		error_plain("cannot read %s: %s", SIGNING_CONF, strerror(errno));
		if (fd >= 0)
			close(fd);
		return false;
	}
	close(fd);
	if (!S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022)) {
		error_plain("refusing %s: it must be a regular file of root's that nobody else "
			    "can write (it names the key modules are signed with)", SIGNING_CONF);
		return false;
	}
	size_t len;
	char *text = st.st_size <= SIGNING_CONF_MAX ? read_whole_file(SIGNING_CONF, &len) : NULL;
	if (!text || strlen(text) != len) {
		error_plain("cannot read %s: %s", SIGNING_CONF, text ? "it holds a NUL byte" :
			    st.st_size > SIGNING_CONF_MAX ? "over 64 KiB" : strerror(errno));
		return false;
	}
	const char *key = NULL, *cert = NULL;
	int lineno = 0;
	for (char *line = text, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char *p = line + strspn(line, " \t");
		size_t n = strlen(p);
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
			p[--n] = '\0';
		if (!*p)
			continue;
		size_t word = strcspn(p, " \t=");
		char *rest = p + word + strspn(p + word, " \t");
		const char **slot = word == 3 && !strncmp(p, "key", 3) ? &key :
				    word == 4 && !strncmp(p, "cert", 4) ? &cert : NULL;
		if (!slot) {
			error_plain("%s:%d: unknown setting '%.*s' (expected key or cert)",
				    SIGNING_CONF, lineno, (int)word, p);
			return false;
		}
		if (*rest != '=' || !*(rest += 1 + strspn(rest + 1, " \t"))) {
			error_plain("%s:%d: expected '%.*s = PATH'", SIGNING_CONF, lineno,
				    (int)word, p);
			return false;
		}
		*slot = xstrdup(rest);
	}
	if (!key != !cert) {
		error_plain("%s sets %s but not %s: both are needed to sign", SIGNING_CONF,
			    key ? "key" : "cert", key ? "cert" : "key");
		return false;
	}
	s->sign_key = key;
	s->sign_cert = cert;
	s->sign_from = SIGNING_CONF;
	return true;
}

bool sign_setup(Session *s)
{
	if (s->no_sign) {
		s->sign_key = s->sign_cert = NULL;
		return true;
	}
	if (s->sign_key || s->sign_cert) {
		if (!s->sign_key || !s->sign_cert) {
			error_plain("--sign-%s needs --sign-%s too: sign-file takes the private key "
				    "and its certificate", s->sign_key ? "key" : "cert",
				    s->sign_key ? "cert" : "key");
			return false;
		}
		s->sign_from = "the command line";
	} else if (!read_conf(s)) {
		return false;
	}
	if (!s->sign_key)
		return true;
	const char *why = key_unfit(s->sign_key);
	if (why && !strcmp(s->sign_from, SIGNING_CONF) && !signing_rule(s)) {
		/* the machine's key, not this user's: a kernel that takes unsigned modules
		 * still gets one */
		fprintf(stderr, "hwtap: warning: not signing: the signing key %s (from %s) %s\n",
			s->sign_key, s->sign_from, why);
		s->sign_key = s->sign_cert = NULL;
		return true;
	}
	if (why) {
		error_plain("the signing key %s (from %s) %s", s->sign_key, s->sign_from, why);
		return false;
	}
	if ((why = cert_unfit(s->sign_cert))) {
		error_plain("the signing certificate %s (from %s) %s", s->sign_cert, s->sign_from,
			    why);
		return false;
	}
	return true;
}

/* ---- the kernel's rule ------------------------------------------------------------------ */

/* The value of WORD=... among the space-separated words of LINE, or NULL. */
static char *word_value(const char *line, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = line; p && *p;) {
		p += strspn(p, " ");
		size_t len = strcspn(p, " ");
		if (len > n && !strncmp(p, word, n) && p[n] == '=')
			return xstrndup(p + n + 1, len - n - 1);
		p += len;
	}
	return NULL;
}

/* The lockdown LSM's level in /sys/kernel/security/lockdown ("none [integrity]
 * confidentiality"): "integrity", "confidentiality", or NULL when none or unknown. */
static char *lockdown_level(void)
{
	size_t len;
	char *text = read_whole_file("/sys/kernel/security/lockdown", &len);
	char *open = text ? strchr(text, '[') : NULL, *close = open ? strchr(open, ']') : NULL;
	if (!close)
		return NULL;
	char *level = xstrndup(open + 1, close - open - 1);
	return strcmp(level, "none") ? level : NULL;
}

const char *signing_rule(Session *s)
{
	if (!strcmp(session_config_value(s, "CONFIG_MODULE_SIG_FORCE"), "y"))
		return xformat("its build tree's CONFIG_MODULE_SIG_FORCE=y");
	if (session_runs_in_guest(s)) {
		const char *append = s->vm_append ? s->vm_append : "";
		char *v = word_value(append, "module.sig_enforce");
		if (v && (!strcmp(v, "1") || !strcmp(v, "y") || !strcmp(v, "Y")))
			return xformat("--vm-append's module.sig_enforce=%s", v);
		if ((v = word_value(append, "lockdown")) &&
		    (!strcmp(v, "integrity") || !strcmp(v, "confidentiality")))
			return xformat("--vm-append's lockdown=%s", v);
		return NULL;
	}
	struct utsname u;
	if (uname(&u) || strcmp(u.release, s->kernel_release))
		return NULL;
	size_t len;
	char *enforce = read_whole_file("/sys/module/module/parameters/sig_enforce", &len);
	if (enforce && enforce[0] == 'Y')
		return "module.sig_enforce=1";
	char *level = lockdown_level();
	if (level)
		return xformat("it is locked down (lockdown=%s, as under UEFI Secure Boot)", level);
	return NULL;
}

bool sign_check_rule(Session *s)
{
	if (s->sign_key)
		return true;
	const char *rule = signing_rule(s);
	if (!rule)
		return true;
	bool fatal = s->pass == 5;
	fprintf(stderr, "hwtap: %s: kernel %s takes only signed modules (%s), and no signing "
		"key is set%s: sign with a key it trusts (--sign-key=KEY --sign-cert=CERT, or %s; "
		"hwtap-keygen makes a pair and says how to enroll it): see SECURE BOOT in "
		"hwtap(1)\n", fatal ? "error" : "warning", s->kernel_release, rule,
		fatal ? "" : ": it will refuse this module", SIGNING_CONF);
	if (fatal)
		diag_errors++;
	return !fatal;
}

/* ---- signing ---------------------------------------------------------------------------- */

/* The target tree's sign-file, as DKMS uses it; NULL after saying why there is none. */
static const char *sign_file_path(Session *s)
{
	char *path = xformat("%s/scripts/sign-file", s->kernel_build);
	if (!access(path, X_OK))
		return path;
	error_plain("cannot sign modules for kernel %s: its build tree %s has no "
		    "scripts/sign-file (Debian's linux-kbuild has it; a tree of your own "
		    "builds it with CONFIG_MODULE_SIG=y)", s->kernel_release, s->kernel_build);
	return NULL;
}

char *sign_module(Session *s, const char *dir, const char *name, const char *ko)
{
	size_t len;
	char *cert = read_whole_file(s->sign_cert, &len);
	if (!cert) {
		error_plain("cannot read the signing certificate %s: %s", s->sign_cert,
			    strerror(errno));
		return NULL;
	}
	uint64_t h = fnv1a(FNV1A_INIT, cert, len);
	const char *hash = session_config_value(s, "CONFIG_MODULE_SIG_HASH");
	if (!*hash)
		hash = "sha256";
	h = fnv1a(h, hash, strlen(hash));
	char *folder = xformat("%s/signed-%016llx", dir, (unsigned long long)h);
	char *signed_ko = xformat("%s/%s.ko", folder, name);
	if (!s->keep_build && cache_own_file(signed_ko)) {
		if (s->verbose)
			fprintf(stderr, "hwtap: pass 4: %s from the cache\n", signed_ko);
		return signed_ko;
	}
	const char *tool = sign_file_path(s);
	if (!tool)
		return NULL;
	if (mkdir(folder, 0755) && errno != EEXIST) {
		error_plain("cannot create %s: %s", folder, strerror(errno));
		return NULL;
	}
	char *tmp = xformat("%s/.%s.ko.%d", folder, name, (int)getpid());
	if (!copy_file(ko, tmp)) {
		error_plain("cannot copy %s into %s: %s", ko, folder, strerror(errno));
		unlink(tmp);
		return NULL;
	}
	char *log = xformat("%s/sign.log", folder);
	if (s->verbose)
		fprintf(stderr, "hwtap: pass 4: %s %s %s %s %s\n", tool, hash, s->sign_key,
			s->sign_cert, tmp);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(127);
		execl(tool, tool, hash, s->sign_key, s->sign_cert, tmp, (char *)NULL);
		fprintf(stderr, "cannot run %s: %s\n", tool, strerror(errno));
		_exit(127);
	}
	int status = -1;
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) || rename(tmp, signed_ko)) {
		char *said = read_whole_file(log, &len);
		fprintf(stderr, "hwtap: error: cannot sign %s.ko with the key %s and the "
			"certificate %s (from %s); %s said:\n%s", name, s->sign_key, s->sign_cert,
			s->sign_from, tool, said && *said ? said : "nothing\n");
		diag_errors++;
		unlink(tmp);
		return NULL;
	}
	if (s->verbose)
		fprintf(stderr, "hwtap: pass 4: signed: %s\n", signed_ko);
	return signed_ko;
}
