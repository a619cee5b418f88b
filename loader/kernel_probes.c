// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The kernel path probes: loaded and pinned with an attachment, or run by check. */
#include "loader/kernel_probes.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader/pins.h"
#include "loader/tracepoints.h"
#include "lib/liblog.h"
#include "lib/util.h"
#include "pathscope_kernel.skel.h"

#define KERNEL_NPROGS PS_KERNEL_NLINKS
#define kernel_links  ps_kernel_links

/* Link pins, in the order of the program table below. */
const char *const ps_kernel_links[PS_KERNEL_NLINKS] = {
	"kern_napi_poll", "kern_gro_entry", "kern_stack",      "kern_start_xmit", "kern_xmit",
	"kern_kfree",	  "kern_xdp_exc",   "kern_sirq_entry", "kern_sirq_exit",
};

/* Map pins, in the order of struct ps_kern_fds. */
static const char *const kernel_maps[] = { "kern_stats", "napi_stats", "napi_queue",
					   "kern_drops", "softirq",    "xdp_exceptions" };
#define KERNEL_NMAPS (sizeof(kernel_maps) / sizeof(kernel_maps[0]))

struct ps_kernel_probes {
	struct pathscope_kernel *skel;
	struct bpf_link *links[KERNEL_NPROGS];
};

static void prog_table(struct pathscope_kernel *k, struct ps_tp_prog *p)
{
	const struct ps_tp_prog t[KERNEL_NPROGS] = {
		{ kernel_links[0], k->progs.pathscope_k_napi_poll,
		  k->progs.pathscope_kt_napi_poll },
		{ kernel_links[1], k->progs.pathscope_k_gro_entry,
		  k->progs.pathscope_kt_gro_entry },
		{ kernel_links[2], k->progs.pathscope_k_stack, k->progs.pathscope_kt_stack },
		{ kernel_links[3], k->progs.pathscope_k_start_xmit,
		  k->progs.pathscope_kt_start_xmit },
		{ kernel_links[4], k->progs.pathscope_k_xmit, k->progs.pathscope_kt_xmit },
		{ kernel_links[5], k->progs.pathscope_k_kfree, k->progs.pathscope_kt_kfree },
		{ kernel_links[6], k->progs.pathscope_k_xdp_exc, k->progs.pathscope_kt_xdp_exc },
		{ kernel_links[7], k->progs.pathscope_k_sirq_entry,
		  k->progs.pathscope_kt_sirq_entry },
		{ kernel_links[8], k->progs.pathscope_k_sirq_exit,
		  k->progs.pathscope_kt_sirq_exit },
	};

	memcpy(p, t, sizeof(t));
}

static void skel_fds(struct pathscope_kernel *k, int *fd)
{
	fd[0] = bpf_map__fd(k->maps.kern_stats);
	fd[1] = bpf_map__fd(k->maps.napi_stats);
	fd[2] = bpf_map__fd(k->maps.napi_queue);
	fd[3] = bpf_map__fd(k->maps.drops);
	fd[4] = bpf_map__fd(k->maps.softirq);
	fd[5] = bpf_map__fd(k->maps.xdp_exceptions);
}

struct ps_kernel_probes *ps_kernel_probes_start(const struct ps_meta *m, bool classic,
						const char *pin_dir)
{
	struct ps_tp_prog progs[KERNEL_NPROGS];
	struct ps_kernel_probes *kp;
	struct pathscope_kernel *k;
	int fd[KERNEL_NMAPS], err;
	unsigned int i;

	kp = calloc(1, sizeof(*kp));
	if (!kp) {
		ps_error("out of memory");
		return NULL;
	}
	kp->skel = k = pathscope_kernel__open();
	if (!k) {
		ps_error("cannot open the kernel probes: %s", strerror(errno));
		goto fail;
	}
	prog_table(k, progs);
	ps_tp_set_autoload(progs, KERNEL_NPROGS, classic);
	k->rodata->ps_ifindex = m->ifindex;
	k->rodata->ps_netns_ino = (__u32)m->netns_ino;
	k->rodata->ps_nqueues = m->nqueues;
	k->rodata->ps_rx_queue_base = m->rx_queue_base;
	bpf_map__set_max_entries(k->maps.kern_stats, m->nqueues + 1);
	ps_lib_log_reset();
	err = pathscope_kernel__load(k);
	if (err) {
		ps_load_error("the kernel probes", err);
		goto fail;
	}
	if (pin_dir) {
		skel_fds(k, fd);
		for (i = 0; i < KERNEL_NMAPS; i++) {
			err = ps_pin_fd(pin_dir, kernel_maps[i], fd[i]);
			if (err) {
				ps_error("cannot pin %s under %s: %s", kernel_maps[i], pin_dir,
					 strerror(-err));
				goto fail;
			}
		}
	}
	if (ps_tp_attach(progs, KERNEL_NPROGS, classic, pin_dir, kp->links))
		goto fail;
	return kp;
fail:
	ps_kernel_probes_stop(kp);
	return NULL;
}

void ps_kernel_probes_fds(const struct ps_kernel_probes *kp, struct ps_kern_fds *fds)
{
	skel_fds(kp->skel, (int *)fds);
}

void ps_kernel_probes_stop(struct ps_kernel_probes *kp)
{
	unsigned int i;

	if (!kp)
		return;
	for (i = 0; i < KERNEL_NPROGS; i++)
		bpf_link__destroy(kp->links[i]);
	pathscope_kernel__destroy(kp->skel);
	free(kp);
}

void ps_kernel_probes_detach_pinned(const char *dir)
{
	ps_tp_detach_pinned(dir, kernel_links, KERNEL_NPROGS);
}

int ps_kern_fds_open(const char *dir, struct ps_kern_fds *fds)
{
	int *fd = (int *)fds;
	unsigned int i;

	for (i = 0; i < KERNEL_NMAPS; i++)
		fd[i] = ps_pin_open(dir, kernel_maps[i]);
	if (fd[0] >= 0)
		return 0;
	ps_kern_fds_close(fds);
	return -ENOENT;
}

void ps_kern_fds_close(struct ps_kern_fds *fds)
{
	int *fd = (int *)fds;
	unsigned int i;

	for (i = 0; i < KERNEL_NMAPS; i++) {
		if (fd[i] >= 0)
			close(fd[i]);
		fd[i] = -1;
	}
}
