// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "reader.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../loader/iface.h"
#include "../loader/pins.h"
#include "../loader/util.h"

static const char *const hook_pins[PS_HOOK_COUNT] = {
	[PS_HOOK_XDP] = "xdp_stats",
	[PS_HOOK_TC_INGRESS] = "tci_stats",
	[PS_HOOK_TC_EGRESS] = "tce_stats",
};

#define U64S (sizeof(struct ps_qstats) / sizeof(__u64))

void ps_qstats_add(struct ps_qstats *dst, const struct ps_qstats *src)
{
	__u64 *d = (__u64 *)dst;
	const __u64 *s = (const __u64 *)src;
	size_t i;

	for (i = 0; i < U64S; i++)
		d[i] += s[i];
}

void ps_qstats_sub(struct ps_qstats *out, const struct ps_qstats *a, const struct ps_qstats *b)
{
	const __u64 *x = (const __u64 *)a, *y = (const __u64 *)b;
	__u64 *o = (__u64 *)out;
	size_t i;

	for (i = 0; i < U64S; i++)
		o[i] = x[i] >= y[i] ? x[i] - y[i] : 0;
}

/* Sum one per-CPU slot into out. */
static int read_slot(int fd, __u32 key, struct ps_qstats *percpu, int ncpus, struct ps_qstats *out)
{
	int cpu;

	if (bpf_map_lookup_elem(fd, &key, percpu))
		return -errno;
	memset(out, 0, sizeof(*out));
	for (cpu = 0; cpu < ncpus; cpu++)
		ps_qstats_add(out, &percpu[cpu]);
	return 0;
}

int ps_snapshot_read(const char *dir, struct ps_snapshot *s)
{
	int ncpus = libbpf_num_possible_cpus(), h, fd, err = 0;
	struct ps_qstats *percpu;
	__u32 q;

	memset(s, 0, sizeof(*s));
	snprintf(s->dir, sizeof(s->dir), "%s", dir);
	if (ncpus <= 0)
		return -EINVAL;
	err = ps_meta_read(dir, &s->meta);
	if (err)
		return err;
	s->nslots = s->meta.nqueues + 1;
	percpu = calloc(ncpus, sizeof(*percpu)); /* sizeof is a multiple of 8 */
	if (!percpu)
		return -ENOMEM;
	s->mono_ns = ps_now_ns(CLOCK_MONOTONIC);
	s->real_ns = ps_now_ns(CLOCK_REALTIME);
	for (h = 0; h < PS_HOOK_COUNT && !err; h++) {
		fd = ps_pin_open(dir, hook_pins[h]);
		if (fd == -ENOENT)
			continue;
		if (fd < 0) {
			err = fd;
			break;
		}
		s->hook[h] = calloc(s->nslots, sizeof(struct ps_qstats));
		if (!s->hook[h])
			err = -ENOMEM;
		for (q = 0; q < s->nslots && !err; q++)
			err = read_slot(fd, q, percpu, ncpus, &s->hook[h][q]);
		close(fd);
	}
	free(percpu);
	if (err)
		ps_snapshot_free(s);
	return err;
}

void ps_snapshot_free(struct ps_snapshot *s)
{
	int h;

	for (h = 0; h < PS_HOOK_COUNT; h++) {
		free(s->hook[h]);
		s->hook[h] = NULL;
	}
}

int ps_snapshot_dir(const char *ifname, char *dir, size_t len)
{
	struct ps_iface ifc;
	int err = ps_iface_get(ifname, 0, &ifc);

	if (err)
		return err;
	ps_pin_dir(dir, len, ps_netns_ino(), ifc.ifindex);
	return access(dir, F_OK) ? -ENOENT : 0;
}

void ps_snapshot_total(const struct ps_snapshot *s, int hook, struct ps_qstats *out)
{
	unsigned int q;

	memset(out, 0, sizeof(*out));
	if (!s->hook[hook])
		return;
	for (q = 0; q < s->nslots; q++)
		ps_qstats_add(out, &s->hook[hook][q]);
}
