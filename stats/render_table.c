// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The per-queue table: one row per queue and hook, then the interface total. */
#include <string.h>
#include <time.h>

#include "stats/format/hist.h"
#include "lib/names.h"
#include "stats/report.h"
#include "lib/queues.h"

static void fmt_si(char *buf, size_t len, double v, const char *unit)
{
	static const char *const pre[] = { "", "k", "M", "G", "T" };
	int i = 0;

	while (v >= 1000 && i < 4) {
		v /= 1000;
		i++;
	}
	snprintf(buf, len, i ? "%.2f%s%s" : "%.0f%s%s", v, pre[i], unit);
}

static void row(FILE *out, const struct ps_report *r, int h, unsigned int q, const char *qname)
{
	const struct ps_meta *m = &r->cur->meta;
	struct ps_qstats t, w;
	char pps[16], bps[20], p50[16], p99[16], segs[16], gso[16], ce_rate[16];
	__u64 ip_w;

	ps_report_total(r, h, q, &t);
	ps_report_window(r, h, q, &w);
	fmt_si(pps, sizeof(pps), (double)w.packets / r->window_s, "");
	fmt_si(bps, sizeof(bps), (double)w.bytes * 8 / r->window_s, "bit/s");
	snprintf(p50, sizeof(p50), "-");
	snprintf(p99, sizeof(p99), "-");
	snprintf(segs, sizeof(segs), "-");
	snprintf(gso, sizeof(gso), "-");
	snprintf(ce_rate, sizeof(ce_rate), "-");
	if ((m->features & PS_F_SIZES) && ps_hist_count(t.size_hist, PS_SIZE_BUCKETS)) {
		snprintf(p50, sizeof(p50), "%llu",
			 (unsigned long long)ps_hist_percentile(t.size_hist, PS_SIZE_BUCKETS, 50));
		snprintf(p99, sizeof(p99), "%llu",
			 (unsigned long long)ps_hist_percentile(t.size_hist, PS_SIZE_BUCKETS, 99));
	}
	if (h != PS_HOOK_XDP && (m->features & PS_F_GRO) && t.packets) {
		snprintf(segs, sizeof(segs), "%.2f", ps_avg_segs(&t));
		if (t.gso_packets)
			snprintf(gso, sizeof(gso), "%.0f", ps_avg_gso_size(&t));
	}
	ip_w = ps_ip_packets(&w);
	if ((m->features & PS_F_ECN) && ip_w)
		snprintf(ce_rate, sizeof(ce_rate), "%.2f%%",
			 100.0 * (double)ps_ecn_count(&w, PS_ECN_CE) / (double)ip_w);

	fprintf(out, "%-6s %-10s %-3s %12llu %9s %14s %6s %6s %6s %6s", qname, ps_hook_names[h],
		ps_hook_dirs[h], (unsigned long long)t.packets, pps, bps, p50, p99, segs, gso);
	if (m->features & PS_F_ECN)
		fprintf(out, " %10llu %10llu %10llu %10llu %7s\n",
			(unsigned long long)ps_ecn_count(&t, PS_ECN_NOT_ECT),
			(unsigned long long)ps_ecn_count(&t, PS_ECN_ECT0),
			(unsigned long long)ps_ecn_count(&t, PS_ECN_ECT1),
			(unsigned long long)ps_ecn_count(&t, PS_ECN_CE), ce_rate);
	else
		fprintf(out, " %10s %10s %10s %10s %7s\n", "-", "-", "-", "-", "-");
}

static bool queue_active(const struct ps_report *r, unsigned int q)
{
	int h;

	for (h = 0; h < PS_HOOK_COUNT; h++)
		if (r->cur->hook[h] && r->cur->hook[h][q].packets)
			return true;
	return false;
}

void ps_render_table(FILE *out, const struct ps_report *r, int n)
{
	char feats[64], queues[128], qname[16];
	unsigned int q, idle;
	int i, h;

	for (i = 0; i < n; i++) {
		const struct ps_snapshot *c = r[i].cur;
		const struct ps_meta *m = &c->meta;

		ps_features_format(m->features, feats, sizeof(feats));
		if (m->all_queues)
			snprintf(queues, sizeof(queues), "all %u", m->nqueues);
		else
			ps_queues_format(m->queue_mask, queues, sizeof(queues));
		fprintf(
		    out,
		    "%s%s (ifindex %u): xdp %s, tc %s, features %s, queues %s; attached %.1f s, "
		    "rates over %.2f s\n",
		    i ? "\n" : "", m->ifname, m->ifindex, ps_xdp_mode_name(m->xdp_mode),
		    ps_tc_mode_name(m->tc_mode), feats, queues,
		    (double)(c->mono_ns - m->attach_monotonic_ns) / 1e9, r[i].window_s);
		fprintf(out,
			"%-6s %-10s %-3s %12s %9s %14s %6s %6s %6s %6s %10s %10s %10s %10s %7s\n",
			"QUEUE", "HOOK", "DIR", "PACKETS", "PPS", "BITRATE", "SZ_P50", "SZ_P99",
			"SEGS", "GSO_SZ", "NOT_ECT", "ECT0", "ECT1", "CE", "CE%");
		idle = 0;
		for (q = 0; q < c->nslots; q++) {
			if (!queue_active(&r[i], q)) {
				idle += q < m->nqueues &&
					(m->all_queues || ps_queue_selected(m->queue_mask, q));
				continue;
			}
			ps_queue_label(c, q, qname, sizeof(qname));
			for (h = 0; h < PS_HOOK_COUNT; h++)
				if (c->hook[h])
					row(out, &r[i], h, q, qname);
		}
		for (h = 0; h < PS_HOOK_COUNT; h++)
			if (c->hook[h])
				row(out, &r[i], h, c->nslots, "all");
		if (idle)
			fprintf(out, "(%u measured queue%s without packets not shown)\n", idle,
				idle == 1 ? "" : "s");
		ps_render_echo_table(out, c);
		ps_render_d2s_table(out, c);
		ps_render_txlat_table(out, c);
		ps_render_kernel_table(out, &r[i]);
		ps_render_nic_table(out, c);
		ps_render_cpu_table(out, &r[i]);
		if (queue_active(&r[i], c->nslots - 1))
			fprintf(out,
				"(other: queue unknown, e.g. tc egress before the socket has a TX "
				"queue, or >= %u)\n",
				m->nqueues);
	}
}
