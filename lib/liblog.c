// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libbpf's and libxdp's messages, kept for the error line (liblog.h). */
#include "lib/liblog.h"

#include <bpf/libbpf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xdp/libxdp.h>

#include "lib/util.h"

/* Enough for the tail of a verifier log: libbpf hands the whole log over in
 * one message; what does not fit is its beginning, which is kept. */
static char lib_log[65536];
static size_t lib_log_len;
static char reason[512];

static void keep(const char *fmt, va_list ap)
{
	int n;

	if (lib_log_len >= sizeof(lib_log) - 1)
		return;
	n = vsnprintf(lib_log + lib_log_len, sizeof(lib_log) - lib_log_len, fmt, ap);
	if (n > 0)
		lib_log_len += (size_t)n < sizeof(lib_log) - lib_log_len
				   ? (size_t)n
				   : sizeof(lib_log) - 1 - lib_log_len;
}

static int print_lib(bool debug_level, const char *fmt, va_list ap)
{
	va_list copy;

	if (!debug_level) {
		va_copy(copy, ap);
		keep(fmt, copy);
		va_end(copy);
	}
	if (!getenv("PATHSCOPE_DEBUG"))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return print_lib(level == LIBBPF_DEBUG, fmt, ap);
}

static int print_libxdp(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	return print_lib(level == LIBXDP_DEBUG, fmt, ap);
}

void ps_quiet_libs(void)
{
	libbpf_set_print(print_libbpf);
	libxdp_set_print(print_libxdp);
}

void ps_lib_log_reset(void)
{
	lib_log_len = 0;
	lib_log[0] = '\0';
}

/* Copy the line [s, e) into out without the library's prefix. */
static void take_line(const char *s, const char *e, char *out, size_t n)
{
	static const char *const prefixes[] = { "libbpf: ", "libxdp: " };
	size_t i, len;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		len = strlen(prefixes[i]);
		if ((size_t)(e - s) >= len && strncmp(s, prefixes[i], len) == 0)
			s += len;
	}
	len = (size_t)(e - s) < n - 1 ? (size_t)(e - s) : n - 1;
	memcpy(out, s, len);
	out[len] = '\0';
}

/* Lines the verifier adds after its complaint. */
static bool is_statistic(const char *s, const char *e)
{
	static const char *const stats[] = { "processed ",  "verification time",
					     "stack depth", "max_states_per_insn",
					     "peak_states", "mark_read" };
	size_t i, len;

	if (s == e)
		return true;
	for (i = 0; i < sizeof(stats) / sizeof(stats[0]); i++) {
		len = strlen(stats[i]);
		if ((size_t)(e - s) >= len && strncmp(s, stats[i], len) == 0)
			return true;
	}
	return false;
}

char *ps_lib_log_reason_of(const char *log, char *out, size_t n)
{
	const char *begin = strstr(log, "-- BEGIN PROG LOAD LOG --"), *end, *s, *e;
	const char *best_s = NULL, *best_e = NULL;

	out[0] = '\0';
	if (begin) {
		begin = strchr(begin, '\n');
		end = begin ? strstr(begin, "-- END PROG LOAD LOG --") : NULL;
		for (s = begin ? begin + 1 : NULL; s && end && s < end; s = e + 1) {
			e = memchr(s, '\n', (size_t)(end - s));
			if (!e)
				e = end;
			if (!is_statistic(s, e)) {
				best_s = s;
				best_e = e;
			}
		}
	}
	if (!best_s) { /* no verifier log: libbpf's or libxdp's first warning */
		for (s = log; *s; s = *e ? e + 1 : e) {
			e = s + strcspn(s, "\n");
			if (e > s) {
				best_s = s;
				best_e = e;
				break;
			}
		}
	}
	if (best_s)
		take_line(best_s, best_e, out, n);
	return out;
}

const char *ps_lib_log_reason(void)
{
	return ps_lib_log_reason_of(lib_log, reason, sizeof(reason));
}

int ps_load_error(const char *what, int err)
{
	const char *why = ps_lib_log_reason();

	return ps_error("cannot load %s: %s%s%s (PATHSCOPE_DEBUG=1 shows libbpf's log)", what,
			strerror(err < 0 ? -err : err), *why ? ": " : "", why);
}
