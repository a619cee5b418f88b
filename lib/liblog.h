/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* libbpf's and libxdp's messages: quiet unless PATHSCOPE_DEBUG is set, but kept,
 * so that a failed load can say why in its one error line (the verifier's
 * complaint, or libbpf's) instead of only "Invalid argument". */
#ifndef PATHSCOPE_LIB_LIBLOG_H
#define PATHSCOPE_LIB_LIBLOG_H

#include <stddef.h>

/* Route libbpf's and libxdp's messages here (once, at start). */
void ps_quiet_libs(void);

/* Forget the messages kept so far: call before a load. */
void ps_lib_log_reset(void);

/* Why the last load failed, from the messages since the reset: the last
 * line of the verifier's log that is not a statistic, else libbpf's or
 * libxdp's first warning, without its "libbpf: " prefix; "" when there is
 * none. The returned string lives until the next reset or message. */
const char *ps_lib_log_reason(void);

/* Print "pathscope: cannot load WHAT: <strerror(-err)>: <the reason>", one
 * line, and return -1. */
int ps_load_error(const char *what, int err);

/* The same for tests: the reason in the text of a captured log. Writes it,
 * truncated to fit, into out (n bytes) and returns out. */
char *ps_lib_log_reason_of(const char *log, char *out, size_t n);

#endif /* PATHSCOPE_LIB_LIBLOG_H */
