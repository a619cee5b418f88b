// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The first hop's step of attach: its probes share the XDP object's maps,
 * and learn which IRQ serves which RX queue from the device's IRQs. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/liblog.h"
#include "lib/util.h"
#include "loader/attach_firsthop.h"
#include "loader/pins.h"
#include "loader/tracepoints.h"
#include "nic/placement.h"
#include "pathscope_firsthop.skel.h"
#include "pathscope_xdp.skel.h"

const char *const ps_firsthop_links[PS_FIRSTHOP_NLINKS] = {
	"fh_irq_entry", "fh_irq_exit", "fh_timer_entry", "fh_timer_exit",
	"fh_raise",	"fh_entry",    "fh_exit",	 "fh_poll",
};

/* Fill fh_irqs with each RX queue's own IRQ: the count of queues mapped
 * (0 for a device without per-queue IRQs, such as veth). */
static int map_irqs(int fd, const struct ps_meta *m)
{
	struct ps_nic_placement *p = calloc(1, sizeof(*p));
	unsigned int i;
	int n = 0;

	if (!p)
		return -ENOMEM;
	if (ps_nic_read_placement("", m->ifname, p) == 0)
		for (i = 0; i < p->nrx && i < m->nqueues; i++) {
			__u32 irq = (__u32)p->rx[i].irq, q1 = i + 1;

			if (p->rx[i].irq < 0)
				continue;
			if (bpf_map_update_elem(fd, &irq, &q1, BPF_ANY) == 0)
				n++;
		}
	free(p);
	return n;
}

/* Each CPU's ksoftirqd pid into its fh_cpu value (the probes compare pids):
 * the tasks named ksoftirqd/N under /proc. 0, or -errno. */
static int map_ksoftirqd(int fd)
{
	int ncpus = libbpf_num_possible_cpus(), err = 0, cpu;
	size_t size = (sizeof(struct ps_fh_cpu) + 7) / 8 * 8;
	struct dirent *d;
	char path[300], comm[32];
	__u32 zero = 0;
	DIR *proc;
	FILE *f;
	void *v;

	if (ncpus <= 0)
		return ncpus ? ncpus : -EINVAL;
	v = calloc((size_t)ncpus, size);
	proc = opendir("/proc");
	if (!v || !proc) {
		err = -errno;
		goto out;
	}
	while ((d = readdir(proc))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && sscanf(comm, "ksoftirqd/%d", &cpu) == 1 &&
		    cpu >= 0 && cpu < ncpus)
			((struct ps_fh_cpu *)((char *)v + (size_t)cpu * size))->ksoftirqd_pid =
			    (__u32)strtoul(d->d_name, NULL, 10);
		fclose(f);
	}
	err = bpf_map_update_elem(fd, &zero, v, BPF_ANY) ? -errno : 0;
out:
	if (proc)
		closedir(proc);
	free(v);
	return err;
}

int ps_attach_firsthop(struct ps_attach_state *st, enum ps_probe_request req)
{
	static const char *const shared[] = { "fh_stats", "fh_cpu", "fh_thread" };
	struct ps_meta *m = &st->meta;
	struct pathscope_firsthop *k;
	struct ps_tp_prog progs[PS_FIRSTHOP_NLINKS];
	bool classic;
	size_t i;
	int err = 0;

	if (!st->xdp)
		return ps_error("feature firsthop needs the XDP program (no --no-xdp)");
	if (ps_tp_choose_pinned_mode(req, &classic))
		return -1;
	if (classic)
		m->flags |= PS_META_TRACEPOINTS;
	k = pathscope_firsthop__open();
	if (!k)
		return ps_error("cannot open the firsthop probes: %s", strerror(errno));
	const struct ps_tp_prog t[PS_FIRSTHOP_NLINKS] = {
		{ ps_firsthop_links[0], k->progs.pathscope_fh_irq_entry,
		  k->progs.pathscope_fht_irq_entry },
		{ ps_firsthop_links[1], k->progs.pathscope_fh_irq_exit,
		  k->progs.pathscope_fht_irq_exit },
		{ ps_firsthop_links[2], k->progs.pathscope_fh_timer_entry,
		  k->progs.pathscope_fht_timer_entry },
		{ ps_firsthop_links[3], k->progs.pathscope_fh_timer_exit,
		  k->progs.pathscope_fht_timer_exit },
		{ ps_firsthop_links[4], k->progs.pathscope_fh_raise, k->progs.pathscope_fht_raise },
		{ ps_firsthop_links[5], k->progs.pathscope_fh_entry, k->progs.pathscope_fht_entry },
		{ ps_firsthop_links[6], k->progs.pathscope_fh_exit, k->progs.pathscope_fht_exit },
		{ ps_firsthop_links[7], k->progs.pathscope_fh_poll, k->progs.pathscope_fht_poll },
	};
	memcpy(progs, t, sizeof(t));
	ps_tp_set_autoload(progs, PS_FIRSTHOP_NLINKS, classic);
	k->rodata->ps_fh_sirq_every = m->softirq_sample;
	ps_size_queue_maps(k->obj, m);
	for (i = 0; !err && i < sizeof(shared) / sizeof(shared[0]); i++)
		err = bpf_map__reuse_fd(bpf_object__find_map_by_name(k->obj, shared[i]),
					bpf_object__find_map_fd_by_name(st->xdp->obj, shared[i]));
	ps_lib_log_reset();
	if (!err)
		err = pathscope_firsthop__load(k);
	if (err) {
		pathscope_firsthop__destroy(k);
		return ps_load_error("the firsthop probes", err);
	}
	m->fh_irqs = (__u16)map_irqs(bpf_map__fd(k->maps.fh_irqs), m);
	err = map_ksoftirqd(bpf_object__find_map_fd_by_name(k->obj, "fh_cpu"));
	if (err) {
		pathscope_firsthop__destroy(k);
		return ps_error("cannot find each CPU's ksoftirqd: %s", strerror(-err));
	}
	for (i = 0; !err && i < sizeof(shared) / sizeof(shared[0]); i++)
		err = ps_pin_fd(st->dir, shared[i],
				bpf_object__find_map_fd_by_name(k->obj, shared[i]));
	if (!err)
		err = ps_pin_fd(st->dir, "fh_irqs", bpf_map__fd(k->maps.fh_irqs));
	if (err) {
		pathscope_firsthop__destroy(k);
		return ps_error("cannot pin the firsthop maps under %s: %s", st->dir,
				strerror(-err));
	}
	err = ps_tp_attach(progs, PS_FIRSTHOP_NLINKS, classic, st->dir, NULL);
	pathscope_firsthop__destroy(k); /* the pins hold maps and links */
	return err;
}
