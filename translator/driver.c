/* driver.c - the session: target kernel facts, and the front end's pipeline
 * (macros, parse, -p1 print, tapset, elaborate, -p2 print). main.c fills the options;
 * the fuzzer calls run_front_end() directly. */
#include "hwtap.h"
#include "../guest/guest.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef HWTAP_SRCDIR
#define HWTAP_SRCDIR "."
#endif
#ifndef HWTAP_DATADIR
#define HWTAP_DATADIR "/usr/local/share/hwtap"
#endif

static bool is_dir(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* The built-in tapset: $HWTAP_TAPSET_DIR, the source tree when run from it, else the
 * installed copy. */
static const char *builtin_tapset(void)
{
	const char *env = getenv("HWTAP_TAPSET_DIR");
	if (env && *env)
		return env;
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash && slash - exe >= 11 && !strncmp(slash - 11, "/translator", 11)) {
			const char *src = HWTAP_SRCDIR "/tapset";
			if (is_dir(src))
				return src;
		}
	}
	return HWTAP_DATADIR "/tapset";
}

/* The release the guest boots by default (guest.h), looked up once. */
static char *default_release(void)
{
	static char *release;
	static bool looked;
	if (!looked)
		release = guest_default_release(NULL, NULL, NULL);
	looked = true;
	return release;
}

/* Another architecture's kernel (-a ARCH): its release, under its guest root. */
static void set_foreign_kernel(Session *s, const char *release)
{
	const GuestArch *a = s->target_arch;
	char *root = guest_arch_root(a);
	s->arch = a->name;
	char *rel = release ? xstrdup(release) : guest_default_release(a, NULL, NULL);
	s->kernel_release = rel ? rel : xformat("(no %s kernel)", a->name);
	s->kernel_version = xstrndup(s->kernel_release, strcspn(s->kernel_release, "-"));
	char *b = xformat("%s/lib/modules/%s/build", root, s->kernel_release);
	s->kernel_build = rel && is_dir(b) ? b : NULL;
	s->kconfig = NULL;
	s->kconfig_loaded = false;
	free(root);
}

void session_set_kernel(Session *s, const char *release_or_dir)
{
	if (s->target_arch && !guest_arch_is_host(s->target_arch)) {
		set_foreign_kernel(s, release_or_dir);
		return;
	}
	struct utsname u;
	uname(&u);
	s->arch = xstrdup(u.machine);
	const char *rel = release_or_dir;
	s->kernel_build = NULL;
	if (rel && strchr(rel, '/')) {
		s->kernel_build = xstrdup(rel);
		rel = NULL;
		size_t len;
		char *text = read_whole_file(xformat("%s/include/config/kernel.release",
						     s->kernel_build), &len);
		if (text) {
			text[strcspn(text, "\n")] = '\0';
			rel = text;
		}
	}
	if (!rel) {
		char *running = xformat("/lib/modules/%s/build", u.release);
		rel = is_dir(running) ? xstrdup(u.release) : default_release();
		if (!rel)
			rel = xstrdup(u.release);
	}
	s->kernel_release = rel;
	s->kernel_version = xstrndup(rel, strcspn(rel, "-"));
	if (!s->kernel_build) {
		char *b = xformat("/lib/modules/%s/build", rel);
		if (is_dir(b))
			s->kernel_build = b;
	}
	s->kconfig = NULL;
	s->kconfig_loaded = false;
}

const char *session_kconfig(Session *s)
{
	if (!s->kconfig_loaded && s->kernel_build) {
		size_t len;
		s->kconfig = read_whole_file(xformat("%s/.config", s->kernel_build), &len);
	}
	s->kconfig_loaded = true;
	return s->kconfig;
}

/* A CONFIG_ option of the target kernel: "y", "m", a value, or "" when unset. */
const char *session_config_value(Session *s, const char *name)
{
	const char *config = session_kconfig(s);
	size_t n = strlen(name);
	for (const char *p = config; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
		if (strncmp(p, name, n) || p[n] != '=')
			continue;
		const char *v = p + n + 1;
		size_t len = strcspn(v, "\n");
		if (len >= 2 && v[0] == '"' && v[len - 1] == '"')
			return xstrndup(v + 1, len - 2);
		return xstrndup(v, len);
	}
	return "";
}

void session_init(Session *s)
{
	memset(s, 0, sizeof(*s));
	s->pass = 5;
	s->compat = "4.8";
	s->tapset_dir = builtin_tapset();
	session_set_kernel(s, NULL);
}

int run_front_end(Session *s, const char *name, const char *text, size_t len)
{
	diag_reset();
	tapset_load_macros(s);
	SrcFile *file = new_srcfile(name, text, len);
	s->failed_pass = 1;
	s->user = parse_script(file, s);
	if (diag_errors)
		return diag_errors;
	if (s->pass == 1) {
		print_script(s->out ? s->out : stdout, s->user);
		return 0;
	}
	s->failed_pass = 2;
	tapset_load(s);
	if (diag_errors)
		return diag_errors;
	elaborate(s);
	if (diag_errors)
		return diag_errors;
	if (s->pass == 2)
		print_elaborated(s->out ? s->out : stdout, s);
	return 0;
}

/* A module name from the script: hwtap_ and a hash of its text and settings. */
static char *default_module_name(Session *s)
{
	uint64_t h = fnv1a(FNV1A_INIT, s->user->file->text, strlen(s->user->file->text));
	if (!s->name_any_kernel)
		h = fnv1a(h, s->kernel_release, strlen(s->kernel_release));
	for (int i = 0; i < s->defines.len; i++)
		h = fnv1a(h, s->defines.data[i], strlen(s->defines.data[i]));
	return xformat("hwtap_%08llx", (unsigned long long)(h & 0xffffffff));
}

int run_back_end(Session *s)
{
	const char *name = s->module_name ? s->module_name : default_module_name(s);
	s->failed_pass = 3;
	StrBuf c = {0};
	if (translate(s, name, &c))
		return 1;
	if (s->pass == 3) {
		fputs(c.buf, stdout);
		return 0;
	}
	s->failed_pass = 4;
	if (!sign_setup(s) || !sign_check_rule(s) || (s->pass == 5 && !run_preflight(s)))
		return 1;
	char *ko = build_module(s, name, c.buf);
	if (!ko)
		return 1;
	if (s->pass == 4) {
		if (s->bundle && !(ko = bundle_add(s, ko, name)))
			return 1;
		puts(ko);
		return 0;
	}
	s->failed_pass = 5;
	s->exit_status = run_module(s, ko, name);
	return 0;
}
