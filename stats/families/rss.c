// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* RSS beside the flows it explains (feature flows): the NIC's indirection table per
 * RX queue and whether it hashes each flow type on ports (nic/rss.c), so that an
 * alert can name the cause of a hot queue (packaging/alerts.yml, PathscopeRxQueueHotCause). */
#include <linux/ethtool.h>

#include "nic/rss.h"
#include "stats/families/families.h"
#include "stats/format/prom.h"
#include "stats/read/snapshot.h"

static void table_samples(struct ps_prom *p, const struct ps_snapshot *s, int n)
{
	__u32 per_queue[PS_MAX_QUEUES];
	struct ps_lbl l;
	unsigned int q;
	int i;

	for (i = 0; i < n; i++) {
		if (!s[i].rss || !s[i].rss->have_table)
			continue;
		ps_rss_entries_per_queue(s[i].rss, per_queue, s[i].meta.nqueues);
		for (q = 0; q < s[i].meta.nqueues; q++) {
			ps_lbl_queue(&l, &s[i], q);
			ps_prom_sample_u(p, &l, per_queue[q]);
		}
	}
}

static void ports_samples(struct ps_prom *p, const struct ps_snapshot *s, int n)
{
	struct ps_lbl l;
	__u32 f;
	int i, t;

	for (i = 0; i < n; i++)
		for (t = 0; s[i].rss && s[i].rss->have_fields && t < PS_RSS_NFLOW; t++) {
			f = s[i].rss->fields[t];
			if (f == PS_RSS_FIELDS_NA || (f & PS_RXH_DISCARD))
				continue;
			ps_lbl_iface(&l, &s[i]);
			ps_lbl_add(&l, "flow_type", ps_rss_flow_names[t]);
			ps_prom_sample_u(p, &l, (f & (RXH_L4_B_0_1 | RXH_L4_B_2_3)) ? 1 : 0);
		}
}

static void ps_rss_prom(struct ps_prom *p, const struct ps_snapshot *s, int n)
{
	ps_prom_family(p, "pathscope_rss_table_entries", "gauge",
		       "Entries of the NIC's RSS indirection table that point to each RX queue "
		       "(ethtool -x), with feature flows.");
	table_samples(p, s, n);
	ps_prom_family(p, "pathscope_rss_hash_ports", "gauge",
		       "1 when the NIC's RSS hashes this flow type (tcp4, udp4, tcp6, udp6) on its "
		       "ports, 0 on addresses only (ethtool -n IFACE rx-flow-hash), with feature "
		       "flows.");
	ports_samples(p, s, n);
}

static bool rss_on(const struct ps_snapshot *s)
{
	return s->rss;
}

/* Shown in the table and JSON of pathscope nic and flows (stats/render/rss_report.c). */
const struct ps_family ps_family_rss = {
	.name = "rss",
	.features = PS_F_FLOWS, /* read with each snapshot of an attachment with flows */
	.on = rss_on,
	.prom = ps_rss_prom,
};
