// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The table: per interface a header line, then each family's section. */
#include "stats/render/render.h"

#include "lib/names.h"
#include "lib/queues.h"
#include "stats/families/families.h"

typedef void (*section_fn)(FILE *out, const struct ps_report *r);

/* In this order, each prints nothing when its family has no data. */
static const section_fn sections[] = {
	ps_counters_table, ps_echo_table,    ps_tcp_table,	     ps_flows_table,
	ps_d2s_table,	   ps_sock_table,    ps_txlat_table,	     ps_kernel_table,
	ps_nic_table,	   ps_nic_cpu_table, ps_counters_other_note,
};

void ps_render_table(FILE *out, const struct ps_report *r, int n)
{
	char feats[64], queues[128];
	size_t k;
	int i;

	for (i = 0; i < n; i++) {
		const struct ps_snapshot *c = r[i].cur;
		const struct ps_meta *m = &c->meta;

		ps_features_format(m->features, feats, sizeof(feats));
		if (m->all_queues)
			snprintf(queues, sizeof(queues), "all %u", m->nqueues);
		else
			ps_queues_format(m->queue_mask, queues, sizeof(queues));
		fprintf(out,
			"%s%s (ifindex %u): xdp %s, tc %s, queues %s; attached %.1f s, rates over "
			"%.2f s\n  features %s\n",
			i ? "\n" : "", m->ifname, m->ifindex, ps_xdp_mode_name(m->xdp_mode),
			ps_tc_mode_name(m->tc_mode), queues,
			(double)(c->mono_ns - m->attach_monotonic_ns) / 1e9, r[i].window_s, feats);
		for (k = 0; k < sizeof(sections) / sizeof(sections[0]); k++)
			sections[k](out, &r[i]);
		if (m->features & (PS_F_ICMP | PS_F_TCP | PS_F_D2S | PS_F_SOCK | PS_F_TXLAT))
			fprintf(out,
				"(latency percentiles and MAX: bucket estimates, within 1/16 of "
				"the value; AVG: the exact mean; n<100: too few samples)\n");
	}
}
