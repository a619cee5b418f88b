// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* promdump: the Prometheus protobuf exposition (delimited MetricFamily messages) on
 * stdin, as text lines on stdout, for the tests. Exit 1 on a malformed stream. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/format/metrics.pb-c.h"

static void labels(const Io__Prometheus__Client__Metric *m, const char *le)
{
	const char *c;
	size_t i;

	if (!m->n_label && !le)
		return;
	putchar('{');
	for (i = 0; i < m->n_label; i++) {
		printf("%s%s=\"", i ? "," : "", m->label[i]->name);
		for (c = m->label[i]->value; *c; c++) {
			if (*c == '\\' || *c == '"')
				printf("\\%c", *c);
			else if (*c == '\n')
				fputs("\\n", stdout);
			else
				putchar(*c);
		}
		putchar('"');
	}
	if (le)
		printf("%sle=\"%s\"", m->n_label ? "," : "", le);
	putchar('}');
}

static void metric(const char *name, const Io__Prometheus__Client__Metric *m)
{
	const Io__Prometheus__Client__Histogram *h = m->histogram;
	char le[64];
	size_t i, k;

	if (m->counter || m->gauge || m->untyped) {
		fputs(name, stdout);
		labels(m, NULL);
		printf(" %.17g\n", m->counter ? m->counter->value
					      : (m->gauge ? m->gauge->value : m->untyped->value));
	}
	if (m->summary) {
		printf("%s_sum", name);
		labels(m, NULL);
		printf(" %.17g\n%s_count", m->summary->sample_sum, name);
		labels(m, NULL);
		printf(" %llu\n", (unsigned long long)m->summary->sample_count);
	}
	if (!h)
		return;
	for (i = 0; i < h->n_bucket; i++) {
		snprintf(le, sizeof(le), "%.17g", h->bucket[i]->upper_bound);
		printf("%s_bucket", name);
		labels(m, strcmp(le, "inf") == 0 ? "+Inf" : le);
		printf(" %llu\n", (unsigned long long)h->bucket[i]->cumulative_count);
	}
	printf("%s_sum", name);
	labels(m, NULL);
	printf(" %.17g\n%s_count", h->sample_sum, name);
	labels(m, NULL);
	printf(" %llu\n", (unsigned long long)h->sample_count);
	if (!h->has_schema)
		return;
	fputs(name, stdout);
	labels(m, NULL);
	printf(" native schema=%d zero_threshold=%.17g zero_count=%llu buckets=", h->schema,
	       h->zero_threshold, (unsigned long long)h->zero_count);
	{
		int64_t idx = 0, run = 0;

		for (i = 0, k = 0; i < h->n_positive_span; i++) {
			uint32_t n;

			idx += h->positive_span[i]->offset;
			for (n = 0; n < h->positive_span[i]->length && k < h->n_positive_delta;
			     n++, k++, idx++) {
				run += h->positive_delta[k];
				printf("%s%lld:%lld", k ? "," : "", (long long)idx, (long long)run);
			}
		}
	}
	putchar('\n');
}

/* The lines:
 *   NAME{LABELS} VALUE                       counters, gauges, untyped
 *   NAME_sum{LABELS} V, NAME_count{LABELS} N  summaries and histograms
 *   NAME_bucket{LABELS,le="B"} N             a histogram's classic buckets
 *   NAME{LABELS} native schema=S zero_threshold=Z zero_count=N buckets=I:N,...
 * Values as %.17g. --series: only the number of series Prometheus stores for
 * the exposition (with native histograms on): one per counter, gauge and native
 * histogram, two per summary (_sum, _count; pathscope's have no quantiles), and
 * a classic histogram's buckets, _sum and _count. */
int main(int argc, char **argv)
{
	int count_only = argc > 1 && strcmp(argv[1], "--series") == 0;
	size_t len = 0, cap = 1 << 20, off = 0, n, series = 0, i;
	unsigned char *buf = malloc(cap);

	if (!buf)
		return 1;
	while ((n = fread(buf + len, 1, cap - len, stdin)) > 0) {
		len += n;
		if (len == cap && !(buf = realloc(buf, cap *= 2)))
			return 1;
	}
	while (off < len) {
		Io__Prometheus__Client__MetricFamily *f;
		uint64_t mlen = 0;
		int shift = 0;

		for (;;) {
			if (off >= len || shift > 63)
				return fprintf(stderr, "promdump: bad length at %zu\n", off), 1;
			mlen |= (uint64_t)(buf[off] & 0x7f) << shift;
			shift += 7;
			if (!(buf[off++] & 0x80))
				break;
		}
		if (mlen > len - off)
			return fprintf(stderr, "promdump: truncated message at %zu\n", off), 1;
		f = io__prometheus__client__metric_family__unpack(NULL, mlen, buf + off);
		if (!f)
			return fprintf(stderr, "promdump: bad message at %zu\n", off), 1;
		off += mlen;
		for (i = 0; i < f->n_metric; i++) {
			const Io__Prometheus__Client__Metric *m = f->metric[i];

			if (m->summary)
				series += 2;
			else if (m->histogram && !m->histogram->has_schema)
				series += m->histogram->n_bucket + 2;
			else
				series++;
			if (!count_only)
				metric(f->name, m);
		}
		io__prometheus__client__metric_family__free_unpacked(f, NULL);
	}
	if (count_only)
		printf("%zu\n", series);
	free(buf);
	return 0;
}
