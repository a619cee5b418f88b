// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Table cells every family uses: numbers, rates, latencies, queue labels (table.h). */
#include "stats/format/table.h"

#include <stdio.h>

#include "stats/format/duration.h"
#include "stats/format/hist.h"

void ps_fmt_ns(char *buf, size_t len, __u64 ns, __u64 count)
{
	if (!count)
		snprintf(buf, len, "-");
	else
		ps_fmt_duration(buf, len, ns, false);
}

void ps_fmt_lat(char *buf, size_t len, const __u64 *lat_hist, double pct)
{
	__u64 n = ps_hist_count(lat_hist, PS_LAT_BUCKETS);
	/* Percentile p has one sample above it in every 100 / (100 - p): p99
	 * needs 100, p99.9 1000. Fewer, and it is the maximum under its name. */
	__u64 need = pct > 50 && pct < 100 ? (__u64)(100.0 / (100.0 - pct) + 0.5) : 1;

	if (pct != PS_PCT_MAX && n && n < need) {
		snprintf(buf, len, "n<%llu", (unsigned long long)need);
		return;
	}
	ps_fmt_ns(buf, len,
		  pct == PS_PCT_MAX ? ps_hist_max(lat_hist, PS_LAT_BUCKETS)
				    : ps_hist_percentile(lat_hist, PS_LAT_BUCKETS, pct),
		  n);
}

void ps_fmt_si(char *buf, size_t len, double v, const char *unit)
{
	static const char *const pre[] = { "", "k", "M", "G", "T" };
	int i = 0;

	while (v >= 1000 && i < 4) {
		v /= 1000;
		i++;
	}
	snprintf(buf, len, i ? "%.2f%s%s" : "%.0f%s%s", v, pre[i], unit);
}

void ps_fmt_u64(char *buf, size_t len, __u64 v, bool have)
{
	if (have)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else
		snprintf(buf, len, "-");
}

void ps_queue_label(const struct ps_snapshot *s, unsigned int q, char *buf, size_t len)
{
	if (q == s->nslots - 1)
		snprintf(buf, len, "other");
	else
		snprintf(buf, len, "%u", q);
}
