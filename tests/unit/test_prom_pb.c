// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The protobuf exposition (serve --native-histograms) on the golden test's fixture at
 * both detail levels: it holds every sample of the text exposition, and the native
 * buckets of histograms with known contents. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "tests/lib/check.h"
#include "stats/format/metrics.pb-c.h"
#include "stats/format/prom.h"
#include "stats/format/prom_pb.h"
#include "stats/render/render.h"
#include "tests/unit/snapshot_fixture.h"

typedef Io__Prometheus__Client__MetricFamily pb_family;

/* One sample: its series ("name{labels}", le normalized) and its value. */
struct sample {
	char series[1024];
	double v;
};

struct samples {
	struct sample *s;
	size_t n, cap;
};

static void add(struct samples *ss, const char *series, double v)
{
	if (ss->n == ss->cap) {
		ss->cap = ss->cap ? 2 * ss->cap : 256;
		ss->s = realloc(ss->s, ss->cap * sizeof(*ss->s));
		if (!ss->s)
			abort();
	}
	snprintf(ss->s[ss->n].series, sizeof(ss->s[ss->n].series), "%s", series);
	ss->s[ss->n++].v = v;
}

static int by_series(const void *a, const void *b)
{
	return strcmp(((const struct sample *)a)->series, ((const struct sample *)b)->series);
}

static char *render(const struct ps_snapshot *s, int n, struct ps_prom_extra *x, bool pb,
		    size_t *len)
{
	char *out = NULL;
	FILE *f = open_memstream(&out, len);

	x->protobuf = pb;
	CHECK_EQ_U64(pb ? "protobuf render: 0" : "text render: 0", ps_render_prom(f, s, n, x), 0);
	fclose(f);
	return out;
}

/* le="X" normalized to %.17g of its value, so that the text's decimal and the
 * protobuf's double name the same edge. */
static void norm_le(char *series)
{
	char *le = strstr(series, "le=\""), *end;
	char tail[1024], num[64];

	if (!le)
		return;
	end = strchr(le + 4, '"');
	if (!end)
		return;
	snprintf(tail, sizeof(tail), "%s", end);
	snprintf(num, sizeof(num), "%.17g", strtod(le + 4, NULL)); /* "+Inf" -> inf */
	snprintf(le + 4, 1024 - (size_t)(le + 4 - series), "%s%s", num, tail);
}

/* The text exposition's samples; and its families, "name help type" in order. */
static void text_samples(char *text, struct samples *ss, char *fams, size_t famlen)
{
	char *line, *save = NULL, *sp, series[1024];
	size_t used = 0;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "# HELP ", 7) == 0) {
			used += (size_t)snprintf(fams + used, famlen - used, "%s\n", line + 7);
			continue;
		}
		if (strncmp(line, "# TYPE ", 7) == 0) {
			sp = strrchr(line, ' ');
			used += (size_t)snprintf(fams + used, famlen - used, "type %s\n", sp + 1);
			continue;
		}
		sp = strrchr(line, ' ');
		snprintf(series, sizeof(series), "%.*s", (int)(sp - line), line);
		norm_le(series);
		add(ss, series, strtod(sp + 1, NULL));
	}
}

static const char *type_name(int t)
{
	static const char *const names[] = { "counter", "gauge", "summary", "untyped",
					     "histogram" };

	return t >= 0 && t < 5 ? names[t] : "?";
}

/* "name{labels}" of metric m of family f, with an extra le label (NULL: none). */
static void series_of(char *buf, size_t len, const char *name, const char *suffix,
		      const Io__Prometheus__Client__Metric *m, const char *le)
{
	struct ps_lbl l;
	size_t i;

	ps_lbl_reset(&l);
	for (i = 0; i < m->n_label; i++)
		ps_lbl_add(&l, m->label[i]->name, m->label[i]->value);
	if (le)
		ps_lbl_add(&l, "le", le);
	if (l.n)
		snprintf(buf, len, "%s%s{%s}", name, suffix, l.s);
	else
		snprintf(buf, len, "%s%s", name, suffix);
}

struct native_totals {
	size_t hists, bad_sums, metrics;
};

/* Decode the delimited families: their samples, in the text's terms, their
 * families as text_samples lists them, and the native histograms' checks. */
static int pb_samples(const unsigned char *p, size_t len, struct samples *ss, char *fams,
		      size_t famlen, struct native_totals *nt)
{
	size_t off = 0, used = 0, i, j;
	char series[1024], le[64];

	while (off < len) {
		uint64_t mlen = 0;
		int shift = 0;
		pb_family *f;

		while (off < len && shift < 64) { /* the varint length */
			mlen |= (uint64_t)(p[off] & 0x7f) << shift;
			shift += 7;
			if (!(p[off++] & 0x80))
				break;
		}
		if (mlen > len - off)
			return -1;
		f = io__prometheus__client__metric_family__unpack(NULL, mlen, p + off);
		if (!f)
			return -1;
		off += mlen;
		used += (size_t)snprintf(fams + used, famlen - used, "%s %s\ntype %s\n", f->name,
					 f->help, type_name(f->type));
		for (i = 0; i < f->n_metric; i++) {
			const Io__Prometheus__Client__Metric *m = f->metric[i];
			const Io__Prometheus__Client__Histogram *h = m->histogram;

			nt->metrics++;
			if (m->counter || m->gauge || m->untyped) {
				series_of(series, sizeof(series), f->name, "", m, NULL);
				add(ss, series,
				    m->counter ? m->counter->value
					       : (m->gauge ? m->gauge->value : m->untyped->value));
			}
			if (m->summary) {
				series_of(series, sizeof(series), f->name, "_sum", m, NULL);
				add(ss, series, m->summary->sample_sum);
				series_of(series, sizeof(series), f->name, "_count", m, NULL);
				add(ss, series, (double)m->summary->sample_count);
			}
			if (!h)
				continue;
			for (j = 0; j < h->n_bucket; j++) {
				snprintf(le, sizeof(le), "%.17g", h->bucket[j]->upper_bound);
				series_of(series, sizeof(series), f->name, "_bucket", m, le);
				add(ss, series, (double)h->bucket[j]->cumulative_count);
			}
			series_of(series, sizeof(series), f->name, "_sum", m, NULL);
			add(ss, series, h->sample_sum);
			series_of(series, sizeof(series), f->name, "_count", m, NULL);
			add(ss, series, (double)h->sample_count);
			/* native: schema 4, the zero bucket, buckets that add up */
			{
				uint64_t total = h->zero_count;
				int64_t run = 0;

				for (j = 0; j < h->n_positive_delta; j++) {
					run += h->positive_delta[j];
					total += (uint64_t)run;
				}
				nt->hists++;
				if (!h->has_schema || h->schema != PS_PROM_NATIVE_SCHEMA ||
				    !(h->zero_threshold > 0) || total != h->sample_count)
					nt->bad_sums++;
			}
		}
		io__prometheus__client__metric_family__free_unpacked(f, NULL);
	}
	return 0;
}

/* Every text sample is a protobuf sample with the same series and value, and
 * no other; families alike. */
static void cross_check(const char *level, struct ps_snapshot *cur, struct ps_prom_extra *x)
{
	static char tf[256 * 1024], pf[256 * 1024];
	struct samples ts = { 0 }, ps = { 0 };
	struct native_totals nt = { 0 };
	size_t tlen, plen, i, mismatch = 0, want_hists = 0;
	char *text = render(cur, 2, x, false, &tlen);
	unsigned char *pb = (unsigned char *)render(cur, 2, x, true, &plen);
	char name[160];

	text_samples(text, &ts, tf, sizeof(tf));
	snprintf(name, sizeof(name), "%s: the protobuf exposition decodes", level);
	check_report(pb_samples(pb, plen, &ps, pf, sizeof(pf), &nt) == 0, name, "bad message");
	snprintf(name, sizeof(name), "%s: families, HELP and TYPE as in the text, in its order",
		 level);
	check_report(strcmp(tf, pf) == 0, name, "differ");
	for (i = 0; i < ts.n; i++) /* one +Inf bucket per histogram */
		want_hists += strstr(ts.s[i].series, "le=\"inf\"") != NULL;
	qsort(ts.s, ts.n, sizeof(*ts.s), by_series);
	qsort(ps.s, ps.n, sizeof(*ps.s), by_series);
	snprintf(name, sizeof(name), "%s: as many samples as the text (%zu)", level, ts.n);
	CHECK_EQ_U64(name, ps.n, ts.n);
	for (i = 0; i < ts.n && i < ps.n; i++) {
		double a = ts.s[i].v, b = ps.s[i].v;

		if (strcmp(ts.s[i].series, ps.s[i].series) != 0 ||
		    !(a == b || fabs(a - b) <= 1e-12 * fabs(a))) {
			if (!mismatch)
				printf("# first difference: text %s %.17g, protobuf %s %.17g\n",
				       ts.s[i].series, a, ps.s[i].series, b);
			mismatch++;
		}
	}
	snprintf(name, sizeof(name), "%s: every sample with the text's series and value", level);
	CHECK_EQ_U64(name, mismatch, 0);
	snprintf(name, sizeof(name),
		 "%s: a native histogram for each of the text's (%zu), each schema 4 with a zero "
		 "bucket, buckets adding up to its count",
		 level, want_hists);
	check_report(nt.hists == want_hists && nt.bad_sums == 0, name, "%zu histograms, %zu bad",
		     nt.hists, nt.bad_sums);
	printf("# %s: %zu text series, %zu protobuf series (metrics)\n", level, ts.n, nt.metrics);
	free(ts.s);
	free(ps.s);
	free(text);
	free(pb);
}

/* The one histogram of the first family named name: its native buckets as
 * "index:count ..." (zero bucket as "z:count"). */
static void native_of(const unsigned char *p, size_t len, const char *name, char *out,
		      size_t outlen)
{
	size_t off = 0, used = 0, j, k;

	out[0] = '\0';
	while (off < len) {
		uint64_t mlen = 0;
		int shift = 0;
		pb_family *f;

		while (off < len && shift < 64) {
			mlen |= (uint64_t)(p[off] & 0x7f) << shift;
			shift += 7;
			if (!(p[off++] & 0x80))
				break;
		}
		f = io__prometheus__client__metric_family__unpack(NULL, mlen, p + off);
		off += mlen;
		if (!f)
			return;
		if (strcmp(f->name, name) == 0 && f->n_metric && f->metric[0]->histogram) {
			const Io__Prometheus__Client__Histogram *h = f->metric[0]->histogram;
			int64_t idx = 0, run = 0;

			used += (size_t)snprintf(out + used, outlen - used, "z:%llu",
						 (unsigned long long)h->zero_count);
			for (j = 0, k = 0; j < h->n_positive_span; j++) {
				uint32_t n;

				idx += h->positive_span[j]->offset;
				for (n = 0; n < h->positive_span[j]->length; n++, k++, idx++) {
					run += h->positive_delta[k];
					used += (size_t)snprintf(out + used, outlen - used,
								 " %lld:%lld", (long long)idx,
								 (long long)run);
				}
			}
			io__prometheus__client__metric_family__free_unpacked(f, NULL);
			return;
		}
		io__prometheus__client__metric_family__free_unpacked(f, NULL);
	}
}

static void known_histograms(void)
{
	static struct ps_qstats hooks[PS_HOOK_COUNT][2];
	static struct ps_d2s_qstats d2s[2];
	struct ps_prom_extra x = { .protobuf = true };
	struct ps_snapshot s;
	unsigned char *pb;
	size_t len;
	char got[512];

	memset(&s, 0, sizeof(s));
	s.meta.abi_version = PS_ABI_VERSION;
	snprintf(s.meta.ifname, sizeof(s.meta.ifname), "k0");
	s.meta.nqueues = 1;
	s.meta.all_queues = 1;
	s.meta.features = PS_F_DEFAULT;
	s.nslots = 2;
	s.hook[PS_HOOK_XDP] = hooks[PS_HOOK_XDP];
	/* 100 frames of 64 B and one of 1514 B: buckets [64, 72) and [1408, 1536),
	 * midpoints 67.5 and 1471.5; schema 4: ceil(16 log2 67.5) = 98,
	 * ceil(16 log2 1471.5) = 169 */
	hooks[PS_HOOK_XDP][0].size_hist[ps_hist_bucket(64, PS_SIZE_BUCKETS)] = 100;
	hooks[PS_HOOK_XDP][0].size_hist[ps_hist_bucket(1514, PS_SIZE_BUCKETS)] = 1;
	/* 3 frames of 15 B (exact bucket: ceil(16 log2 15) = 63) and 2 of 16 B
	 * ([16, 18), midpoint 16.5: 65), adjacent to nothing: two spans */
	hooks[PS_HOOK_XDP][0].size_hist[15] = 3;
	hooks[PS_HOOK_XDP][0].size_hist[ps_hist_bucket(16, PS_SIZE_BUCKETS)] = 2;
	/* GRO segments at tc ingress: 5 skbs of 0 segments (zero bucket), 7 of 1
	 * (index 0), 4 of 2 (16) */
	s.hook[PS_HOOK_TC_INGRESS] = hooks[PS_HOOK_TC_INGRESS];
	hooks[PS_HOOK_TC_INGRESS][0].segs_hist[0] = 5;
	hooks[PS_HOOK_TC_INGRESS][0].segs_hist[1] = 7;
	hooks[PS_HOOK_TC_INGRESS][0].segs_hist[2] = 4;
	/* d2s: 10 samples of 1000 ns: bucket [960, 1024), midpoint 991.5 ns =
	 * 9.915e-7 s: ceil(16 log2 9.915e-7) = -319 */
	s.d2s = d2s;
	d2s[0].hist[ps_hist_bucket(1000, PS_LAT_BUCKETS)] = 10;
	d2s[0].matched = 10;

	pb = (unsigned char *)render(&s, 1, &x, true, &len);
	native_of(pb, len, "pathscope_frame_size_bytes", got, sizeof(got));
	check_report(strcmp(got, "z:0 63:3 65:2 98:100 169:1") == 0,
		     "native frame sizes: 15 B at 63, 16 B at 65, 64 B at 98, 1514 B at 169",
		     "got '%s'", got);
	native_of(pb, len, "pathscope_skb_segments", got, sizeof(got));
	check_report(strcmp(got, "z:5 0:7 16:4") == 0,
		     "native segments: 0 in the zero bucket, 1 at index 0, 2 at 16", "got '%s'",
		     got);
	native_of(pb, len, "pathscope_d2s_latency_seconds", got, sizeof(got));
	check_report(strcmp(got, "z:0 -319:10") == 0,
		     "native d2s: 1000 ns ([960, 1024) ns, midpoint 9.915e-7 s) at -319",
		     "got '%s'", got);
	free(pb);
}

static void index_math(void)
{
	static const struct {
		double v;
		int schema, want;
	} cases[] = {
		{ 1, 4, 0 },	   { 2, 4, 16 },       { 3, 4, 26 },	   { 0.5, 4, -16 },
		{ 1e-9, 4, -478 }, { 1024, 0, 10 },    { 1025, 0, 11 },	   { 1.5, 0, 1 },
		{ 0.75, 1, 0 },	   { 67.5, 4, 98 },    { 1471.5, 4, 169 }, { 1087.5, 4, 162 },
		{ 4096, 4, 192 },  { 4096.5, 4, 193 }, { 1e-3, 8, -2551 },
	};
	unsigned int i, bad = 0;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int got = ps_prom_native_index(cases[i].v, cases[i].schema);

		if (got != cases[i].want) {
			printf("# native index of %g at schema %d: %d, want %d\n", cases[i].v,
			       cases[i].schema, got, cases[i].want);
			bad++;
		}
	}
	CHECK_EQ_U64("native index: 15 hand-computed values and schemas", bad, 0);
}

/* Every sample of the text exposition with the same labels and value (counters,
 * gauges, summaries; the classic buckets, sums and counts of every histogram),
 * families in the same order with the same HELP and TYPE; the native buckets of
 * histograms with known contents (indexes computed by hand); every native
 * histogram's buckets add up to its count; the native index itself. */
int main(void)
{
	static struct ps_snapshot snaps[2][2];
	static const struct ps_prom_prog progs[] = {
		{ "veth0", "xdp_prog", 123456789, 1000 },
	};
	static const struct ps_prom_iface ifaces[] = { { "veth0", true }, { "lb\"1", false } };
	struct ps_prom_extra x = {
		.version = "9.9.9-test",
		.abi = PS_ABI_VERSION,
		.bpf_stats_enabled = 1,
		.progs = progs,
		.nprogs = 1,
		.ifaces = ifaces,
		.nifaces = 2,
	};
	struct ps_snapshot cur[2];

	fx_fill(snaps);
	cur[0] = snaps[0][1];
	cur[1] = snaps[1][1];
	index_math();
	cross_check("--detail interface", cur, &x);
	x.queue_detail = PS_F_ALL;
	cross_check("--detail queue", cur, &x);
	known_histograms();
	return check_exit_code();
}
