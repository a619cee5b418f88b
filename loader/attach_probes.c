// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The tracepoint steps of attach: the txlat probes (qdisc sojourn, TX
 * completion) and the kernel path probes, pinned with the rest. */
#include <errno.h>
#include <string.h>

#include "lib/util.h"
#include "loader/attach_steps.h"
#include "loader/kernel_probes.h"
#include "loader/pins.h"
#include "loader/tracepoints.h"

/* The tracepoint links of the txlat probes, pinned under these names. */
const char *const ps_txlat_links[PS_TXLAT_NLINKS] = { "txlat_queue", "txlat_start", "txlat_consume",
						      "txlat_kfree" };

/* qdisc sojourn and TX completion probes (probes/pathscope_txlat.bpf.c). */
int ps_attach_txlat(struct ps_attach_state *st, enum ps_probe_request req)
{
	struct ps_meta *m = &st->meta;
	struct pathscope_txlat *t;
	bool classic;
	int err;

	if (ps_tp_choose_mode(req, &classic))
		return -1;
	if (classic)
		m->flags |= PS_META_TRACEPOINTS;
	st->txlat = t = pathscope_txlat__open();
	if (!t)
		return ps_error("cannot open the txlat probes: %s", strerror(errno));
	const struct ps_tp_prog progs[PS_TXLAT_NLINKS] = {
		{ ps_txlat_links[0], t->progs.pathscope_tx_queue, t->progs.pathscope_tp_queue },
		{ ps_txlat_links[1], t->progs.pathscope_tx_start, t->progs.pathscope_tp_start },
		{ ps_txlat_links[2], t->progs.pathscope_tx_consume, t->progs.pathscope_tp_consume },
		{ ps_txlat_links[3], t->progs.pathscope_tx_kfree, t->progs.pathscope_tp_kfree },
	};
	ps_tp_set_autoload(progs, PS_TXLAT_NLINKS, classic);
	t->rodata->ps_ifindex = m->ifindex;
	t->rodata->ps_netns_ino = (__u32)m->netns_ino;
	t->rodata->ps_nqueues = m->nqueues;
	t->rodata->ps_completion = !(m->flags & PS_META_NO_COMPLETION);
	t->rodata->ps_sample_every = m->tx_sample_every;
	ps_size_queue_maps(t->obj, m);
	err = pathscope_txlat__load(t);
	if (err)
		return ps_error("cannot load the txlat probes: %s (PATHSCOPE_DEBUG=1 shows the "
				"verifier log)",
				strerror(-err));
	err = ps_pin_fd(st->dir, "txlat_stats", bpf_map__fd(t->maps.txlat_stats));
	if (!err)
		err = ps_pin_fd(st->dir, "tx_inflight", bpf_map__fd(t->maps.tx_inflight));
	if (err)
		return ps_error("cannot pin txlat maps under %s: %s", st->dir, strerror(-err));
	return ps_tp_attach(progs, PS_TXLAT_NLINKS, classic, st->dir, NULL);
}

/* Kernel path probes (probes/pathscope_kernel.bpf.c), pinned with the rest. */
int ps_attach_kernel(struct ps_attach_state *st, enum ps_probe_request req)
{
	struct ps_kernel_probes *kp;
	bool classic;

	if (ps_tp_choose_mode(req, &classic))
		return -1;
	if (classic)
		st->meta.flags |= PS_META_TRACEPOINTS;
	kp = ps_kernel_probes_start(&st->meta, classic, st->dir);
	ps_kernel_probes_stop(kp); /* the pins hold maps and links */
	return kp ? 0 : -1;
}
