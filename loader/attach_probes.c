// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The tracepoint steps of attach: the txlat probes (qdisc sojourn, TX
 * completion), the kernel path probes and the sock probes (the socket read
 * of the samples tc ingress takes), pinned with the rest. */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/liblog.h"
#include "lib/util.h"
#include "loader/attach_probes.h"
#include "loader/kernel_probes.h"
#include "loader/pins.h"
#include "loader/tracepoints.h"
#include "pathscope_sock.skel.h"
#include "pathscope_tc.skel.h"
#include "pathscope_txlat.skel.h"

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

	if (ps_tp_choose_pinned_mode(req, &classic))
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
	ps_lib_log_reset();
	err = pathscope_txlat__load(t);
	if (err)
		return ps_load_error("the txlat probes", err);
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

	if (ps_tp_choose_pinned_mode(req, &classic))
		return -1;
	if (classic)
		st->meta.flags |= PS_META_TRACEPOINTS;
	kp = ps_kernel_probes_start(&st->meta, classic, st->dir);
	ps_kernel_probes_stop(kp); /* the pins hold maps and links */
	return kp ? 0 : -1;
}

const char *const ps_sock_links[PS_SOCK_NLINKS] = { "sock_copy", "sock_queued", "sock_recv" };

/* Socket read probes (probes/pathscope_sock.bpf.c): they share the pending
 * samples and counters of the tc object, which takes the samples. */
int ps_attach_sock(struct ps_attach_state *st, enum ps_probe_request req)
{
	static const char *const shared[] = { "sock_pending", "sock_stats", "sock_armed" };
	struct ps_sock_port_key other = {};
	struct ps_sock_port_stats *zero;
	struct ps_meta *m = &st->meta;
	struct pathscope_sock *k;
	bool classic;
	size_t i;
	int err = 0;

	if (!st->tc)
		return ps_error("feature sock needs the tc programs (no --no-tc)");
	if (ps_tp_choose_pinned_mode(req, &classic))
		return -1;
	if (classic)
		m->flags |= PS_META_TRACEPOINTS;
	st->sock = k = pathscope_sock__open();
	if (!k)
		return ps_error("cannot open the sock probes: %s", strerror(errno));
	const struct ps_tp_prog progs[PS_SOCK_NLINKS] = {
		{ ps_sock_links[0], k->progs.pathscope_sock_copy, k->progs.pathscope_sock_tp_copy },
		{ ps_sock_links[1], k->progs.pathscope_sock_queued,
		  k->progs.pathscope_sock_tp_queued },
		{ ps_sock_links[2], k->progs.pathscope_sock_recv, k->progs.pathscope_sock_tp_recv },
	};
	ps_tp_set_autoload(progs, PS_SOCK_NLINKS, classic);
	k->rodata->ps_ifindex = m->ifindex;
	k->rodata->ps_netns_ino = (__u32)m->netns_ino;
	ps_size_queue_maps(k->obj, m);
	for (i = 0; !err && i < sizeof(shared) / sizeof(shared[0]); i++)
		err = bpf_map__reuse_fd(bpf_object__find_map_by_name(k->obj, shared[i]),
					bpf_object__find_map_fd_by_name(st->tc->obj, shared[i]));
	ps_lib_log_reset();
	if (!err)
		err = pathscope_sock__load(k);
	if (err)
		return ps_load_error("the sock probes", err);
	zero = calloc(1, sizeof(*zero));
	err = zero ? bpf_map_update_elem(bpf_map__fd(k->maps.sock_ports), &other, zero, BPF_NOEXIST)
		   : -ENOMEM;
	free(zero);
	if (!err)
		err = ps_pin_fd(st->dir, "sock_pending", bpf_map__fd(k->maps.sock_pending));
	if (!err)
		err = ps_pin_fd(st->dir, "sock_stats", bpf_map__fd(k->maps.sock_stats));
	if (!err)
		err = ps_pin_fd(st->dir, "sock_hist", bpf_map__fd(k->maps.sock_hist));
	if (!err)
		err = ps_pin_fd(st->dir, "sock_ports", bpf_map__fd(k->maps.sock_ports));
	if (err)
		return ps_error("cannot pin the sock maps under %s: %s", st->dir, strerror(-err));
	return ps_tp_attach(progs, PS_SOCK_NLINKS, classic, st->dir, NULL);
}
