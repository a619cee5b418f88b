// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Heatmaps and the latency budget as SVG (heatmap_svg.h). */
#include "stats/render/heatmap_svg.h"

#include <math.h>
#include <string.h>

#include "pathscope/hist.h"
#include "stats/format/hist.h"
#include "stats/format/table.h"

/* ---- shared pieces ------------------------------------------------------------ */

/* s with XML's special characters escaped. */
static void xml_text(FILE *out, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			fputc(*s, out);
		}
}

static void svg_open(FILE *out, double w, double h)
{
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" font-family=\"DejaVu Sans, sans-serif\" "
		"font-size=\"11\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
		w, h, w, h);
}

/* A text element at (x, y); anchor: start, middle or end. */
static void text_at(FILE *out, double x, double y, const char *anchor, const char *s)
{
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, y, anchor);
	xml_text(out, s);
	fputs("</text>\n", out);
}

/* The label of a panel: "RX queue 0", "TX queue other", "all queues". */
static void panel_name(const struct ps_heat *h, unsigned int p, char *buf, size_t len)
{
	if (!strcmp(h->panel[p], "all"))
		snprintf(buf, len, "all queues");
	else
		snprintf(buf, len, "%s queue %s", h->stage->tx ? "TX" : "RX", h->panel[p]);
}

/* The smallest step of 1, 2 or 5 times a power of ten that gives at most
 * max_ticks ticks over span. */
static double nice_step(double span, int max_ticks)
{
	static const double mult[] = { 1, 2, 5 };
	double p;
	int i;

	if (span <= 0)
		return 1;
	p = pow(10, floor(log10(span / max_ticks)));
	for (;; p *= 10)
		for (i = 0; i < 3; i++)
			if (span / (mult[i] * p) <= max_ticks)
				return mult[i] * p;
}

/* ---- the heatmap --------------------------------------------------------------- */

#define HM_LEFT	   78  /* room for the latency labels */
#define HM_TOP	   64  /* the title */
#define HM_W	   260 /* one panel's plot */
#define HM_H	   200
#define HM_GAP_X   92
#define HM_GAP_Y   64
#define HM_PER_ROW 4

/* Sequential colour (YlOrRd) of a count, on a log scale from 1 to max. */
static void heat_colour(uint64_t count, uint64_t max, char *buf, size_t len)
{
	static const unsigned char stops[][3] = {
		{ 0xff, 0xff, 0xb2 }, { 0xfe, 0xcc, 0x5c }, { 0xfd, 0x8d, 0x3c },
		{ 0xf0, 0x3b, 0x20 }, { 0xbd, 0x00, 0x26 },
	};
	const int n = sizeof(stops) / sizeof(stops[0]);
	double f = max > 1 ? log((double)count) / log((double)max) : 1, at;
	int i, c[3], k;

	if (f < 0)
		f = 0;
	if (f > 1)
		f = 1;
	at = f * (n - 1);
	i = (int)at;
	if (i >= n - 1)
		i = n - 2;
	for (k = 0; k < 3; k++)
		c[k] = (int)lround(stops[i][k] + (stops[i + 1][k] - stops[i][k]) * (at - i));
	snprintf(buf, len, "#%02x%02x%02x", c[0], c[1], c[2]);
}

struct heat_axes {
	unsigned int lo, hi; /* bucket rows drawn */
	double rowh;
	double span; /* seconds on x */
	uint64_t max;
	bool any;
};

static double heat_x(const struct heat_axes *a, double x0, double t)
{
	return x0 + HM_W * (a->span > 0 ? t / a->span : 0);
}

/* y of the bottom edge of bucket row b. */
static double heat_y(const struct heat_axes *a, double y0, unsigned int b)
{
	return y0 + HM_H - (b - a->lo) * a->rowh;
}

static void heat_y_tick(FILE *out, const struct heat_axes *a, double x0, double y0, unsigned int b)
{
	char v[24];

	ps_fmt_duration(v, sizeof(v), ps_hist_bucket_low(b), true);
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.2f\" x2=\"%.1f\" y2=\"%.2f\" stroke=\"#444\"/>\n",
		x0 - 4, heat_y(a, y0, b), x0, heat_y(a, y0, b));
	text_at(out, x0 - 6, heat_y(a, y0, b) + 4, "end", v);
}

/* The bounds of the rows drawn, and powers of two between them where there
 * is room (labels at least 12 px apart). */
static void heat_y_axis(FILE *out, const struct heat_axes *a, double x0, double y0)
{
	double last = heat_y(a, y0, a->lo), top = heat_y(a, y0, a->hi + 1);
	unsigned int b;

	heat_y_tick(out, a, x0, y0, a->lo);
	heat_y_tick(out, a, x0, y0, a->hi + 1);
	for (b = a->lo + 1; b <= a->hi; b++) {
		if (b < 2 * PS_HIST_SUB ? false : b % PS_HIST_SUB)
			continue;
		if (last - heat_y(a, y0, b) < 12 || heat_y(a, y0, b) - top < 12)
			continue;
		heat_y_tick(out, a, x0, y0, b);
		last = heat_y(a, y0, b);
	}
}

static void heat_x_axis(FILE *out, const struct heat_axes *a, double x0, double y0)
{
	double step = nice_step(a->span, 5), t;
	char v[32];

	for (t = 0; t <= a->span * (1 + 1e-9); t += step) {
		double x = heat_x(a, x0, t);

		fprintf(out,
			"<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#444\"/>\n",
			x, y0 + HM_H, x, y0 + HM_H + 4);
		snprintf(v, sizeof(v), "%gs", t);
		text_at(out, x, y0 + HM_H + 15, "middle", v);
	}
}

static uint64_t panel_samples(const struct ps_heat *h, unsigned int p)
{
	uint64_t total = 0;
	unsigned int t, b;

	for (t = 0; t < h->nt; t++)
		for (b = 0; ps_heat_cell(h, t, p) && b < PS_LAT_BUCKETS; b++)
			total += ps_heat_cell(h, t, p)[b];
	return total;
}

static void heat_panel(FILE *out, const struct ps_heat *h, const struct heat_axes *a,
		       unsigned int p, double x0, double y0)
{
	char name[48], label[96], colour[8], lo[24], hi[24];
	uint64_t total = panel_samples(h, p);
	unsigned int t, b;

	panel_name(h, p, name, sizeof(name));
	snprintf(label, sizeof(label), "%s: %llu samples", name, (unsigned long long)total);
	fprintf(out, "<g class=\"panel\" data-queue=\"");
	xml_text(out, h->panel[p]);
	fprintf(out, "\" data-samples=\"%llu\">\n", (unsigned long long)total);
	fputs("<text font-weight=\"bold\" ", out);
	fprintf(out, "x=\"%.1f\" y=\"%.1f\">", x0, y0 - 8);
	xml_text(out, label);
	fputs("</text>\n", out);
	fprintf(out,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"#f4f4f4\" "
		"stroke=\"#888\"/>\n",
		x0, y0, HM_W, HM_H);
	if (a->any) {
		for (t = 0; t < h->nt; t++) {
			double x = heat_x(a, x0, h->iv[t].t0), w = heat_x(a, x0, h->iv[t].t1) - x;

			if (!ps_heat_cell(h, t, p))
				continue;
			for (b = a->lo; b <= a->hi; b++) {
				uint64_t c = ps_heat_cell(h, t, p)[b];

				if (!c)
					continue;
				heat_colour(c, a->max, colour, sizeof(colour));
				ps_fmt_duration(lo, sizeof(lo), ps_hist_bucket_low(b), true);
				ps_fmt_duration(hi, sizeof(hi), ps_hist_bucket_high(b), true);
				fprintf(out,
					"<rect class=\"cell\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
					"height=\"%.2f\" fill=\"%s\" data-queue=\"",
					x, heat_y(a, y0, b + 1), w > 0.5 ? w : 0.5, a->rowh,
					colour);
				xml_text(out, h->panel[p]);
				fprintf(out,
					"\" data-interval=\"%u\" data-t0=\"%.3f\" data-t1=\"%.3f\" "
					"data-low=\"%llu\" data-high=\"%llu\" data-count=\"%llu\">"
					"<title>",
					t, h->iv[t].t0, h->iv[t].t1, ps_hist_bucket_low(b),
					ps_hist_bucket_high(b), (unsigned long long)c);
				xml_text(out, name);
				fprintf(out, ", %.1f-%.1f s, [%s, %s): %llu</title></rect>\n",
					h->iv[t].t0, h->iv[t].t1, lo, hi, (unsigned long long)c);
			}
		}
		heat_y_axis(out, a, x0, y0);
		heat_x_axis(out, a, x0, y0);
	}
	if (!total)
		text_at(out, x0 + HM_W / 2.0, y0 + HM_H / 2.0, "middle", "no samples");
	fputs("</g>\n", out);
}

static void heat_legend(FILE *out, const struct heat_axes *a, double x0, double y0)
{
	const int steps = 10;
	char colour[8], v[32];
	int i;

	text_at(out, x0, y0 + 12, "start", "samples per cell (log scale):");
	for (i = 0; i < steps; i++) {
		uint64_t c = (uint64_t)llround(pow((double)a->max, (double)i / (steps - 1)));

		heat_colour(c ? c : 1, a->max, colour, sizeof(colour));
		fprintf(out,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"16\" height=\"12\" fill=\"%s\" "
			"stroke=\"#888\" stroke-width=\"0.5\"/>\n",
			x0 + 170 + 16 * i, y0 + 2, colour);
	}
	text_at(out, x0 + 166, y0 + 12, "end", "1");
	snprintf(v, sizeof(v), "%llu", (unsigned long long)a->max);
	text_at(out, x0 + 174 + 16 * steps, y0 + 12, "start", v);
}

void ps_heat_svg(FILE *out, const struct ps_heat *h)
{
	unsigned int p, n = 0, hidden = 0, cols, rows, drawn[PS_HEAT_MAX_PANELS];
	struct heat_axes a = {};
	char title[200], line[400], win[96], more[80] = "";
	double w, ht;

	/* Queues without samples are left out, and counted, as in the tables;
	 * all of them when none has any. */
	for (p = 0; p < h->npanels; p++)
		if (panel_samples(h, p) || !h->samples)
			drawn[n++] = p;
		else
			hidden++;
	cols = n < HM_PER_ROW ? (n ? n : 1) : HM_PER_ROW;
	rows = n ? (n + cols - 1) / cols : 1;
	a.any = ps_heat_rows(h, &a.lo, &a.hi);
	a.rowh = a.any ? (double)HM_H / (a.hi - a.lo + 1) : 0;
	a.span = h->nt ? h->iv[h->nt - 1].t1 : 0;
	a.max = ps_heat_max(h);
	snprintf(title, sizeof(title), "%s: %s (%s), %s", h->ifname, h->stage->words,
		 h->stage->where,
		 h->whole	? "all queues"
		 : h->stage->tx ? "per TX queue"
				: "per RX queue");
	snprintf(win, sizeof(win), "%s to %s", h->first_time, h->last_time);
	if (hidden)
		snprintf(more, sizeof(more), "; not drawn: %u queue%s without samples", hidden,
			 hidden == 1 ? "" : "s");
	snprintf(line, sizeof(line), "%u intervals over %.1f s, %s; %llu samples%s%s", h->nt,
		 a.span, win, (unsigned long long)h->samples,
		 h->reattached ? "; attached anew within the recording" : "", more);
	/* Wide enough for the panels and for the titles (about 9 and 6.5 px a
	 * character at 14 px bold and 11 px). */
	w = HM_LEFT + cols * (HM_W + HM_GAP_X) - HM_GAP_X + 30;
	if (w < 24 + 9.0 * strlen(title))
		w = 24 + 9.0 * strlen(title);
	if (w < 24 + 6.5 * strlen(line))
		w = 24 + 6.5 * strlen(line);
	ht = HM_TOP + rows * (HM_H + HM_GAP_Y) + 24;

	svg_open(out, w, ht);
	fputs("<text x=\"12\" y=\"20\" font-size=\"14\" font-weight=\"bold\">", out);
	xml_text(out, title);
	fputs("</text>\n", out);
	text_at(out, 12, 38, "start", line);
	for (p = 0; p < n; p++)
		heat_panel(out, h, &a, drawn[p], HM_LEFT + (p % cols) * (HM_W + HM_GAP_X),
			   HM_TOP + 14 + (p / cols) * (HM_H + HM_GAP_Y));
	if (!h->npanels)
		text_at(out, 12, HM_TOP + 30, "start", "no queues in the recording");
	if (a.any) {
		heat_legend(out, &a, 12, ht - 24);
		text_at(out, w - 12, ht - 12, "end",
			"rows: the histogram's buckets, 8 to a power of two");
	}
	fputs("</svg>\n", out);
}

/* ---- the latency budget ---------------------------------------------------------- */

#define BG_LEFT 150 /* the row labels */
#define BG_W	640
#define BG_ROW	20
#define BG_TOP	64
#define BG_QGAP 14
/* The time axis is logarithmic, in whole decades of ns: 1 us to 100 ms at
 * least, wider when a figure falls outside. On a linear axis one slow stage
 * (an ACK delay of 44 ms, from one sample) flattened the others, of tens of
 * microseconds, to a line. */
#define BG_DEC_LO  3  /* 1 us */
#define BG_DEC_HI  8  /* 100 ms */
#define BG_DEC_MAX 20 /* 10^20 ns is past any __u64 */

/* One colour per stage, in ps_stages' order (Tableau 20's). */
static const char *const stage_colour[] = {
	"#4e79a7", "#a0cbe8", "#f28e2b", "#ffbe7d", "#59a14f", "#8cd17d", "#b6992d", "#e15759",
	"#ff9d9a", "#79706e", "#bab0ac", "#d37295", "#fabfd2", "#b07aa1", "#d4a6c8", "#9d7660",
};
/* A stage's colour: its own while there are colours, then shared. */
#define STAGE_COLOUR(k) stage_colour[(k) % (sizeof(stage_colour) / sizeof(stage_colour[0]))]

/* A bar of the budget: the stages drawn end to end on one row. */
static const struct budget_row {
	const char *label;
	const char *keys[2];
} budget_rows[] = {
	{ "RX: d2s + sock", { "driver_to_stack", "socket_read" } },
	{ "TX: qdisc + compl", { "qdisc_sojourn", "tx_completion" } },
	{ "NET icmp", { "icmp_rtt" } },
	{ "NET tcp", { "tcp_rtt" } },
	{ "NET hs", { "tcp_handshake" } },
	{ "HOST icmp", { "icmp_response" } },
	{ "HOST data", { "tcp_response" } },
	{ "HOST ack", { "tcp_ack_delay" } },
};
#define NBUDGET_ROWS (sizeof(budget_rows) / sizeof(budget_rows[0]))

struct stage_fig {
	uint64_t count, p50, p99;
};

/* Stage k's figures on the queue labelled q over the whole recording. */
static struct stage_fig stage_fig(const struct ps_heat *h, const char *q)
{
	static __u64 sum[PS_LAT_BUCKETS];
	struct stage_fig f = {};
	unsigned int p, t, b;

	for (p = 0; p < h->npanels && strcmp(h->panel[p], q); p++)
		;
	if (p == h->npanels)
		return f;
	memset(sum, 0, sizeof(sum));
	for (t = 0; t < h->nt; t++)
		for (b = 0; ps_heat_cell(h, t, p) && b < PS_LAT_BUCKETS; b++)
			sum[b] += ps_heat_cell(h, t, p)[b];
	f.count = ps_hist_count(sum, PS_LAT_BUCKETS);
	if (f.count) {
		f.p50 = ps_hist_percentile(sum, PS_LAT_BUCKETS, 50);
		f.p99 = ps_hist_percentile(sum, PS_LAT_BUCKETS, 99);
	}
	return f;
}

static size_t stage_index(const char *key)
{
	size_t k;

	for (k = 0; k < ps_nstages && strcmp(ps_stages[k].key, key); k++)
		;
	return k;
}

/* The bars of a row on queue q: each stage with samples, where it starts
 * (the p50s of the stages before it on the row) and its figures. */
struct segment {
	size_t stage;
	double at;
	struct stage_fig f;
};

static size_t row_segments(const struct ps_heat *heats, const struct budget_row *r, const char *q,
			   struct segment *seg)
{
	double at = 0;
	size_t i, n = 0;

	for (i = 0; i < 2 && r->keys[i]; i++) {
		seg[n].stage = stage_index(r->keys[i]);
		seg[n].f = stage_fig(&heats[seg[n].stage], q);
		if (!seg[n].f.count)
			continue;
		seg[n].at = at;
		at += seg[n].f.p50;
		n++;
	}
	return n;
}

/* The time axis: decades lo to hi (of ns) over BG_W. */
struct budget_axis {
	int lo, hi;
};

/* x of a time of t ns; times at or below the axis' origin sit on it. */
static double budget_x(const struct budget_axis *a, double t)
{
	double d = t > 0 ? log10(t) : a->lo;

	if (d < a->lo)
		d = a->lo;
	return BG_LEFT + BG_W * (d - a->lo) / (a->hi - a->lo);
}

/* Widen the axis to whole decades holding t ns (t > 0). */
static void budget_axis_take(struct budget_axis *a, double t)
{
	int d;

	if (t <= 0)
		return;
	d = (int)floor(log10(t));
	if (d < a->lo)
		a->lo = d < 0 ? 0 : d;
	d = (int)ceil(log10(t));
	if (d > a->hi)
		a->hi = d > BG_DEC_MAX ? BG_DEC_MAX : d;
}

/* Whether a row has bars on queue q (then *any is set); a, if not NULL,
 * widened to hold the ends of its p50s and its p99 marks. */
static bool row_extent(const struct ps_heat *heats, const struct budget_row *r, const char *q,
		       struct budget_axis *a, bool *any)
{
	struct segment seg[2];
	size_t i, n = row_segments(heats, r, q, seg);

	for (i = 0; a && i < n; i++) {
		budget_axis_take(a, seg[i].at + (double)seg[i].f.p50);
		budget_axis_take(a, seg[i].at + (double)seg[i].f.p99);
	}
	*any |= n > 0;
	return n > 0;
}

static void budget_row(FILE *out, const struct ps_heat *heats, const struct budget_row *r,
		       const char *q, const struct budget_axis *a, double y)
{
	char p50[24], p99[24], tip[160];
	struct segment seg[2];
	size_t i, k, n = row_segments(heats, r, q, seg);
	double at, x, w, x99;

	text_at(out, BG_LEFT - 8, y + 14, "end", r->label);
	for (i = 0; i < n; i++) {
		struct stage_fig f = seg[i].f;

		k = seg[i].stage;
		at = seg[i].at;
		/* A stage after another spans from where that one ends to their
		 * sum: the row ends at the path's total. */
		x = budget_x(a, at);
		w = budget_x(a, at + (double)f.p50) - x;
		x99 = budget_x(a, at + (double)f.p99);
		ps_fmt_duration(p50, sizeof(p50), f.p50, true);
		ps_fmt_duration(p99, sizeof(p99), f.p99, true);
		snprintf(tip, sizeof(tip), "%s, queue %s: p50 %s, p99 %s, %llu samples",
			 ps_stages[k].words, q, p50, p99, (unsigned long long)f.count);
		fprintf(out,
			"<rect class=\"stage\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" "
			"fill=\"%s\" data-queue=\"",
			x, y + 3, w > 0.5 ? w : 0.5, BG_ROW - 6, STAGE_COLOUR(k));
		xml_text(out, q);
		fprintf(out,
			"\" data-stage=\"%s\" data-count=\"%llu\" data-p50=\"%llu\" "
			"data-p99=\"%llu\"><title>",
			ps_stages[k].key, (unsigned long long)f.count, (unsigned long long)f.p50,
			(unsigned long long)f.p99);
		xml_text(out, tip);
		fputs("</title></rect>\n", out);
		/* The p99: a whisker from the p50's end, a tick at the p99. */
		fprintf(out,
			"<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#222\"/>\n"
			"<line class=\"p99\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" "
			"stroke=\"#222\" stroke-width=\"2\"/>\n",
			x + w, y + BG_ROW / 2.0, x99, y + BG_ROW / 2.0, x99, y + 4.0, x99,
			y + BG_ROW - 4.0);
	}
}

void ps_budget_svg(FILE *out, const struct ps_heat *heats)
{
	const struct ps_heat *h0 = &heats[0];
	struct budget_axis a = { BG_DEC_LO, BG_DEC_HI };
	double y, height, x;
	unsigned int p, shown = 0, rows = 0;
	bool any;
	char v[32], line[256];
	size_t r, k;
	int d, m;

	/* The axis: every row of every queue within it. */
	for (p = 0; p < h0->npanels; p++) {
		any = false;
		for (r = 0; r < NBUDGET_ROWS; r++)
			rows += row_extent(heats, &budget_rows[r], h0->panel[p], &a, &any);
		shown += any;
	}
	height = BG_TOP + rows * BG_ROW + shown * (BG_ROW + BG_QGAP) + 70;
	svg_open(out, BG_LEFT + BG_W + 60, height);
	snprintf(line, sizeof(line),
		 "%s: latency budget per queue, p50 bars (stages of one path end to end), p99 "
		 "marked",
		 h0->ifname);
	fputs("<text x=\"12\" y=\"20\" font-size=\"14\" font-weight=\"bold\">", out);
	xml_text(out, line);
	fputs("</text>\n", out);
	snprintf(line, sizeof(line),
		 "%.1f s, %s to %s; RX and host stages by RX queue, TX stages by TX queue",
		 h0->nt ? h0->iv[h0->nt - 1].t1 : 0, h0->first_time, h0->last_time);
	text_at(out, 12, 38, "start", line);
	/* The axis' line, below the last row, is known now: a grid line at
	 * each decade behind the bars. */
	y = BG_TOP + rows * BG_ROW + shown * (BG_ROW + BG_QGAP);
	for (d = a.lo; shown && d <= a.hi; d++) {
		x = budget_x(&a, pow(10, d));
		fprintf(out,
			"<line class=\"grid\" x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%.1f\" "
			"stroke=\"#e4e4e4\"/>\n",
			x, BG_TOP, x, y);
	}
	y = BG_TOP;
	for (p = 0; p < h0->npanels; p++) {
		bool qany = false;

		for (r = 0; r < NBUDGET_ROWS; r++)
			row_extent(heats, &budget_rows[r], h0->panel[p], NULL, &qany);
		if (!qany)
			continue;
		snprintf(line, sizeof(line), "queue %s", h0->panel[p]);
		fputs("<text font-weight=\"bold\" ", out);
		fprintf(out, "x=\"12\" y=\"%.1f\">", y + 14);
		xml_text(out, line);
		fputs("</text>\n", out);
		y += BG_ROW;
		for (r = 0; r < NBUDGET_ROWS; r++) {
			bool row_any = false;

			if (!row_extent(heats, &budget_rows[r], h0->panel[p], NULL, &row_any))
				continue;
			budget_row(out, heats, &budget_rows[r], h0->panel[p], &a, y);
			y += BG_ROW;
		}
		y += BG_QGAP;
	}
	if (!shown)
		text_at(out, 12, y + 14, "start", "no samples in any stage");
	/* The shared axis: a labelled tick at each decade, a short one at 2 to
	 * 9 times it. */
	fprintf(out,
		"<line class=\"axis\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
		"stroke=\"#444\" data-decade-low=\"%d\" data-decade-high=\"%d\"/>\n",
		BG_LEFT, y, BG_LEFT + BG_W, y, a.lo, a.hi);
	for (d = a.lo; shown && d <= a.hi; d++) {
		x = budget_x(&a, pow(10, d));
		fprintf(out,
			"<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#444\"/>\n",
			x, y, x, y + 4);
		ps_fmt_duration(v, sizeof(v), (__u64)llround(pow(10, d)), true);
		text_at(out, x, y + 16, "middle", v);
		if (d == a.hi)
			continue;
		fputs("<path stroke=\"#888\" d=\"", out);
		for (m = 2; m <= 9; m++)
			fprintf(out, "%sM%.2f %.1fv2", m > 2 ? " " : "",
				budget_x(&a, m * pow(10, d)), y);
		fputs("\"/>\n", out);
	}
	if (shown)
		text_at(out, 12, y + 16, "start", "time (log scale)");
	/* The stages' colours. */
	for (k = 0; k < ps_nstages; k++) {
		double lx = 12 + (k % 5) * 150, ly = y + 30 + (k / 5) * 16;

		fprintf(out,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"10\" fill=\"%s\"/>\n",
			lx, ly, STAGE_COLOUR(k));
		text_at(out, lx + 16, ly + 9, "start", ps_stages[k].words);
	}
	fputs("</svg>\n", out);
}
