/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Golden files: a rendering must equal, byte for byte, its file in tests/golden/.
 * PS_GOLDEN_UPDATE=1 rewrites the files instead (then review the diff before committing). */
#ifndef PATHSCOPE_TESTS_LIB_GOLDEN_H
#define PATHSCOPE_TESTS_LIB_GOLDEN_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/check.h"

#ifndef PS_GOLDEN_DIR
#define PS_GOLDEN_DIR "tests/golden"
#endif

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		if (n + 4096 > cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			if (!buf)
				break;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got);
	fclose(f);
	*len = n;
	return buf;
}

/* The first line where a and b differ, for the failure message. */
static int first_diff_line(const char *a, size_t na, const char *b, size_t nb)
{
	size_t i;
	int line = 1;

	for (i = 0; i < na && i < nb && a[i] == b[i]; i++)
		line += a[i] == '\n';
	return line;
}

static void golden(const char *name, const char *text, size_t len)
{
	char path[256], msg[400];
	size_t glen = 0;
	char *want;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", PS_GOLDEN_DIR, name);
	if (getenv("PS_GOLDEN_UPDATE")) {
		f = fopen(path, "wb");
		check_report(f && fwrite(text, 1, len, f) == len && fclose(f) == 0, name,
			     "cannot write %s: %s", path, strerror(errno));
		return;
	}
	want = slurp(path, &glen);
	if (!want) {
		check_report(0, name, "cannot read %s (PS_GOLDEN_UPDATE=1 writes it)", path);
		return;
	}
	snprintf(msg, sizeof(msg), "differs from %s from line %d (got %zu bytes, want %zu)", path,
		 first_diff_line(text, len, want, glen), len, glen);
	check_report(len == glen && memcmp(text, want, len) == 0, name, "%s", msg);
	free(want);
}

#endif /* PATHSCOPE_TESTS_LIB_GOLDEN_H */
