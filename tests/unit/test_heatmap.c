// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Heatmaps from a recording (stats/analysis/heatmap.c, stats/render/heatmap_svg.c), on
 * a fixture built here: JSON reports of schema 1 as stats --json writes them, one
 * interface, RX queues 0, 1 and "other", one baseline and ten intervals of 1 s. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pathscope/hist.h"
#include "stats/analysis/heatmap.h"
#include "stats/render/heatmap_svg.h"
#include "tests/lib/check.h"
#include "tests/lib/golden.h"
#include "tests/unit/snapshot_fixture.h"

#define NT 10
#define MS 1000000ULL

/* Cumulative samples of queue q's TCP RTT at report r (0: the baseline),
 * in bucket value *v: the fixture's truth. */
static unsigned int rtt_cum(int q, int r, int bucket_of_4ms)
{
	int i, n = 0;

	for (i = 1; i <= r; i++) /* interval i - 1 closes at report i */
		if (q == 0)
			n += bucket_of_4ms ? (i - 1 >= 5 ? 100 : 0) : (i - 1 < 5 ? 100 : 0);
	if (q == 1 && !bucket_of_4ms)
		n = 50 * r;
	return (unsigned int)n + (q == 0 && !bucket_of_4ms ? 7 : 0); /* 7 before the baseline */
}

static json_object *dist(const unsigned long long *low, const unsigned int *count, int n)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array(), *b;
	unsigned long long total = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (!count[i])
			continue;
		b = json_object_new_object();
		json_object_object_add(b, "low", json_object_new_int64((int64_t)low[i]));
		json_object_object_add(b, "high",
				       json_object_new_int64((int64_t)ps_hist_bucket_high(
					   (unsigned int)ps_hist_bucket(low[i], PS_LAT_BUCKETS))));
		json_object_object_add(b, "count", json_object_new_int64(count[i]));
		json_object_array_add(a, b);
		total += count[i];
	}
	json_object_object_add(o, "count", json_object_new_int64((int64_t)total));
	json_object_object_add(o, "hist", a);
	return o;
}

/* Report r of the fixture; scale multiplies every count (a smaller scale
 * after a larger one: attached anew). */
static json_object *report(int r, double attached_s, unsigned int scale)
{
	json_object *doc = json_object_new_object(), *ifs = json_object_new_array();
	json_object *ifc = json_object_new_object(), *qs = json_object_new_array(), *q, *o, *x;
	unsigned long long lows[2] = { 1 * MS, 4 * MS };
	char when[32];
	int i;

	snprintf(when, sizeof(when), "2026-11-27T10:00:%02dZ", r);
	json_object_object_add(doc, "schema", json_object_new_int(1));
	json_object_object_add(doc, "time", json_object_new_string(when));
	json_object_object_add(ifc, "ifname", json_object_new_string("veth0"));
	json_object_object_add(ifc, "attached_for_s", json_object_new_double(attached_s));
	json_object_object_add(ifc, "nqueues", json_object_new_int(2));
	for (i = 0; i < 3; i++) {
		unsigned int c[2] = {};
		unsigned long long l[2] = { lows[0], lows[1] };

		q = json_object_new_object();
		json_object_object_add(
		    q, "queue", i < 2 ? json_object_new_int(i) : json_object_new_string("other"));
		if (i == 0) {
			c[0] = rtt_cum(0, r, 0) * scale;
			c[1] = rtt_cum(0, r, 1) * scale;
		} else if (i == 1) {
			l[0] = 2 * MS;
			c[0] = rtt_cum(1, r, 0) * scale;
		}
		o = json_object_new_object();
		json_object_object_add(o, "rtt_ns", dist(l, c, 2));
		json_object_object_add(q, "tcp", o);
		/* d2s on queue 0 only: 20 us, 10 a report; socket reads 30 (TCP)
		 * and 3 (UDP) at 100 us on queue 1 only */
		l[0] = 20000;
		c[0] = i == 0 ? 10u * (unsigned int)r * scale : 0;
		o = json_object_new_object();
		json_object_object_add(o, "latency_ns", dist(l, c, 1));
		json_object_object_add(q, "driver_to_stack", o);
		o = json_object_new_object();
		l[0] = 100000;
		c[0] = i == 1 ? 30u * (unsigned int)r * scale : 0;
		x = json_object_new_object();
		json_object_object_add(x, "latency_ns", dist(l, c, 1));
		json_object_object_add(o, "tcp", x);
		c[0] = i == 1 ? 3u * (unsigned int)r * scale : 0;
		x = json_object_new_object();
		json_object_object_add(x, "latency_ns", dist(l, c, 1));
		json_object_object_add(o, "udp", x);
		json_object_object_add(q, "socket", o);
		if (i == 2 && r < 3) /* "other" is listed only while active */
			json_object_put(q);
		else
			json_object_array_add(qs, q);
	}
	json_object_object_add(ifc, "queues", qs);
	/* totals: the sum of the queues' TCP RTT */
	{
		unsigned int c[3] = { rtt_cum(0, r, 0) * scale, rtt_cum(0, r, 1) * scale,
				      rtt_cum(1, r, 0) * scale };
		unsigned long long l[3] = { 1 * MS, 4 * MS, 2 * MS };

		q = json_object_new_object();
		o = json_object_new_object();
		json_object_object_add(o, "rtt_ns", dist(l, c, 3));
		json_object_object_add(q, "tcp", o);
		json_object_object_add(ifc, "totals", q);
	}
	json_object_array_add(ifs, ifc);
	json_object_object_add(doc, "interfaces", ifs);
	return doc;
}

/* The fixture as a file of JSON lines, as a recording is. */
static FILE *recording(void)
{
	FILE *f = tmpfile();
	json_object *doc;
	int r;

	for (r = 0; r <= NT; r++) {
		doc = report(r, 5.0 + r, 1);
		fprintf(f, "%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN));
		json_object_put(doc);
	}
	rewind(f);
	return f;
}

static struct ps_heat *read_stage(const char *stage, bool whole)
{
	struct ps_heat *h = calloc(1, sizeof(*h));
	char err[256] = "";
	FILE *f = recording();

	h->stage = ps_stage_find(stage);
	h->whole = whole;
	check_report(ps_heat_read(h, 1, f, "fixture", err, sizeof(err)) == 0, stage, "%s", err);
	fclose(f);
	return h;
}

static char *render(void (*fn)(FILE *, const struct ps_heat *), const struct ps_heat *h,
		    size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	fn(f, h);
	fclose(f);
	return text;
}

/* The counts of the SVG's cells, by attribute: their sum, how many, and
 * the sum of those at queue q, interval t, bucket low. */
static void svg_cells(const char *svg, unsigned long long *sum, int *n, const char *q, int t,
		      unsigned long long low, unsigned long long *at)
{
	const char *p = svg;
	char want[96];
	unsigned long long c;

	*sum = *at = 0;
	*n = 0;
	snprintf(want, sizeof(want), "data-queue=\"%s\" data-interval=\"%d\"", q, t);
	while ((p = strstr(p, "<rect class=\"cell\""))) {
		const char *end = strchr(p, '>'), *cnt = strstr(p, "data-count=\""), *lo;

		c = strtoull(cnt + 12, NULL, 10);
		*sum += c;
		(*n)++;
		lo = strstr(p, "data-low=\"");
		if (strstr(p, want) && strstr(p, want) < end && strtoull(lo + 10, NULL, 10) == low)
			*at += c;
		p = end;
	}
}

/* A recording of one interval on queue 0: driver to stack at 20 us and
 * socket reads at 50 us, 100 samples each, and one ACK delay of 44 ms. */
static FILE *outlier_recording(void)
{
	FILE *f = tmpfile();
	int r;

	for (r = 0; r <= 1; r++) {
		json_object *doc = json_object_new_object(), *ifs = json_object_new_array();
		json_object *ifc = json_object_new_object(), *qs = json_object_new_array();
		json_object *q = json_object_new_object(), *o;
		unsigned long long l[1];
		unsigned int c[1];

		json_object_object_add(doc, "schema", json_object_new_int(1));
		json_object_object_add(
		    doc, "time",
		    json_object_new_string(r ? "2026-11-27T10:00:01Z" : "2026-11-27T10:00:00Z"));
		json_object_object_add(ifc, "ifname", json_object_new_string("veth0"));
		json_object_object_add(ifc, "attached_for_s", json_object_new_double(5.0 + r));
		json_object_object_add(ifc, "nqueues", json_object_new_int(1));
		json_object_object_add(q, "queue", json_object_new_int(0));
		l[0] = 20000;
		c[0] = 100u * (unsigned int)r;
		o = json_object_new_object();
		json_object_object_add(o, "latency_ns", dist(l, c, 1));
		json_object_object_add(q, "driver_to_stack", o);
		l[0] = 50000;
		o = json_object_new_object();
		json_object_object_add(o, "latency_ns", dist(l, c, 1));
		json_object_object_add(q, "socket", json_object_new_object());
		json_object_object_add(json_object_object_get(q, "socket"), "tcp", o);
		l[0] = 44 * MS;
		c[0] = (unsigned int)r;
		o = json_object_new_object();
		json_object_object_add(o, "ack_delay_ns", dist(l, c, 1));
		json_object_object_add(q, "tcp", o);
		json_object_array_add(qs, q);
		json_object_object_add(ifc, "queues", qs);
		json_object_array_add(ifs, ifc);
		json_object_object_add(doc, "interfaces", ifs);
		fprintf(f, "%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN));
		json_object_put(doc);
	}
	rewind(f);
	return f;
}

/* The number in attribute attr of the SVG element holding text key; -1 if
 * there is none. */
static double svg_attr(const char *svg, const char *key, const char *attr)
{
	const char *at = strstr(svg, key), *open, *end, *a;
	char want[32];

	if (!at)
		return -1;
	for (open = at; open > svg && *open != '<'; open--)
		;
	end = strchr(at, '>');
	snprintf(want, sizeof(want), " %s=\"", attr);
	a = strstr(open, want);
	return a && a < end ? strtod(a + strlen(want), NULL) : -1;
}

/* The heats of n stages (k0 the first) of fixture interface i, from its two
 * snapshots (live) or from their JSON reports (recorded); their SVGs. */
static char *fixture_svg(struct ps_snapshot snaps[2][2], int i, size_t k0, size_t n, bool whole,
			 bool live, unsigned int *npanels)
{
	struct ps_heat *heats = calloc(n, sizeof(*heats));
	char err[256] = "", *buf = NULL, *svg;
	struct ps_report r;
	json_object *doc;
	size_t k, len;
	int t, rc = 0;
	FILE *f;

	for (k = 0; k < n; k++) {
		heats[k].stage = &ps_stages[k0 + k];
		heats[k].whole = whole;
		snprintf(heats[k].ifname, sizeof(heats[k].ifname), "%s", snaps[i][0].meta.ifname);
	}
	for (t = 0; t < 2 && !rc; t++) {
		if (live) {
			rc = ps_heat_add_snapshot(heats, n, &snaps[i][t],
						  ps_render_json_other(&snaps[i][t]), err,
						  sizeof(err));
			continue;
		}
		ps_report_init(&r, &snaps[i][t], t ? &snaps[i][0] : NULL);
		f = open_memstream(&buf, &len);
		ps_render_json(f, &r, 1);
		fclose(f);
		doc = json_tokener_parse(buf);
		free(buf);
		rc = ps_heat_add_all(heats, n, doc, err, sizeof(err));
		json_object_put(doc);
	}
	check_report(rc == 0, live ? "fixture, live" : "fixture, recorded", "%s", err);
	*npanels = heats[0].npanels;
	svg = n > 1 ? render(ps_budget_svg, heats, &len) : render(ps_heat_svg, heats, &len);
	for (k = 0; k < n; k++)
		ps_heat_free(&heats[k]);
	free(heats);
	return svg;
}

static void live_equals_recorded(void)
{
	static struct ps_snapshot snaps[2][2];
	unsigned int same = 0, all = 0, samples = 0, other = 0, np_live, np_rec;
	char *a, *b;
	size_t k;
	int i, w;

	fx_fill(snaps);
	for (i = 0; i < 2; i++) {
		for (k = 0; k <= ps_nstages; k++)
			for (w = 0; w < (k < ps_nstages ? 2 : 1); w++) {
				bool budget = k == ps_nstages;

				a = fixture_svg(snaps, i, budget ? 0 : k, budget ? ps_nstages : 1,
						w, true, &np_live);
				b = fixture_svg(snaps, i, budget ? 0 : k, budget ? ps_nstages : 1,
						w, false, &np_rec);
				all++;
				if (np_live == np_rec && !strcmp(a, b))
					same++;
				else
					printf("# interface %d, %s%s: live and recorded differ\n",
					       i, budget ? "budget" : ps_stages[k].key,
					       w ? " --whole" : "");
				samples += !strstr(a, "; 0 samples");
				other += !w && np_live == FX_NQ + 1; /* 0, 1, 2 and other */
				free(a);
				free(b);
			}
	}
	CHECK_EQ_U64("live: every heatmap and budget of the fixture's snapshots is the one of "
		     "their JSON reports",
		     same, all);
	CHECK_TRUE("live: the fixture has samples in some stage, and a panel of queue other",
		   samples > 0 && other > 0);
}

/* Queue 0's TCP RTT steps from the 1 ms bucket to the 4 ms one after interval 4
 * (a delay line changing its delay halfway); queue 1 holds at 2 ms; queue
 * "other" has none. The checks:
 *   - every cell equals the difference of two consecutive reports, exactly,
 *     and the step lands in interval 5, bucket [4.19ms, 4.46ms);
 *   - the SVG's cells carry the same counts, and nothing else is drawn;
 *   - a count going down (attached anew) gives that interval the new counts;
 *   - socket reads sum TCP and UDP; --whole reads the totals;
 *   - goldens of the heatmap and of the budget;
 *   - the budget's time axis is logarithmic: beside one ACK delay of 44 ms,
 *     stages of 20 and 50 us keep a readable share of the chart (on the
 *     linear axis of before, the 20 us bar was under 0.1% of it);
 *   - live: the heats taken from the snapshots of snapshot_fixture.h equal
 *     those read from their JSON reports, SVG for SVG, for every stage, per
 *     queue and --whole, and the budget.
 *
 * Also: the SVG has no script or external reference; a queue without samples is
 * left out and counted; a report of another schema, two interfaces unnamed and
 * a line that is not JSON are refused with the line; goldens
 * heatmap-tcp_rtt.svg and heatmap-budget.svg; on the log axis the 20 us bar is
 * at least 20% of it and the 50 us one at least 8%. */
int main(void)
{
	struct ps_heat *h, *whole, *sock, *heats;
	unsigned int b1 = (unsigned int)ps_hist_bucket(1 * MS, PS_LAT_BUCKETS);
	unsigned int b4 = (unsigned int)ps_hist_bucket(4 * MS, PS_LAT_BUCKETS);
	unsigned int b2 = (unsigned int)ps_hist_bucket(2 * MS, PS_LAT_BUCKETS);
	unsigned long long sum, at;
	int t, ok, n;
	size_t len, k;
	char *svg;

	h = read_stage("tcp_rtt", false);
	CHECK_EQ_U64("intervals: the reports less the baseline", h->nt, NT);
	CHECK_EQ_U64("panels: queues 0, 1 and other", h->npanels, 3);
	CHECK_STR("panel 2 is queue other", h->panel[2], "other");
	ok = 1;
	for (t = 0; t < NT; t++) {
		const __u64 *c0 = ps_heat_cell(h, t, 0), *c1 = ps_heat_cell(h, t, 1);

		ok &= c0 && c0[b1] == (t < 5 ? 100u : 0u) && c0[b4] == (t >= 5 ? 100u : 0u);
		ok &= c1 && c1[b2] == 50 && !ps_heat_cell(h, t, 2);
		ok &= h->iv[t].t0 == t && h->iv[t].t1 == t + 1;
	}
	CHECK_TRUE("every cell is the difference of two reports; the step at interval 5", ok);
	CHECK_EQ_U64("samples: 10 x 100 on queue 0, 10 x 50 on queue 1 (not the 7 before)",
		     h->samples, 1500);
	CHECK_STR("the window's first report", h->first_time, "2026-11-27T10:00:00Z");
	CHECK_STR("the window's last report", h->last_time, "2026-11-27T10:00:10Z");

	svg = render(ps_heat_svg, h, &len);
	svg_cells(svg, &sum, &n, "0", 5, ps_hist_bucket_low(b4), &at);
	CHECK_EQ_U64("SVG: the cells' counts add up to the samples", sum, 1500);
	CHECK_EQ_U64("SVG: one cell per non-empty (interval, queue, bucket)", n, 20);
	CHECK_EQ_U64("SVG: queue 0, interval 5, bucket 4 ms holds the step's 100", at, 100);
	svg_cells(svg, &sum, &n, "0", 4, ps_hist_bucket_low(b4), &at);
	CHECK_EQ_U64("SVG: queue 0, interval 4, bucket 4 ms is empty", at, 0);
	svg_cells(svg, &sum, &n, "0", 4, ps_hist_bucket_low(b1), &at);
	CHECK_EQ_U64("SVG: queue 0, interval 4, bucket 1 ms holds 100", at, 100);
	CHECK_TRUE("SVG: no script, no external reference",
		   !strstr(svg, "<script") && !strstr(svg, "href") && !strstr(svg, "@import"));
	CHECK_TRUE("SVG: the title names interface, stage, hooks and samples",
		   strstr(svg,
			  "veth0: TCP RTT (segment at tc egress to its echo at tc ingress), per "
			  "RX queue") &&
		       strstr(svg, "10 intervals over 10.0 s") && strstr(svg, "1500 samples"));
	CHECK_TRUE("SVG: queue other, without samples, is not drawn but counted",
		   !strstr(svg, "data-queue=\"other\"") &&
		       strstr(svg, "; not drawn: 1 queue without samples"));
	golden("heatmap-tcp_rtt.svg", svg, len);
	free(svg);

	whole = read_stage("tcp_rtt", true);
	CHECK_EQ_U64("--whole: one panel, all queues", whole->npanels, 1);
	ok = whole->nt == NT;
	for (t = 0; ok && t < NT; t++)
		ok &= ps_heat_cell(whole, t, 0)[b1] == (t < 5 ? 100u : 0u) &&
		      ps_heat_cell(whole, t, 0)[b4] == (t >= 5 ? 100u : 0u) &&
		      ps_heat_cell(whole, t, 0)[b2] == 50;
	CHECK_TRUE("--whole: the totals' differences", ok);

	sock = read_stage("sock", false);
	CHECK_EQ_U64("socket reads: TCP and UDP summed (33 a report on queue 1)",
		     ps_heat_cell(sock, 3, 1)
			 ? ps_heat_cell(sock, 3, 1)[ps_hist_bucket(100000, PS_LAT_BUCKETS)]
			 : 0,
		     33);

	/* Attached anew: after report 6 (scale 1) comes one of scale 0 at
	 * attached_for_s 0.5, then report 7 of scale 1 again. */
	{
		struct ps_heat *re = calloc(1, sizeof(*re));
		char err[256] = "";
		json_object *doc;

		re->stage = ps_stage_find("tcp_rtt");
		for (t = 0; t <= 6; t++) {
			doc = report(t, 5.0 + t, 1);
			ps_heat_add(re, doc, err, sizeof(err));
			json_object_put(doc);
		}
		doc = report(1, 0.5, 1); /* the counts of one interval, since a new attach */
		ps_heat_add(re, doc, err, sizeof(err));
		json_object_put(doc);
		CHECK_EQ_U64("attached anew: that interval holds the new attachment's counts",
			     ps_heat_cell(re, 6, 0) ? ps_heat_cell(re, 6, 0)[b1] : 0, 107);
		CHECK_EQ_U64("attached anew: counted as such", re->reattached, 1);
		CHECK_TRUE("attached anew: the interval is the time since attach",
			   re->iv[6].t1 - re->iv[6].t0 == 0.5);
		ps_heat_free(re);
		free(re);
	}

	/* Errors, in one line. */
	{
		struct ps_heat *e = calloc(1, sizeof(*e));
		char err[256] = "";
		FILE *f = tmpfile();

		e->stage = ps_stage_find("tcp_rtt");
		fputs("{\"schema\": 3, \"interfaces\": []}\n", f);
		rewind(f);
		CHECK_TRUE(
		    "a report of another schema is refused",
		    ps_heat_read(e, 1, f, "x.jsonl", err, sizeof(err)) &&
			!strcmp(err, "x.jsonl:1: not a pathscope JSON report of schema 1 to 2"));
		fclose(f);
		f = tmpfile();
		fputs("\n{\"schema\": 1, \"interfaces\": [{\"ifname\": \"a\"}, {\"ifname\": "
		      "\"b\"}]}\n",
		      f);
		rewind(f);
		CHECK_TRUE("two interfaces and none named: refused",
			   ps_heat_read(e, 1, f, "x.jsonl", err, sizeof(err)) &&
			       !strcmp(err, "x.jsonl:2: the recording has 2 interfaces: name one"));
		fclose(f);
		f = tmpfile();
		fputs("{\"schema\": 1, \"interfaces\": [{\"ifname\": \"a\", \"queues\": "
		      "[{\"queue\": null}]}]}\n",
		      f);
		rewind(f);
		CHECK_TRUE("a queue named null: refused (found by fuzz_heatmap)",
			   ps_heat_read(e, 1, f, "x.jsonl", err, sizeof(err)) &&
			       !strcmp(err, "x.jsonl:1: a queue without \"queue\""));
		fclose(f);
		ps_heat_free(e);
		memset(e, 0, sizeof(*e));
		e->stage = ps_stage_find("tcp_rtt");
		f = tmpfile();
		fputs("{\"schema\": 1, \"interfaces\": [{\"ifname\": null}]}\n", f);
		rewind(f);
		CHECK_TRUE("an interface named null: no report of it (it crashed once)",
			   ps_heat_read(e, 1, f, "x.jsonl", err, sizeof(err)) &&
			       !strcmp(err, "x.jsonl: no report of any interface"));
		fclose(f);
		f = tmpfile();
		fputs("not json\n", f);
		rewind(f);
		CHECK_TRUE("not JSON: refused with the line",
			   ps_heat_read(e, 1, f, "x.jsonl", err, sizeof(err)) &&
			       strstr(err, "x.jsonl:1: not a JSON report"));
		fclose(f);
		ps_heat_free(e);
		free(e);
	}

	/* The budget: every stage over the same recording. */
	heats = calloc(ps_nstages, sizeof(*heats));
	{
		char err[256] = "";
		FILE *f = recording();

		for (k = 0; k < ps_nstages; k++)
			heats[k].stage = &ps_stages[k];
		CHECK_TRUE("budget: the recording read for every stage",
			   ps_heat_read(heats, ps_nstages, f, "fixture", err, sizeof(err)) == 0);
		fclose(f);
	}
	svg = render(ps_budget_svg, heats, &len);
	CHECK_TRUE("budget: queue 0's d2s bar: p50 = p99 = the midpoint of 20 us's bucket",
		   strstr(svg, "data-queue=\"0\" data-stage=\"driver_to_stack\" data-count=\"100\" "
			       "data-p50=\"19455\" data-p99=\"19455\""));
	CHECK_TRUE("budget: queue 0's TCP RTT: 500 at 1 ms, 500 at 4 ms",
		   strstr(svg, "data-queue=\"0\" data-stage=\"tcp_rtt\" data-count=\"1000\" "
			       "data-p50=\"1015807\" data-p99=\"4063231\""));
	CHECK_TRUE("budget: queue other (no samples) has no bars",
		   !strstr(svg, "data-queue=\"other\""));
	golden("heatmap-budget.svg", svg, len);
	free(svg);
	for (k = 0; k < ps_nstages; k++)
		ps_heat_free(&heats[k]);

	/* The budget's log axis: 20 us and 50 us beside one ACK delay of 44 ms. */
	memset(heats, 0, ps_nstages * sizeof(*heats));
	{
		char err[256] = "";
		FILE *f = outlier_recording();

		for (k = 0; k < ps_nstages; k++)
			heats[k].stage = &ps_stages[k];
		CHECK_TRUE("budget, outlier: the recording read for every stage",
			   ps_heat_read(heats, ps_nstages, f, "outlier", err, sizeof(err)) == 0);
		fclose(f);
	}
	svg = render(ps_budget_svg, heats, &len);
	{
		double x1 = svg_attr(svg, "class=\"axis\"", "x1"),
		       x2 = svg_attr(svg, "class=\"axis\"", "x2"), span = x2 - x1,
		       d2s_x = svg_attr(svg, "data-stage=\"driver_to_stack\"", "x"),
		       d2s_w = svg_attr(svg, "data-stage=\"driver_to_stack\"", "width"),
		       sock_x = svg_attr(svg, "data-stage=\"socket_read\"", "x"),
		       sock_w = svg_attr(svg, "data-stage=\"socket_read\"", "width"),
		       ack_x = svg_attr(svg, "data-stage=\"tcp_ack_delay\"", "x"),
		       ack_w = svg_attr(svg, "data-stage=\"tcp_ack_delay\"", "width");

		CHECK_TRUE("budget, outlier: the three bars and the axis are drawn",
			   span > 0 && d2s_w > 0 && sock_w > 0 && ack_w > 0 &&
			       strstr(svg, "data-count=\"1\" data-p50=\"44") &&
			       strstr(svg, "data-decade-low=\"3\" data-decade-high=\"8\""));
		check_report(span > 0 && d2s_w >= 0.2 * span,
			     "budget, outlier: the 20 us bar is >= 20% of the axis",
			     "%.2f of %.2f px (a linear axis gives < 0.1%%)", d2s_w, span);
		check_report(span > 0 && sock_w >= 0.08 * span,
			     "budget, outlier: the 50 us bar after it is >= 8% of the axis",
			     "%.2f of %.2f px", sock_w, span);
		CHECK_TRUE("budget, outlier: socket read starts where driver to stack ends",
			   d2s_x == x1 && sock_x > d2s_x + d2s_w - 0.011 &&
			       sock_x < d2s_x + d2s_w + 0.011);
		check_report(ack_x == x1 && ack_x + ack_w > x1 + 0.8 * span && ack_x + ack_w <= x2,
			     "budget, outlier: the 44 ms bar ends between 10 ms and 100 ms, "
			     "within the axis",
			     "ends at %.2f, axis %.2f to %.2f", ack_x + ack_w, x1, x2);
		CHECK_TRUE("budget, outlier: decades labelled 1us to 100ms",
			   strstr(svg, ">1us</text>") && strstr(svg, ">10us</text>") &&
			       strstr(svg, ">100us</text>") && strstr(svg, ">1ms</text>") &&
			       strstr(svg, ">10ms</text>") && strstr(svg, ">100ms</text>"));
	}
	free(svg);
	for (k = 0; k < ps_nstages; k++)
		ps_heat_free(&heats[k]);
	free(heats);

	ps_heat_free(h);
	ps_heat_free(whole);
	ps_heat_free(sock);
	free(h);
	free(whole);
	free(sock);
	live_equals_recorded();
	return check_exit_code();
}
