// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Read the maps of the kernel path probes (feature kernel), and the window between two reads. */
#include "stats/read/kernel_path.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stats/read/percpu.h"

static int read_queues(int fd, struct ps_kern_snapshot *k, void *percpu, int ncpus)
{
	__u32 q;
	int err;

	k->q = calloc(k->nslots, sizeof(*k->q));
	if (!k->q)
		return -ENOMEM;
	for (q = 0; q < k->nslots; q++) {
		err = ps_percpu_sum(fd, &q, percpu, sizeof(*k->q), ncpus, &k->q[q]);
		if (err)
			return err;
	}
	return 0;
}

static int read_napi(const struct ps_kern_fds *fds, struct ps_kern_snapshot *k, void *percpu,
		     int ncpus)
{
	struct ps_napi_queue nq;
	__u32 key, *prev = NULL;
	struct ps_napi_entry *e;

	k->napi = calloc(PS_NAPI_MAX, sizeof(*k->napi));
	if (!k->napi)
		return -ENOMEM;
	while (k->nnapi < PS_NAPI_MAX && bpf_map_get_next_key(fds->napi, prev, &key) == 0) {
		e = &k->napi[k->nnapi];
		if (ps_percpu_sum(fds->napi, &key, percpu, sizeof(e->s), ncpus, &e->s) == 0) {
			e->id = key;
			e->queue = bpf_map_lookup_elem(fds->napi_queue, &key, &nq) == 0
				       ? nq.queue
				       : PS_QUEUE_UNKNOWN;
			k->nnapi++;
		}
		prev = &e->id;
		if (!e->id) /* entry gone meanwhile: restart after the last kept */
			prev = k->nnapi ? &k->napi[k->nnapi - 1].id : NULL;
	}
	return 0;
}

static int read_drops(int fd, struct ps_kern_snapshot *k)
{
	struct ps_drop_key key, *prev = NULL;
	struct ps_drop_entry *e;

	k->drops = calloc(PS_DROPS_MAX, sizeof(*k->drops));
	if (!k->drops)
		return -ENOMEM;
	while (k->ndrops < PS_DROPS_MAX && bpf_map_get_next_key(fd, prev, &key) == 0) {
		e = &k->drops[k->ndrops];
		e->key = key;
		if (bpf_map_lookup_elem(fd, &key, &e->count) == 0)
			k->ndrops++;
		prev = &e->key;
	}
	return 0;
}

int ps_kern_read(const struct ps_kern_fds *fds, unsigned int nslots, struct ps_kern_snapshot *k)
{
	int ncpus = libbpf_num_possible_cpus(), err;
	__u32 zero = 0, a;
	void *percpu;

	memset(k, 0, sizeof(*k));
	if (ncpus <= 0)
		return -EINVAL;
	k->nslots = nslots;
	k->ncpus = ncpus;
	/* The largest per-CPU value read here. */
	percpu = calloc(ncpus, sizeof(struct ps_kern_qstats) + sizeof(struct ps_softirq_cpu) +
				   sizeof(struct ps_napi_stats));
	k->softirq = calloc(ncpus, sizeof(*k->softirq));
	if (!percpu || !k->softirq) {
		free(percpu);
		ps_kern_free(k);
		return -ENOMEM;
	}
	err = read_queues(fds->stats, k, percpu, ncpus);
	if (!err)
		err = read_napi(fds, k, percpu, ncpus);
	if (!err)
		err = read_drops(fds->drops, k);
	if (!err && bpf_map_lookup_elem(fds->softirq, &zero, k->softirq))
		err = -errno;
	for (a = 0; a < PS_XDP_ACTIONS && !err; a++)
		err = ps_percpu_sum(fds->xdp_exc, &a, percpu, sizeof(__u64), ncpus, &k->xdp_exc[a]);
	free(percpu);
	if (err)
		ps_kern_free(k);
	return err;
}

void ps_kern_free(struct ps_kern_snapshot *k)
{
	free(k->q);
	free(k->napi);
	free(k->drops);
	free(k->softirq);
	memset(k, 0, sizeof(*k));
}

int ps_kern_window(const struct ps_kern_snapshot *cur, const struct ps_kern_snapshot *prev,
		   struct ps_kern_snapshot *out)
{
	unsigned int i, j;

	memset(out, 0, sizeof(*out));
	out->nslots = cur->nslots;
	out->ncpus = cur->ncpus;
	out->nnapi = cur->nnapi;
	out->ndrops = cur->ndrops;
	out->q = calloc(cur->nslots, sizeof(*out->q));
	out->napi = calloc(cur->nnapi + 1, sizeof(*out->napi));
	out->drops = calloc(cur->ndrops + 1, sizeof(*out->drops));
	out->softirq = calloc(cur->ncpus, sizeof(*out->softirq));
	if (!out->q || !out->napi || !out->drops || !out->softirq) {
		ps_kern_free(out);
		return -ENOMEM;
	}
	for (i = 0; i < cur->nslots; i++)
		ps_u64s_sub(&out->q[i], &cur->q[i], i < prev->nslots ? &prev->q[i] : &out->q[i],
			    sizeof(out->q[i]));
	for (i = 0; i < cur->nnapi; i++) {
		out->napi[i] = cur->napi[i];
		for (j = 0; j < prev->nnapi; j++)
			if (prev->napi[j].id == cur->napi[i].id)
				ps_u64s_sub(&out->napi[i].s, &cur->napi[i].s, &prev->napi[j].s,
					    sizeof(out->napi[i].s));
		out->napi[i].s.budget = cur->napi[i].s.budget; /* a value, not a count */
	}
	for (i = 0; i < cur->ndrops; i++) {
		out->drops[i] = cur->drops[i];
		for (j = 0; j < prev->ndrops; j++)
			if (!memcmp(&prev->drops[j].key, &cur->drops[i].key,
				    sizeof(cur->drops[i].key)))
				out->drops[i].count =
				    cur->drops[i].count >= prev->drops[j].count
					? cur->drops[i].count - prev->drops[j].count
					: 0;
	}
	for (i = 0; i < cur->ncpus; i++)
		ps_u64s_sub(&out->softirq[i], &cur->softirq[i],
			    i < prev->ncpus ? &prev->softirq[i] : &out->softirq[i],
			    sizeof(out->softirq[i]));
	ps_u64s_sub(out->xdp_exc, cur->xdp_exc, prev->xdp_exc, sizeof(out->xdp_exc));
	return 0;
}

__u64 ps_kern_drops_sum(const struct ps_kern_snapshot *k, int dir, __u32 queue)
{
	__u64 n = 0;
	unsigned int i;

	for (i = 0; i < k->ndrops; i++)
		if ((dir < 0 || k->drops[i].key.dir == (__u32)dir) &&
		    (queue == PS_ANY_QUEUE || k->drops[i].key.queue == queue))
			n += k->drops[i].count;
	return n;
}

unsigned int ps_kern_napi_sum(const struct ps_kern_snapshot *k, __u32 queue,
			      struct ps_napi_stats *out)
{
	unsigned int i, n = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < k->nnapi; i++) {
		if (queue != PS_ANY_QUEUE && k->napi[i].queue != queue)
			continue;
		ps_u64s_add(out, &k->napi[i].s, sizeof(*out));
		out->budget = k->napi[i].s.budget;
		n++;
	}
	return n;
}
