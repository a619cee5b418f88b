// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Where each RX queue runs: its XDP frames by the CPU that handled them, from
 * the per-CPU counters the XDP hook keeps anyway (no work per packet). */
#include <stdlib.h>

#include "stats/families/families.h"
#include "stats/format/json.h"
#include "stats/format/table.h"

#define SHOWN_CPUS 6 /* on a table row; the rest summed as "+N more" */

static bool placement_on(const struct ps_snapshot *s)
{
	return s->xdp_cpu && s->ncpus > 0;
}

void ps_placement_window(const struct ps_report *r, unsigned int q, __u64 *out)
{
	const struct ps_snapshot *c = r->cur, *p = r->prev;
	bool use_prev = p && p->xdp_cpu && p->ncpus == c->ncpus && p->nslots == c->nslots;
	unsigned int i;
	int cpu;

	for (cpu = 0; cpu < c->ncpus; cpu++) {
		out[cpu] = 0;
		for (i = 0; i < c->nslots; i++) {
			size_t k = (size_t)i * c->ncpus + cpu;
			__u64 v = c->xdp_cpu[k], b = use_prev ? p->xdp_cpu[k] : 0;

			if (q == c->nslots || q == i)
				out[cpu] += v >= b ? v - b : v;
		}
	}
}

static bool placement_slot_active(const struct ps_snapshot *s, unsigned int q)
{
	int cpu;

	for (cpu = 0; placement_on(s) && q < s->nslots && cpu < s->ncpus; cpu++)
		if (s->xdp_cpu[(size_t)q * s->ncpus + cpu])
			return true;
	return false;
}

/* One row: the queue's packets and its CPUs by share, heaviest first. */
static void row(FILE *out, const struct ps_snapshot *s, const char *qname, __u64 *by_cpu)
{
	__u64 all = 0, rest = 0;
	int cpu, shown, best, more = 0;

	for (cpu = 0; cpu < s->ncpus; cpu++)
		all += by_cpu[cpu];
	if (!all)
		return;
	fprintf(out, "%-6s %10llu ", qname, (unsigned long long)all);
	for (shown = 0;; shown++) {
		for (cpu = 0, best = -1; cpu < s->ncpus; cpu++)
			if (by_cpu[cpu] && (best < 0 || by_cpu[cpu] > by_cpu[best]))
				best = cpu;
		if (best < 0)
			break;
		if (shown < SHOWN_CPUS)
			fprintf(out, " cpu%d %.1f%%", best, 100.0 * by_cpu[best] / all);
		else
			rest += by_cpu[best], more++;
		by_cpu[best] = 0;
	}
	if (more)
		fprintf(out, " +%d more %.1f%%", more, 100.0 * rest / all);
	fputc('\n', out);
}

static void placement_table(FILE *out, const struct ps_report *r)
{
	const struct ps_snapshot *s = r->cur;
	__u64 *by_cpu;
	unsigned int q;
	char qname[16];

	if (!placement_on(s) || !(by_cpu = calloc(s->ncpus, sizeof(*by_cpu))))
		return;
	ps_placement_window(r, s->nslots, by_cpu);
	for (q = 0; q < (unsigned int)s->ncpus && !by_cpu[q]; q++)
		;
	if (q < (unsigned int)s->ncpus) {
		fprintf(out, "RX QUEUES BY CPU: the XDP frames of each RX queue by the CPU that "
			     "handled them\n");
		fprintf(out, "%-6s %10s  %s\n", "RXQ", "PACKETS", "CPUS");
		for (q = 0; q < s->nslots; q++) {
			ps_queue_label(s, q, qname, sizeof(qname));
			ps_placement_window(r, q, by_cpu);
			row(out, s, qname, by_cpu);
		}
	}
	free(by_cpu);
}

/* {"CPU": packets, ...} of the CPUs that handled any. */
static json_object *placement_json(const struct ps_report *r, unsigned int q)
{
	const struct ps_snapshot *s = r->cur;
	json_object *o = json_object_new_object();
	__u64 *by_cpu = calloc(s->ncpus, sizeof(*by_cpu));
	char key[16];
	int cpu;

	if (!by_cpu)
		return o;
	ps_placement_window(r, q, by_cpu);
	for (cpu = 0; cpu < s->ncpus; cpu++)
		if (by_cpu[cpu]) {
			snprintf(key, sizeof(key), "%d", cpu);
			ps_json_add_u64(o, key, by_cpu[cpu]);
		}
	free(by_cpu);
	return o;
}

/* Per interface and CPU, not per queue too: queues x CPUs series would pass
 * any budget (64 x 64); the JSON has them per queue. */
static void placement_prom(struct ps_prom *p, const struct ps_snapshot *s, int n)
{
	struct ps_lbl l;
	__u64 v;
	int i, cpu;
	unsigned int q;

	ps_prom_family(p, "pathscope_xdp_cpu_packets_total", "counter",
		       "Frames at XDP (every RX queue) by the CPU that handled them.");
	for (i = 0; i < n; i++)
		for (cpu = 0; placement_on(&s[i]) && cpu < s[i].ncpus; cpu++) {
			for (q = 0, v = 0; q < s[i].nslots; q++)
				v += s[i].xdp_cpu[(size_t)q * s[i].ncpus + cpu];
			if (!v)
				continue;
			ps_lbl_iface(&l, &s[i]);
			ps_lbl_addu(&l, "cpu", (unsigned int)cpu);
			ps_prom_sample_u(p, &l, v);
		}
}

const struct ps_family ps_family_placement = {
	.name = "placement",
	.on = placement_on,
	.slot_active = placement_slot_active,
	.table = placement_table,
	.json_key = "cpus",
	.queue_json = placement_json,
	.prom = placement_prom,
};
