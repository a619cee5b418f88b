// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Histograms in the style of the seed tools (bpftrace's hist()). */
#include <stdbool.h>
#include <string.h>

#include "stats/format/hist.h"
#include "lib/names.h"
#include "stats/report.h"

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
	fprintf(out, "    %-20s %12s  distribution\n", unit, "count");
	for (g = first; g <= last; g++) {
		unsigned long long low = g ? 1ULL << (g - 1) : 0, high = 1ULL << g;

		fmt_bound(lo, sizeof(lo), low);
		if (clamped && g == last)
			snprintf(range, sizeof(range), "[%s, ...)", lo);
		else {
			fmt_bound(hi, sizeof(hi), high);
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

void ps_render_hist(FILE *out, const struct ps_report *r, int n)
{
	struct ps_qstats s;
	unsigned int q;
	int i, h;

	for (i = 0; i < n; i++) {
		const struct ps_snapshot *c = r[i].cur;

		ps_render_echo_hist(out, c);
		ps_render_d2s_hist(out, c);
		ps_render_txlat_hist(out, c);

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
					fprintf(out,
						"\n%s %s %s, other (queue unknown or >= %u):\n",
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
					ps_print_hist(out, s.segs_hist, PS_SEGS_BUCKETS,
						      "segments");
				}
			}
		}
	}
}
