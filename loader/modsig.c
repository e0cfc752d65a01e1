/* modsig.c - why the kernel refused a module for its signature, in words that say what to
 * do: the kernel answers only EKEYREJECTED (module.sig_enforce=1, CONFIG_MODULE_SIG_FORCE:
 * unsigned, an unknown key, a bad signature alike) or EPERM (lockdown, as UEFI Secure
 * Boot sets it, or module loading switched off). What tells them apart is read here:
 * whether the file carries a signature (the kernel's "~Module signature appended~\n"
 * trailer), /sys/module/module/parameters/sig_enforce, the lockdown LSM's level in
 * securityfs, and kernel.modules_disabled.
 */
#define _GNU_SOURCE
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SIG_TRAILER "~Module signature appended~\n"

/* Up to SIZE - 1 bytes of the small file PATH, NUL-ended; "" when unreadable. */
static const char *read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, size - 1) : -1;
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

bool modsig_signed(const char *ko)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char tail[sizeof(SIG_TRAILER) - 1];
	bool yes = fd >= 0 && !fstat(fd, &st) && st.st_size > (off_t)sizeof(tail) &&
		   pread(fd, tail, sizeof(tail), st.st_size - sizeof(tail)) == sizeof(tail) &&
		   !memcmp(tail, SIG_TRAILER, sizeof(tail));
	if (fd >= 0)
		close(fd);
	return yes;
}

/* The lockdown level ("integrity", "confidentiality"), "" for none, NULL when securityfs
 * does not say (not mounted, no lockdown LSM). */
static const char *lockdown(char *buf, size_t size)
{
	const char *text = read_small("/sys/kernel/security/lockdown", buf, size);
	char *open = strchr(text, '['), *close = open ? strchr(open, ']') : NULL;
	if (!close)
		return NULL;
	*close = '\0';
	return strcmp(open + 1, "none") ? open + 1 : "";
}

static const char how_to_sign[] =
	"build it signed with a key the kernel trusts (hwtap --sign-key=KEY --sign-cert=CERT, or "
	"/etc/hwtap/signing.conf; hwtap-keygen makes a pair and says how to enroll it with "
	"mokutil): see SECURE BOOT in hwtap-run(8)";
static const char how_to_trust[] =
	"enroll its certificate (mokutil --import CERT, then reboot and confirm it) or sign "
	"with a key the kernel trusts: see SECURE BOOT in hwtap-run(8); the kernel log (dmesg) "
	"says more";

char *modsig_explain(const char *ko, int err)
{
	char buf[128], level_buf[128];
	bool is_signed = modsig_signed(ko);
	if (err == EKEYREJECTED || err == ENOKEY || err == EBADMSG) {
		bool enforced = read_small("/sys/module/module/parameters/sig_enforce", buf,
					   sizeof(buf))[0] == 'Y';
		const char *rule = enforced ? "the kernel takes only signed modules "
			"(module.sig_enforce=1 or CONFIG_MODULE_SIG_FORCE)" : "the kernel checks "
			"the signatures of modules";
		if (!is_signed)
			return run_format("%s, and this one is unsigned: %s", rule, how_to_sign);
		return run_format("%s, and refused this one's signature: it was signed by a "
				  "key the kernel does not trust, or changed since: %s", rule,
				  how_to_trust);
	}
	if (err != EPERM)
		return NULL;
	const char *level = lockdown(level_buf, sizeof(level_buf));
	if (level && *level) {
		const char *rule = run_format("the kernel is locked down (lockdown=%s, as under "
					      "UEFI Secure Boot) and takes only modules signed "
					      "with a key it trusts", level);
		if (!is_signed)
			return run_format("%s; this one is unsigned: %s", rule, how_to_sign);
		return run_format("%s; this one is signed by a key it does not trust: %s", rule,
				  how_to_trust);
	}
	if (read_small("/proc/sys/kernel/modules_disabled", buf, sizeof(buf))[0] == '1')
		return run_format("module loading is switched off until the next boot "
				  "(kernel.modules_disabled=1)");
	return run_format("%s (no CAP_SYS_MODULE: hwtap-run runs as root%s)", strerror(err),
			  level ? "" : "; or a lockdown this kernel does not show in "
			  "/sys/kernel/security/lockdown");
}
