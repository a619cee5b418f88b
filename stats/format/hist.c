// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "stats/format/hist.h"

#include <math.h>

#include "pathscope/hist.h"

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
