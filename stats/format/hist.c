// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Percentiles and totals from log-linear buckets, and the tables' bar histogram (hist.h). */
#include "stats/format/hist.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "pathscope/hist.h"
#include "stats/format/duration.h"

uint64_t ps_hist_count(const __u64 *buckets, unsigned int n)
{
	uint64_t total = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		total += buckets[i];
	return total;
}

static uint64_t bucket_mid(unsigned int b)
{
	uint64_t lo = ps_hist_bucket_low(b), hi = ps_hist_bucket_high(b);

	return lo + (hi - lo - 1) / 2;
}

uint64_t ps_hist_percentile(const __u64 *buckets, unsigned int n, double pct)
{
	uint64_t total = ps_hist_count(buckets, n), rank, seen = 0;
	unsigned int i;

	if (!total)
		return 0;
	rank = (uint64_t)ceil(pct / 100.0 * (double)total);
	if (rank < 1)
		rank = 1;
	for (i = 0; i < n; i++) {
		seen += buckets[i];
		if (seen >= rank)
			return bucket_mid(i);
	}
	return bucket_mid(n - 1);
}

uint64_t ps_hist_max(const __u64 *buckets, unsigned int n)
{
	unsigned int i = n;

	while (i > 0 && !buckets[i - 1])
		i--;
	return i ? ps_hist_bucket_high(i - 1) - 1 : 0;
}

#define BAR_WIDTH 40

/* 1536 -> "1536", 2048 -> "2K", 1048576 -> "1M": suffix only when exact. */
static void fmt_bound(char *buf, size_t len, unsigned long long v)
{
	if (v && v % (1ULL << 20) == 0)
		snprintf(buf, len, "%lluM", v >> 20);
	else if (v && v % 1024 == 0)
		snprintf(buf, len, "%lluK", v >> 10);
	else
		snprintf(buf, len, "%llu", v);
}

/* A bound in ns in human units, three digits: 512 -> "512ns", 1024 ->
 * "1.02us", 1048576 -> "1.05ms". (The groups are powers of two of ns, which
 * no decimal unit divides: the digits say where each edge lies.) */
static void fmt_time_bound(char *buf, size_t len, unsigned long long ns)
{
	ps_fmt_duration(buf, len, ns, true);
}

/* Power-of-two group of a value, as the seed tools print: 0 -> [0, 1),
 * 1 -> [1, 2), 2 -> [2, 4), ... The log-linear buckets nest in them. */
static unsigned int pow2_group(unsigned long long v)
{
	return v ? ps_msb64(v) + 1 : 0;
}

void ps_print_hist(FILE *out, const __u64 *buckets, unsigned int n, const char *unit)
{
	__u64 groups[66] = {}, max = 0;
	unsigned int first = 66, last = 0, g, i, w;
	bool clamped = buckets[n - 1] != 0;
	char lo[24], hi[24], range[64], bar[BAR_WIDTH + 1];
	bool ns = strcmp(unit, "ns") == 0;
	void (*bound)(char *, size_t, unsigned long long) = ns ? fmt_time_bound : fmt_bound;

	for (i = 0; i < n; i++) {
		if (!buckets[i])
			continue;
		g = pow2_group(ps_hist_bucket_low(i));
		groups[g] += buckets[i];
		if (g < first)
			first = g;
		if (g > last)
			last = g;
	}
	if (first == 66) {
		fprintf(out, "    (no samples)\n");
		return;
	}
	for (g = first; g <= last; g++)
		if (groups[g] > max)
			max = groups[g];
	fprintf(out, "    %-20s %12s  distribution\n", ns ? "latency" : unit, "count");
	for (g = first; g <= last; g++) {
		unsigned long long low = g ? 1ULL << (g - 1) : 0, high = 1ULL << g;

		bound(lo, sizeof(lo), low);
		if (clamped && g == last)
			snprintf(range, sizeof(range), "[%s, ...)", lo);
		else {
			bound(hi, sizeof(hi), high);
			snprintf(range, sizeof(range), "[%s, %s)", lo, hi);
		}
		w = (unsigned int)(groups[g] * BAR_WIDTH / max);
		if (groups[g] && !w)
			w = 1;
		memset(bar, '@', w);
		memset(bar + w, ' ', BAR_WIDTH - w);
		bar[BAR_WIDTH] = '\0';
		fprintf(out, "    %-20s %12llu |%s|\n", range, (unsigned long long)groups[g], bar);
	}
}
