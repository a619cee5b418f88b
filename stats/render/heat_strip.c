// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The heat strip (stats --heatmap STAGE): one latency stage's histogram of the report's
 * window, a row per queue, a column per bucket, each cell shaded on a log scale: "which
 * queue, which latency?" in a shell (pathscope heatmap draws the same over time). */
#include "stats/render/render.h"

#include <math.h>
#include <string.h>

#include "pathscope/hist.h"
#include "stats/format/hist.h"
#include "stats/format/table.h"
#include "stats/families/stages.h"

#define STRIP_COLS 96 /* cells at most: 120 less the queue and count columns */

static const char shades[] = " .:-=+*#%@"; /* 0, then 9 levels up to the maximum */

/* The window's histogram of stage st on queue slot q. */
static void window_hist(const struct ps_report *r, const struct ps_stage *st, unsigned int q,
			__u64 *out)
{
	static __u64 before[PS_LAT_BUCKETS];
	unsigned int b;

	st->hist(r->cur, q, out);
	if (!r->prev)
		return;
	st->hist(r->prev, q, before);
	for (b = 0; b < PS_LAT_BUCKETS; b++)
		out[b] = out[b] >= before[b] ? out[b] - before[b] : out[b];
}

static char shade(__u64 c, __u64 max)
{
	int level;

	if (!c)
		return shades[0];
	level = max > 1 ? 1 + (int)(8.0 * log((double)c) / log((double)max)) : 9;
	return shades[level > 9 ? 9 : level];
}

struct strip {
	unsigned int lo, hi; /* bucket range shown, octave-aligned */
	unsigned int per;    /* buckets per column */
	__u64 max;	     /* the largest column count */
};

/* Column c's count: the sum of its buckets. */
static __u64 column(const struct strip *s, const __u64 *h, unsigned int c)
{
	unsigned int b;
	__u64 sum = 0;

	for (b = s->lo + c * s->per; b < s->lo + (c + 1) * s->per && b < PS_LAT_BUCKETS; b++)
		sum += h[b];
	return sum;
}

static unsigned int ncolumns(const struct strip *s)
{
	return (s->hi - s->lo + 1 + s->per - 1) / s->per;
}

/* The axis line: a bucket bound's value at the column where it begins, where
 * there is room. */
static void axis(FILE *out, const struct strip *s)
{
	char line[STRIP_COLS + 16], v[16];
	unsigned int c, n = ncolumns(s), next = 0;
	size_t len;

	memset(line, ' ', sizeof(line));
	for (c = 0; c < n; c++) {
		unsigned int b = s->lo + c * s->per;

		if (c < next || (b >= 2 * PS_HIST_SUB && b % PS_HIST_SUB))
			continue;
		ps_fmt_duration(v, sizeof(v), ps_hist_bucket_low(b), true);
		len = strlen(v);
		if (c + len > n + 6)
			break;
		memcpy(line + c, v, len);
		next = c + (unsigned int)len + 1;
	}
	for (len = sizeof(line) - 1; len && line[len - 1] == ' '; len--)
		;
	line[len] = '\0';
	fprintf(out, "%-6s %9s |%s\n", "QUEUE", "SAMPLES", line);
}

static void row(FILE *out, const struct strip *s, const char *label, const __u64 *h)
{
	unsigned int c, n = ncolumns(s);

	fprintf(out, "%-6s %9llu |", label, (unsigned long long)ps_hist_count(h, PS_LAT_BUCKETS));
	for (c = 0; c < n; c++)
		fputc(shade(column(s, h, c), s->max), out);
	fputs("|\n", out);
}

static void one_iface(FILE *out, const struct ps_report *r, const struct ps_stage *st)
{
	static __u64 h[PS_LAT_BUCKETS];
	const struct ps_snapshot *s = r->cur;
	struct strip strip = { .per = 1 };
	unsigned int q, b, c, hidden = 0;
	bool any = false;
	char label[16], lo[16], hi[16];

	fprintf(out, "%s (ifindex %u): %s (%s), %s, over %.2f s%s\n", s->meta.ifname,
		s->meta.ifindex, st->words, st->where, st->tx ? "per TX queue" : "per RX queue",
		r->window_s, r->prev ? "" : " (since attach)");
	if (!ps_stage_on(st, s)) {
		fprintf(out, "  %s\n",
			(s->meta.features & st->feature) && st->on(s)
			    ? "n/a on this device"
			    : "off (its feature is not attached)");
		return;
	}
	/* The buckets with a count in any queue, widened to whole powers of two. */
	window_hist(r, st, s->nslots, h);
	for (b = 0; b < PS_LAT_BUCKETS; b++)
		if (h[b]) {
			if (!any)
				strip.lo = b;
			strip.hi = b;
			any = true;
		}
	if (!any) {
		fprintf(out, "  no samples\n");
		return;
	}
	if (strip.lo >= 2 * PS_HIST_SUB)
		strip.lo -= strip.lo % PS_HIST_SUB;
	else
		strip.lo = 0;
	strip.hi |= PS_HIST_SUB - 1;
	if (strip.hi >= PS_LAT_BUCKETS)
		strip.hi = PS_LAT_BUCKETS - 1;
	while (ncolumns(&strip) > STRIP_COLS)
		strip.per *= 2;
	/* The shared scale: the largest column of the all-queues row bounds
	 * every queue's. */
	for (c = 0; c < ncolumns(&strip); c++)
		if (column(&strip, h, c) > strip.max)
			strip.max = column(&strip, h, c);
	ps_fmt_duration(lo, sizeof(lo), ps_hist_bucket_low(strip.lo), true);
	ps_fmt_duration(hi, sizeof(hi), ps_hist_bucket_high(strip.hi), true);
	fprintf(out,
		"  %s to %s, %u bucket%s a column; shades by count, log scale: ' ' none, '.' 1 "
		"... '@' %llu\n",
		lo, hi, strip.per, strip.per == 1 ? "" : "s", (unsigned long long)strip.max);
	axis(out, &strip);
	for (q = 0; q < s->nslots; q++) {
		window_hist(r, st, q, h);
		if (!ps_hist_count(h, PS_LAT_BUCKETS)) {
			hidden++;
			continue;
		}
		ps_queue_label(s, q, label, sizeof(label));
		row(out, &strip, label, h);
	}
	window_hist(r, st, s->nslots, h);
	row(out, &strip, "all", h);
	if (hidden)
		fprintf(out, "(not shown: %u queue%s without samples)\n", hidden,
			hidden == 1 ? "" : "s");
}

/* A row per queue with samples and one for all queues, a column per bucket (8,
 * 4, 2 or 1 to a power of two, so that the strip stays within 120 columns),
 * each cell shaded by its count on a log scale shared by every row. */
void ps_render_heat(FILE *out, const struct ps_report *r, int n, const struct ps_stage *st)
{
	int i;

	for (i = 0; i < n; i++) {
		if (i)
			fputc('\n', out);
		one_iface(out, &r[i], st);
	}
	fflush(out);
}
