// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Prometheus text format 0.0.4 (or the protobuf exposition, prom_pb.h): the build and
 * the interfaces, each family's metrics in the registry's order, then pathscope's own
 * BPF run time. Per queue or per interface: as extra->queue_detail says (prom.h). */
#include "stats/render/render.h"

#include "lib/names.h"
#include "lib/queues.h"
#include "stats/families/families.h"
#include "stats/format/prom.h"
#include "stats/format/prom_pb.h"

/* ---- interfaces, build, BPF run time -------------------------------------- */

static void iface_families(struct ps_prom *p, const struct ps_snapshot *s, int n,
			   const struct ps_prom_extra *x)
{
	char buf[256];
	struct ps_lbl l;
	int i;

	ps_prom_family(
	    p, "pathscope_up", "gauge",
	    "1 while the interface's attachment is live (the programs pathscope attached are "
	    "in place), else 0.");
	if (x && x->ifaces) {
		for (i = 0; i < x->nifaces; i++) {
			char name[sizeof(x->ifaces[i].ifname) + 1];

			snprintf(name, sizeof(name), "%.*s", (int)sizeof(x->ifaces[i].ifname),
				 x->ifaces[i].ifname);
			ps_lbl_reset(&l);
			ps_lbl_add(&l, "iface", name);
			ps_prom_sample_u(p, &l, x->ifaces[i].up);
		}
	} else {
		for (i = 0; i < n; i++) {
			ps_lbl_iface(&l, &s[i]);
			ps_prom_sample_u(p, &l, 1);
		}
	}
	ps_prom_family(p, "pathscope_attached_seconds", "gauge",
		       "Seconds since the interface was attached (counters run since then).");
	for (i = 0; i < n; i++) {
		ps_lbl_iface(&l, &s[i]);
		ps_prom_sample(
		    p, "", &l,
		    ps_prom_fmt_seconds(buf, sizeof(buf),
					s[i].mono_ns > s[i].meta.attach_monotonic_ns
					    ? s[i].mono_ns - s[i].meta.attach_monotonic_ns
					    : 0));
	}
	ps_prom_family(p, "pathscope_attachment_info", "gauge",
		       "What is attached to the interface, as labels; always 1.");
	for (i = 0; i < n; i++) {
		const struct ps_meta *m = &s[i].meta;

		ps_lbl_iface(&l, &s[i]);
		ps_lbl_addu(&l, "ifindex", m->ifindex);
		ps_lbl_add(&l, "xdp_mode", ps_xdp_mode_name(m->xdp_mode));
		ps_lbl_add(&l, "tc_mode", ps_tc_mode_name(m->tc_mode));
		ps_lbl_add(&l, "probe_mode", ps_probe_mode_name(m));
		ps_features_format(m->features, buf, sizeof(buf));
		ps_lbl_add(&l, "features", buf);
		if (m->all_queues)
			snprintf(buf, sizeof(buf), "all");
		else
			ps_queues_format(m->queue_mask, buf, sizeof(buf));
		ps_lbl_add(&l, "queues", buf);
		ps_lbl_addu(&l, "nqueues", m->nqueues);
		ps_prom_sample_u(p, &l, 1);
	}
}

static void bpf_families(struct ps_prom *p, const struct ps_prom_extra *x)
{
	char v[48];
	struct ps_lbl l;
	int i;

	if (!x || x->bpf_stats_enabled < 0)
		return;
	ps_prom_family(
	    p, "pathscope_bpf_stats_enabled", "gauge",
	    "kernel.bpf_stats_enabled: 1 when the kernel counts BPF run time (adds a clock "
	    "read per run).");
	ps_prom_sample_u(p, NULL, x->bpf_stats_enabled ? 1 : 0);
	if (x->bpf_stats_enabled != 1)
		return;
	ps_prom_family(p, "pathscope_bpf_run_seconds_total", "counter",
		       "Run time of each pathscope BPF program (pin name), from bpf_stats.");
	for (i = 0; i < x->nprogs; i++) {
		ps_lbl_reset(&l);
		ps_lbl_add(&l, "iface", x->progs[i].ifname);
		ps_lbl_add(&l, "program", x->progs[i].program);
		ps_prom_sample(p, "", &l,
			       ps_prom_fmt_seconds(v, sizeof(v), x->progs[i].run_time_ns));
	}
	ps_prom_family(p, "pathscope_bpf_runs_total", "counter",
		       "Runs of each pathscope BPF program (pin name), from bpf_stats.");
	for (i = 0; i < x->nprogs; i++) {
		ps_lbl_reset(&l);
		ps_lbl_add(&l, "iface", x->progs[i].ifname);
		ps_lbl_add(&l, "program", x->progs[i].program);
		ps_prom_sample_u(p, &l, x->progs[i].run_cnt);
	}
}

/* Each metric family is written as one group (HELP and TYPE once, then its
 * samples for every interface), as the format requires, and only when it has
 * samples. */
int ps_render_prom(FILE *out, const struct ps_snapshot *snaps, int n,
		   const struct ps_prom_extra *extra)
{
	struct ps_prom p = { .out = out,
			     .queue_detail = extra ? extra->queue_detail : 0,
			     .no_peers = extra && extra->no_peers };
	struct ps_lbl l;
	char abi[16];
	int rc = 0;
	size_t k;

	if (extra && extra->protobuf && !(p.pb = ps_prom_pb_new(out)))
		return -1;
	ps_prom_family(&p, "pathscope_build_info", "gauge",
		       "pathscope's version and map ABI; always 1.");
	ps_lbl_reset(&l);
	ps_lbl_add(&l, "version", extra && extra->version ? extra->version : "unknown");
	snprintf(abi, sizeof(abi), "%u", extra ? extra->abi : (unsigned int)PS_ABI_VERSION);
	ps_lbl_add(&l, "abi", abi);
	ps_prom_sample_u(&p, &l, 1);
	iface_families(&p, snaps, n, extra);
	for (k = 0; k < ps_nfamilies; k++)
		if (ps_families[k]->prom)
			ps_families[k]->prom(&p, snaps, n);
	bpf_families(&p, extra);
	if (p.pb)
		rc = ps_prom_pb_end(p.pb);
	fflush(out);
	return rc;
}
