// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Histograms in the style of the seed tools (bpftrace's hist()). */
#include <string.h>

#include "hist_stats.h"
#include "names.h"
#include "report.h"

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

void ps_print_hist(FILE *out, const __u64 *buckets, unsigned int n, const char *unit)
{
	unsigned int first = n, last = 0, i, w;
	__u64 max = 0;
	char lo[24], hi[24], range[64], bar[BAR_WIDTH + 1];

	for (i = 0; i < n; i++) {
		if (!buckets[i])
			continue;
		if (first == n)
			first = i;
		last = i;
		if (buckets[i] > max)
			max = buckets[i];
	}
	if (first == n) {
		fprintf(out, "    (no samples)\n");
		return;
	}
	fprintf(out, "    %-20s %12s  distribution\n", unit, "count");
	for (i = first; i <= last; i++) {
		fmt_bound(lo, sizeof(lo), ps_hist_bucket_low(i));
		if (i == n - 1)
			snprintf(range, sizeof(range), "[%s, ...)", lo);
		else {
			fmt_bound(hi, sizeof(hi), ps_hist_bucket_high(i));
			snprintf(range, sizeof(range), "[%s, %s)", lo, hi);
		}
		w = (unsigned int)(buckets[i] * BAR_WIDTH / max);
		if (buckets[i] && !w)
			w = 1;
		memset(bar, '@', w);
		memset(bar + w, ' ', BAR_WIDTH - w);
		bar[BAR_WIDTH] = '\0';
		fprintf(out, "    %-20s %12llu |%s|\n", range, (unsigned long long)buckets[i], bar);
	}
}

void ps_render_hist(FILE *out, const struct ps_report *r, int n)
{
	struct ps_qstats s;
	unsigned int q;
	int i, h;

	for (i = 0; i < n; i++) {
		const struct ps_snapshot *c = r[i].cur;

		for (h = 0; h < PS_HOOK_COUNT; h++) {
			if (!c->hook[h])
				continue;
			for (q = 0; q <= c->nslots; q++) {
				ps_report_total(&r[i], h, q, &s);
				if (!s.packets)
					continue;
				if (q == c->nslots)
					fprintf(out, "\n%s %s %s, all queues:\n", c->meta.ifname,
						ps_hook_names[h], ps_hook_dirs[h]);
				else if (q == c->nslots - 1)
					fprintf(out, "\n%s %s %s, other queues (>= %u):\n",
						c->meta.ifname, ps_hook_names[h], ps_hook_dirs[h],
						c->meta.nqueues);
				else
					fprintf(out, "\n%s %s %s, queue %u:\n", c->meta.ifname,
						ps_hook_names[h], ps_hook_dirs[h], q);
				if (c->meta.features & PS_F_SIZES) {
					fprintf(out, "  %s size (bytes):\n",
						h == PS_HOOK_XDP ? "frame" : "skb");
					ps_print_hist(out, s.size_hist, PS_SIZE_BUCKETS, "bytes");
				}
				if (h != PS_HOOK_XDP && (c->meta.features & PS_F_GRO)) {
					fprintf(out, "  %s segments per skb:\n",
						h == PS_HOOK_TC_INGRESS ? "GRO" : "GSO");
					ps_print_hist(out, s.segs_hist, PS_SEGS_BUCKETS, "segments");
				}
			}
		}
	}
}
