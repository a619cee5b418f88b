/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A minimal test reporter shared by the C tests: each check prints one line that
 * tests/run.sh counts; a test program exits 1 when any check failed. */
#ifndef PATHSCOPE_TESTS_LIB_CHECK_H
#define PATHSCOPE_TESTS_LIB_CHECK_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The lines:
 *   ok - NAME
 *   not ok - NAME: WHY
 *   skip - NAME: WHY      (only outside CI; in CI a skip is a failure, but
 *                          for a facility this kernel lacks, see below) */
static int check_failures;

/* Why the next check cannot pass on this kernel: a facility of a later Linux
 * that an independent probe found missing (never pathscope's own code).
 * Set by check_mark_unsupported() right before the check; the check is then
 * reported as a skip naming it, in CI too, and the mark is gone. */
static char check_unsupported_why[192];

static inline void check_mark_unsupported(const char *why)
{
	snprintf(check_unsupported_why, sizeof(check_unsupported_why), "%s", why);
}

static inline void check_report(int ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (!ok && check_unsupported_why[0]) {
		printf("skip - %s: this kernel cannot run it: %s\n", name, check_unsupported_why);
		check_unsupported_why[0] = '\0';
		fflush(stdout);
		return;
	}
	check_unsupported_why[0] = '\0';
	if (ok) {
		printf("ok - %s\n", name);
	} else {
		check_failures++;
		printf("not ok - %s: ", name);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
	}
	fflush(stdout);
}

/* In CI: CI is set to anything but "", "0" or "false" (any case), as
 * tests/integration/lib.sh's ps_in_ci. */
static inline int check_in_ci(void)
{
	const char *ci = getenv("CI");

	return ci && *ci && strcmp(ci, "0") != 0 && strcasecmp(ci, "false") != 0;
}

/* Skip outside CI; fail in CI, where every test must be able to run. */
static inline void check_skip(const char *name, const char *why)
{
	if (check_in_ci()) {
		check_failures++;
		printf("not ok - %s: cannot run in CI: %s\n", name, why);
	} else {
		printf("skip - %s: %s\n", name, why);
	}
	fflush(stdout);
}

#define CHECK_EQ_U64(name, got, want)                                                     \
	do {                                                                              \
		uint64_t g_ = (uint64_t)(got), w_ = (uint64_t)(want);                     \
		check_report(g_ == w_, (name), "got %" PRIu64 ", want %" PRIu64, g_, w_); \
	} while (0)

#define CHECK_TRUE(name, cond) check_report(!!(cond), (name), "%s is false", #cond)

#define CHECK_STR(name, got, want)                                                        \
	do {                                                                              \
		const char *g_ = (got), *w_ = (want);                                     \
		check_report(strcmp(g_, w_) == 0, (name), "got '%s', want '%s'", g_, w_); \
	} while (0)

static inline int check_exit_code(void)
{
	return check_failures ? 1 : 0;
}

#endif /* PATHSCOPE_TESTS_LIB_CHECK_H */
