// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* One report: an interface's counts and its rates over a window (report.h). */
#include "stats/read/report.h"

#include <stdio.h>
#include <string.h>

static void slot_or_sum(const struct ps_snapshot *s, int hook, unsigned int q,
			struct ps_qstats *out)
{
	if (!s || !s->hook[hook]) {
		memset(out, 0, sizeof(*out));
		return;
	}
	if (q >= s->nslots)
		ps_snapshot_total(s, hook, out);
	else
		*out = s->hook[hook][q];
}

void ps_report_init(struct ps_report *r, const struct ps_snapshot *cur,
		    const struct ps_snapshot *prev)
{
	r->cur = cur;
	r->prev = prev;
	r->show = 0;
	r->window_s = prev ? (double)(cur->mono_ns - prev->mono_ns) / 1e9
			   : (double)(cur->mono_ns - cur->meta.attach_monotonic_ns) / 1e9;
	if (r->window_s <= 0)
		r->window_s = 1e-9;
}

void ps_report_total(const struct ps_report *r, int hook, unsigned int q, struct ps_qstats *out)
{
	slot_or_sum(r->cur, hook, q, out);
}

void ps_report_window(const struct ps_report *r, int hook, unsigned int q, struct ps_qstats *out)
{
	struct ps_qstats a, b;

	slot_or_sum(r->cur, hook, q, &a);
	slot_or_sum(r->prev, hook, q, &b);
	ps_qstats_sub(out, &a, &b);
}

__u64 ps_segments(const struct ps_qstats *s)
{
	return s->gso_segs + (s->packets - s->gso_packets);
}

double ps_avg_segs(const struct ps_qstats *s)
{
	return s->packets ? (double)ps_segments(s) / (double)s->packets : 0;
}

double ps_avg_gso_size(const struct ps_qstats *s)
{
	return s->gso_packets ? (double)s->gso_size_sum / (double)s->gso_packets : 0;
}

__u64 ps_ecn_count(const struct ps_qstats *s, int ecn)
{
	return s->ecn[PS_IPV4][ecn] + s->ecn[PS_IPV6][ecn];
}

__u64 ps_ip_packets(const struct ps_qstats *s)
{
	__u64 n = 0;
	int e;

	for (e = 0; e < PS_ECN_COUNT; e++)
		n += ps_ecn_count(s, e);
	return n;
}
