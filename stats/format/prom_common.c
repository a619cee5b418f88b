// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What both Prometheus expositions share (see prom_common.h). */
#include "stats/format/prom_common.h"

#include <stdio.h>
#include <string.h>

#include "pathscope/hist.h"

void ps_lbl_reset(struct ps_lbl *l)
{
	l->n = 0;
	l->s[0] = '\0';
	l->rn = 0;
	l->npairs = 0;
}

/* The raw pair, whole or not at all. */
static void lbl_raw(struct ps_lbl *l, const char *key, const char *val)
{
	size_t kl = strlen(key) + 1, vl = strlen(val) + 1;

	if (l->rn + kl + vl > sizeof(l->raw))
		return;
	memcpy(l->raw + l->rn, key, kl);
	memcpy(l->raw + l->rn + kl, val, vl);
	l->rn += kl + vl;
	l->npairs++;
}

static void lbl_put(struct ps_lbl *l, char c)
{
	if (l->n + 1 < sizeof(l->s)) {
		l->s[l->n++] = c;
		l->s[l->n] = '\0';
	}
}

void ps_lbl_add(struct ps_lbl *l, const char *key, const char *val)
{
	lbl_raw(l, key, val);
	if (l->n)
		lbl_put(l, ',');
	for (; *key; key++)
		lbl_put(l, *key);
	lbl_put(l, '=');
	lbl_put(l, '"');
	for (; *val; val++) {
		if (*val == '\\' || *val == '"') {
			lbl_put(l, '\\');
			lbl_put(l, *val);
		} else if (*val == '\n') {
			lbl_put(l, '\\');
			lbl_put(l, 'n');
		} else {
			lbl_put(l, *val);
		}
	}
	lbl_put(l, '"');
}

void ps_lbl_addu(struct ps_lbl *l, const char *key, unsigned long long v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%llu", v);
	ps_lbl_add(l, key, buf);
}

unsigned int ps_prom_cumulative(const __u64 *b, unsigned int n, const struct ps_prom_edges *e,
				ps_u128 cum[PS_PROM_MAX_BUCKETS])
{
	unsigned int i = 0, k, j = 0, idx;
	ps_u128 c = 0;

	for (k = e->k0; k <= e->k1; k++) {
		idx = ps_hist_bucket(1ULL << k, n);
		while (i < idx)
			c += b[i++];
		cum[j++] = c;
	}
	while (i < n)
		c += b[i++];
	cum[j++] = c;
	return j;
}
