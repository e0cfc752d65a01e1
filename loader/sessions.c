/* sessions.c - the hwtap sessions running on this machine, as hwtap-run -L lists them and
 * -A/-d find them: each module hwtap built has /proc/hwtap_NAME/{out,ctl}
 * (runtime/protocol.h), whose ctl says the session's state and counters as "KEY VALUE"
 * lines. */
#define _GNU_SOURCE
#include "loader.h"
#include "../runtime/protocol.h"

#include <ctype.h>
#include <stddef.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int session_name_ok(const char *name)
{
	size_t n = strlen(name);
	if (!n || n > SESSION_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_')
			return 0;
	return 1;
}

/* ctl's numeric keys and where SessionInfo keeps them. */
static const struct {
	const char *key;
	size_t offset;
} number_keys[] = {
	{"started", offsetof(SessionInfo, started)},
	{"buffer_kb", offsetof(SessionInfo, buffer_kb)},
	{"records", offsetof(SessionInfo, records)},
	{"overwritten", offsetof(SessionInfo, overwritten)},
	{"overwritten_before_reader", offsetof(SessionInfo, overwritten_before_reader)},
	{"dropped", offsetof(SessionInfo, dropped)},
	{"errors", offsetof(SessionInfo, errors)},
	{"skipped", offsetof(SessionInfo, skipped)},
	{"lost_commands", offsetof(SessionInfo, lost_commands)},
	{"read", offsetof(SessionInfo, read)},
};

/* KEY's VALUE into SI when KEY is one of number_keys; other keys are skipped. */
static void number_key(const char *key, SessionInfo *si, const char *value)
{
	for (size_t i = 0; i < sizeof(number_keys) / sizeof(number_keys[0]); i++)
		if (!strcmp(key, number_keys[i].key))
			*(long long *)((char *)si + number_keys[i].offset) = atoll(value);
}

/* "NAME VALUE" of a "counter" line into SI's counters, while there is room. */
static void counter_key(SessionInfo *si, const char *value)
{
	const char *v = strrchr(value, ' ');
	if (!v || si->ncounters == SESSION_COUNTERS_MAX)
		return;
	snprintf(si->counter[si->ncounters], sizeof(si->counter[0]), "%.*s", (int)(v - value),
		 value);
	si->counter_enabled[si->ncounters] = si->counter_running[si->ncounters] = -1;
	si->counter_value[si->ncounters++] = atoll(v + 1);
}

/* "ENABLED RUNNING NAME" of a "counter_time" line (NAME last: it may have spaces) into
 * the times of counter NAME. */
static void counter_time_key(SessionInfo *si, const char *value)
{
	long long enabled, running;
	int name = 0;
	if (sscanf(value, "%lld %lld %n", &enabled, &running, &name) != 2 || !name)
		return;
	for (int k = 0; k < si->ncounters; k++)
		if (!strcmp(si->counter[k], value + name)) {
			si->counter_enabled[k] = enabled;
			si->counter_running[k] = running;
		}
}

/* The share of its enabled time counter K was on the PMU, in percent; 100 when the
 * module does not say. */
static double counter_share(const SessionInfo *si, int k)
{
	long long en = si->counter_enabled[k], run = si->counter_running[k];
	return en > 0 && run >= 0 && run < en ? 100.0 * (double)run / (double)en : 100.0;
}

int session_read(const char *name, SessionInfo *si)
{
	char path[64 + SESSION_NAME_MAX], text[4096];
	memset(si, 0, sizeof(*si));
	snprintf(si->name, sizeof(si->name), "%s", name);
	snprintf(path, sizeof(path), "/proc/" HWTAP_PROC_PREFIX "%s/" HWTAP_PROC_CTL, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, text, sizeof(text) - 1);
	int err = errno;
	close(fd);
	if (n < 0) {
		errno = err;
		return -1;
	}
	text[n] = '\0';
	for (char *save, *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *value = strchr(line, ' ');
		if (!value)
			continue;
		*value++ = '\0';
		if (!strcmp(line, "state"))
			snprintf(si->state, sizeof(si->state), "%s", value);
		else if (!strcmp(line, "script"))
			snprintf(si->script, sizeof(si->script), "%s", value);
		else if (!strcmp(line, "protocol"))
			si->protocol = atoi(value);
		else if (!strcmp(line, "attached"))
			si->attached = atoi(value);
		else if (!strcmp(line, "counter"))
			counter_key(si, value);
		else if (!strcmp(line, "counter_time"))
			counter_time_key(si, value);
		else
			number_key(line, si, value);
	}
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const SessionInfo *)a)->name, ((const SessionInfo *)b)->name);
}

int session_list(SessionInfo **out, size_t *n)
{
	DIR *d = opendir("/proc");
	*out = NULL;
	*n = 0;
	if (!d)
		return -1;
	size_t cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		const char *name = e->d_name + strlen(HWTAP_PROC_PREFIX);
		if (strncmp(e->d_name, HWTAP_PROC_PREFIX, strlen(HWTAP_PROC_PREFIX)) ||
		    !session_name_ok(name))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 8;
			SessionInfo *grown = realloc(*out, cap * sizeof(**out));
			if (!grown) {
				closedir(d);
				return -1;
			}
			*out = grown;
		}
		if (!session_read(name, &(*out)[*n]))
			(*n)++;
	}
	closedir(d);
	if (*n)
		qsort(*out, *n, sizeof(**out), by_name);
	return 0;
}

/* S as a JSON string: the characters that need it escaped. */
static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void since(char *buf, size_t len, long long t)
{
	struct tm tm;
	time_t tt = t;
	if (!t || !gmtime_r(&tt, &tm))
		snprintf(buf, len, "-");
	else
		strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void session_print(FILE *f, const SessionInfo *s, size_t n, int json)
{
	char when[32];
	if (!json)
		fprintf(f, "%-24s %-20s %-8s %-20s %-8s %10s %10s %11s %8s %6s %7s %s\n",
			"SESSION", "SCRIPT", "STATE", "STARTED", "ATTACHED", "BUFFER_KB", "RECORDS",
			"OVERWRITTEN", "DROPPED", "ERRORS", "SKIPPED", "COUNTERS");
	for (size_t i = 0; i < n; i++) {
		since(when, sizeof(when), s[i].started);
		if (!json) {
			fprintf(f, "%-24s %-20s %-8s %-20s %-8s %10lld %10lld %11lld %8lld %6lld "
				"%7lld ", s[i].name, s[i].script[0] ? s[i].script : "-",
				s[i].state[0] ? s[i].state : "?", when,
				s[i].attached ? "yes" : "no", s[i].buffer_kb, s[i].records,
				s[i].overwritten, s[i].dropped, s[i].errors, s[i].skipped);
			for (int k = 0; k < s[i].ncounters; k++) {
				fprintf(f, "%s%s=%lld", k ? "," : "", s[i].counter[k],
					s[i].counter_value[k]);
				/* as perf stat: the count is scaled, this is its share */
				if (counter_share(&s[i], k) < 100.0)
					fprintf(f, "(%.2f%%)", counter_share(&s[i], k));
			}
			fprintf(f, "%s\n", s[i].ncounters ? "" : "-");
			continue;
		}
		fputs("{\"session\":", f);
		json_string(f, s[i].name);
		fputs(",\"script\":", f);
		json_string(f, s[i].script);
		fputs(",\"state\":", f);
		json_string(f, s[i].state);
		fputs(",\"started\":", f);
		json_string(f, when);
		fprintf(f, ",\"attached\":%s,\"buffer_kb\":%lld,\"records\":%lld,"
			"\"overwritten\":%lld,\"read\":%lld,\"dropped\":%lld,\"errors\":%lld,"
			"\"skipped\":%lld,\"lost_commands\":%lld,\"protocol\":%d,\"counters\":{",
			s[i].attached ? "true" : "false", s[i].buffer_kb, s[i].records,
			s[i].overwritten, s[i].read, s[i].dropped, s[i].errors, s[i].skipped,
			s[i].lost_commands, s[i].protocol);
		for (int k = 0; k < s[i].ncounters; k++) {
			fputs(k ? "," : "", f);
			json_string(f, s[i].counter[k]);
			fprintf(f, ":%lld", s[i].counter_value[k]);
		}
		fputs("},\"counter_times\":{", f);
		for (int k = 0, n = 0; k < s[i].ncounters; k++) {
			if (s[i].counter_enabled[k] < 0)
				continue;
			fputs(n++ ? "," : "", f);
			json_string(f, s[i].counter[k]);
			fprintf(f, ":{\"enabled_ns\":%lld,\"running_ns\":%lld}",
				s[i].counter_enabled[k], s[i].counter_running[k]);
		}
		fputs("}}\n", f);
	}
}
