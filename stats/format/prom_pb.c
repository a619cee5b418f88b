// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The Prometheus protobuf exposition (see prom_pb.h). One family's messages
 * live in an arena until the family is packed and written; then the arena
 * is emptied for the next. */
#include "stats/format/prom_pb.h"

#include <math.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pathscope/hist.h"
#include "stats/format/metrics.pb-c.h"

typedef Io__Prometheus__Client__MetricFamily pb_family;
typedef Io__Prometheus__Client__Metric pb_metric;
typedef Io__Prometheus__Client__LabelPair pb_label;
typedef Io__Prometheus__Client__Histogram pb_hist;
typedef Io__Prometheus__Client__Bucket pb_bucket;
typedef Io__Prometheus__Client__BucketSpan pb_span;

/* ---- arena: everything of one family, emptied at once ----------------------- */

/* Chunks in the order they were made; emptied (not freed) after each family,
 * so that a scrape allocates them once. */
struct chunk {
	struct chunk *next;
	size_t used, cap;
	alignas(max_align_t) unsigned char data[];
};

#define CHUNK_MIN (64 * 1024)

struct ps_prom_pb {
	FILE *out;
	bool failed;
	struct chunk *first, *last, *cur; /* cur: where allocation goes on */
	pb_family fam;
	size_t cap;	    /* of fam.metric */
	unsigned char *buf; /* packed family */
	size_t buf_cap;
};

static void *alloc(struct ps_prom_pb *pb, size_t n)
{
	size_t a = alignof(max_align_t), cap;
	struct chunk *c;
	void *p;

	n = (n + a - 1) / a * a;
	while (pb->cur && pb->cur->cap - pb->cur->used < n)
		pb->cur = pb->cur->next;
	if (!pb->cur) {
		cap = n > CHUNK_MIN ? n : CHUNK_MIN;
		c = malloc(sizeof(*c) + cap);
		if (!c) {
			pb->failed = true;
			return NULL;
		}
		c->next = NULL;
		c->used = 0;
		c->cap = cap;
		if (pb->last)
			pb->last->next = c;
		else
			pb->first = c;
		pb->last = pb->cur = c;
	}
	c = pb->cur;
	p = c->data + c->used;
	c->used += n;
	memset(p, 0, n);
	return p;
}

static char *dup_str(struct ps_prom_pb *pb, const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = alloc(pb, n);

	if (d)
		memcpy(d, s, n);
	return d;
}

static void arena_empty(struct ps_prom_pb *pb)
{
	struct chunk *c;

	for (c = pb->first; c; c = c->next)
		c->used = 0;
	pb->cur = pb->first;
}

static void arena_free(struct ps_prom_pb *pb)
{
	struct chunk *c, *next;

	for (c = pb->first; c; c = next) {
		next = c->next;
		free(c);
	}
	pb->first = pb->last = pb->cur = NULL;
}

/* ---- families and metrics ------------------------------------------------ */

struct ps_prom_pb *ps_prom_pb_new(FILE *out)
{
	struct ps_prom_pb *pb = calloc(1, sizeof(*pb));

	if (!pb)
		return NULL;
	pb->out = out;
	io__prometheus__client__metric_family__init(&pb->fam);
	return pb;
}

static bool put_varint(FILE *out, uint64_t v)
{
	unsigned char b[10];
	size_t n = 0;

	do {
		b[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	return fwrite(b, 1, n, out) == n;
}

/* Pack and write the family (length-delimited), then empty the arena. */
static void flush(struct ps_prom_pb *pb)
{
	size_t len;

	if (pb->fam.n_metric && !pb->failed) {
		len = io__prometheus__client__metric_family__get_packed_size(&pb->fam);
		if (len > pb->buf_cap) {
			unsigned char *b = realloc(pb->buf, len);

			if (!b) {
				pb->failed = true;
				goto out;
			}
			pb->buf = b;
			pb->buf_cap = len;
		}
		if (io__prometheus__client__metric_family__pack(&pb->fam, pb->buf) != len ||
		    !put_varint(pb->out, len) || fwrite(pb->buf, 1, len, pb->out) != len)
			pb->failed = true;
	}
out:
	pb->fam.n_metric = 0; /* the metric array stays for the next family */
	pb->fam.name = pb->fam.help = NULL;
	arena_empty(pb);
}

static Io__Prometheus__Client__MetricType type_of(const char *type)
{
	if (strcmp(type, "counter") == 0)
		return IO__PROMETHEUS__CLIENT__METRIC_TYPE__COUNTER;
	if (strcmp(type, "gauge") == 0)
		return IO__PROMETHEUS__CLIENT__METRIC_TYPE__GAUGE;
	if (strcmp(type, "summary") == 0)
		return IO__PROMETHEUS__CLIENT__METRIC_TYPE__SUMMARY;
	if (strcmp(type, "histogram") == 0)
		return IO__PROMETHEUS__CLIENT__METRIC_TYPE__HISTOGRAM;
	return IO__PROMETHEUS__CLIENT__METRIC_TYPE__UNTYPED;
}

void ps_prom_pb_family(struct ps_prom_pb *pb, const char *name, const char *type, const char *help)
{
	flush(pb);
	pb->fam.name = dup_str(pb, name);
	pb->fam.help = dup_str(pb, help);
	pb->fam.has_type = 1;
	pb->fam.type = type_of(type);
}

/* A new metric of the family with l's labels; NULL when out of memory. */
static pb_metric *new_metric(struct ps_prom_pb *pb, const struct ps_lbl *l)
{
	pb_metric *m;
	pb_label *pairs;
	const char *r;
	unsigned int i;

	if (pb->failed)
		return NULL;
	if (pb->fam.n_metric == pb->cap) {
		size_t cap = pb->cap ? 2 * pb->cap : 64;
		pb_metric **a = realloc(pb->fam.metric, cap * sizeof(*a));

		if (!a) {
			pb->failed = true;
			return NULL;
		}
		pb->fam.metric = a;
		pb->cap = cap;
	}
	m = alloc(pb, sizeof(*m));
	if (!m)
		return NULL;
	io__prometheus__client__metric__init(m);
	if (l && l->npairs) {
		pairs = alloc(pb, l->npairs * sizeof(*pairs));
		m->label = alloc(pb, l->npairs * sizeof(*m->label));
		if (!pairs || !m->label)
			return NULL;
		for (i = 0, r = l->raw; i < l->npairs; i++) {
			io__prometheus__client__label_pair__init(&pairs[i]);
			/* copies: l is gone by the time the family is packed */
			pairs[i].name = dup_str(pb, r);
			r += strlen(r) + 1;
			pairs[i].value = dup_str(pb, r);
			r += strlen(r) + 1;
			m->label[i] = &pairs[i];
		}
		m->n_label = l->npairs;
	}
	pb->fam.metric[pb->fam.n_metric++] = m;
	return m;
}

/* Are the labels of m those of l? */
static bool same_labels(const pb_metric *m, const struct ps_lbl *l)
{
	const char *r = l ? l->raw : "";
	size_t i;

	if (m->n_label != (l ? l->npairs : 0))
		return false;
	for (i = 0; i < m->n_label; i++) {
		if (strcmp(m->label[i]->name, r) != 0)
			return false;
		r += strlen(r) + 1;
		if (strcmp(m->label[i]->value, r) != 0)
			return false;
		r += strlen(r) + 1;
	}
	return true;
}

void ps_prom_pb_sample(struct ps_prom_pb *pb, const char *suffix, const struct ps_lbl *l,
		       const char *value)
{
	double v = strtod(value, NULL);
	pb_metric *m;

	if (pb->fam.type == IO__PROMETHEUS__CLIENT__METRIC_TYPE__SUMMARY) {
		m = pb->fam.n_metric ? pb->fam.metric[pb->fam.n_metric - 1] : NULL;
		if (!m || !same_labels(m, l))
			m = new_metric(pb, l);
		if (!m)
			return;
		if (!m->summary) {
			m->summary = alloc(pb, sizeof(*m->summary));
			if (!m->summary)
				return;
			io__prometheus__client__summary__init(m->summary);
		}
		if (strcmp(suffix, "_sum") == 0) {
			m->summary->has_sample_sum = 1;
			m->summary->sample_sum = v;
		} else if (strcmp(suffix, "_count") == 0) {
			m->summary->has_sample_count = 1;
			m->summary->sample_count = strtoull(value, NULL, 10);
		}
		return;
	}
	if (*suffix) /* histograms come whole, through ps_prom_pb_hist */
		return;
	m = new_metric(pb, l);
	if (!m)
		return;
	switch (pb->fam.type) {
	case IO__PROMETHEUS__CLIENT__METRIC_TYPE__COUNTER:
		m->counter = alloc(pb, sizeof(*m->counter));
		if (m->counter) {
			io__prometheus__client__counter__init(m->counter);
			m->counter->has_value = 1;
			m->counter->value = v;
		}
		break;
	case IO__PROMETHEUS__CLIENT__METRIC_TYPE__GAUGE:
		m->gauge = alloc(pb, sizeof(*m->gauge));
		if (m->gauge) {
			io__prometheus__client__gauge__init(m->gauge);
			m->gauge->has_value = 1;
			m->gauge->value = v;
		}
		break;
	default:
		m->untyped = alloc(pb, sizeof(*m->untyped));
		if (m->untyped) {
			io__prometheus__client__untyped__init(m->untyped);
			m->untyped->has_value = 1;
			m->untyped->value = v;
		}
		break;
	}
}

/* ---- histograms -------------------------------------------------------------- */

int ps_prom_native_index(double v, int schema)
{
	int exp, scale = 1 << schema;
	double frac = frexp(v, &exp); /* v = frac * 2^exp, 0.5 <= frac < 1 */

	/* a power of two (frac 0.5, log2 exactly -1) is its bucket's top edge */
	return exp * scale + (int)ceil(log2(frac) * scale);
}

static uint64_t clamp_u64(ps_u128 v)
{
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

/* The classic buckets (ps_prom_cumulative), then the total. */
static bool classic_buckets(struct ps_prom_pb *pb, pb_hist *h, const __u64 *b, unsigned int n,
			    const struct ps_prom_edges *e, ps_u128 *total)
{
	ps_u128 cum[PS_PROM_MAX_BUCKETS];
	unsigned int nb = ps_prom_cumulative(b, n, e, cum), j;
	pb_bucket *bk = alloc(pb, nb * sizeof(*bk));

	h->bucket = alloc(pb, nb * sizeof(*h->bucket));
	if (!bk || !h->bucket)
		return false;
	for (j = 0; j < nb; j++) {
		double le = (double)((1ULL << (e->k0 + j)) - 1);

		io__prometheus__client__bucket__init(&bk[j]);
		bk[j].has_cumulative_count = bk[j].has_upper_bound = 1;
		bk[j].cumulative_count = clamp_u64(cum[j]);
		bk[j].upper_bound = j == nb - 1 ? INFINITY : e->ns ? le / 1e9 : le;
		h->bucket[j] = &bk[j];
	}
	h->n_bucket = nb;
	*total = cum[nb - 1];
	return true;
}

/* Adjacent log-linear buckets' midpoints are at least 16.5/15.5 = 1.065 apart
 * (8 sub-buckets per power of two), a native bucket 2^(1/16) = 1.044 wide at
 * schema 4: each bucket gets an index of its own. A coarser schema would
 * have to merge buckets, which native_buckets does not. */
_Static_assert(PS_PROM_NATIVE_SCHEMA >= PS_HIST_SUB_BITS + 1,
	       "native buckets no wider than the log-linear ones");

/* The native buckets: each non-empty log-linear bucket into the native
 * bucket of its midpoint (the indexes rise with the buckets', one each),
 * then as spans of consecutive indexes and count deltas. */
static bool native_buckets(struct ps_prom_pb *pb, pb_hist *h, const __u64 *b, unsigned int n,
			   bool ns)
{
	pb_span *spans = alloc(pb, n * sizeof(*spans));
	int *idx = alloc(pb, n * sizeof(*idx));
	uint64_t *cnt = alloc(pb, n * sizeof(*cnt));
	unsigned int i, k = 0, s = 0;
	double mid;

	h->positive_span = alloc(pb, n * sizeof(*h->positive_span));
	h->positive_delta = alloc(pb, n * sizeof(*h->positive_delta));
	if (!spans || !idx || !cnt || !h->positive_span || !h->positive_delta)
		return false;
	h->has_schema = h->has_zero_threshold = h->has_zero_count = 1;
	h->schema = PS_PROM_NATIVE_SCHEMA;
	h->zero_threshold = PS_PROM_NATIVE_ZERO_THRESHOLD;
	h->zero_count = n ? b[0] : 0;
	for (i = 1; i < n; i++) {
		if (!b[i])
			continue;
		mid = ((double)ps_hist_bucket_low(i) + (double)ps_hist_bucket_high(i) - 1) / 2;
		idx[k] = ps_prom_native_index(ns ? mid / 1e9 : mid, PS_PROM_NATIVE_SCHEMA);
		cnt[k++] = b[i];
	}
	for (i = 0; i < k; i++) {
		if (!i || idx[i] != idx[i - 1] + 1) {
			io__prometheus__client__bucket_span__init(&spans[s]);
			spans[s].has_offset = spans[s].has_length = 1;
			spans[s].offset = i ? idx[i] - idx[i - 1] - 1 : idx[i];
			h->positive_span[s] = &spans[s];
			s++;
		}
		spans[s - 1].length++;
		/* modulo 2^64, as Prometheus adds the deltas up again */
		h->positive_delta[i] = (int64_t)(cnt[i] - (i ? cnt[i - 1] : 0));
	}
	h->n_positive_span = s;
	h->n_positive_delta = k;
	return true;
}

void ps_prom_pb_hist(struct ps_prom_pb *pb, const struct ps_lbl *l, const __u64 *b, unsigned int n,
		     const struct ps_prom_edges *e, ps_u128 sum)
{
	pb_metric *m = new_metric(pb, l);
	ps_u128 total = 0;
	pb_hist *h;

	if (!m)
		return;
	h = m->histogram = alloc(pb, sizeof(*h));
	if (!h)
		return;
	io__prometheus__client__histogram__init(h);
	if (!classic_buckets(pb, h, b, n, e, &total) || !native_buckets(pb, h, b, n, e->ns))
		return;
	h->has_sample_count = h->has_sample_sum = 1;
	h->sample_count = clamp_u64(total);
	h->sample_sum = e->ns ? (double)sum / 1e9 : (double)sum;
}

int ps_prom_pb_end(struct ps_prom_pb *pb)
{
	int rc;

	if (!pb)
		return -1;
	flush(pb);
	rc = pb->failed || ferror(pb->out) ? -1 : 0;
	arena_free(pb);
	free(pb->fam.metric);
	free(pb->buf);
	free(pb);
	return rc;
}
