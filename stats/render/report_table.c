// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The table: per interface a header line, then each family's section in the
 * registry's order (stats/families/families.h). */
#include "stats/render/render.h"

#include <string.h>

#include "lib/names.h"
#include "lib/queues.h"
#include "stats/families/families.h"
#include "stats/render/placement_report.h"

/* The features whose families have latency stages: the percentile note. */
static __u32 latency_features(void)
{
	__u32 f = 0;
	size_t k;

	for (k = 0; k < ps_nfamilies; k++)
		if (ps_families[k]->nstages)
			f |= ps_families[k]->features;
	return f;
}

void ps_render_table(FILE *out, const struct ps_report *r, int n)
{
	char feats[128], queues[128];
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
		/* Each family's section (nothing when it has no data), then the
		 * notes. */
		for (k = 0; k < ps_nfamilies; k++) {
			if (ps_families[k]->table)
				ps_families[k]->table(out, &r[i]);
			/* The placement verdict (an analysis, which a family
			 * cannot call) right after the frames by CPU it weighs. */
			if (!strcmp(ps_families[k]->name, "placement"))
				ps_placement_verdicts_print(out, &r[i]);
		}
		for (k = 0; k < ps_nfamilies; k++)
			if (ps_families[k]->table_note)
				ps_families[k]->table_note(out, &r[i]);
		if (m->features & latency_features())
			fprintf(out,
				"(latency percentiles and MAX: bucket estimates, within 1/16 of "
				"the value; AVG: the exact mean; n<100: too few samples)\n");
	}
}
