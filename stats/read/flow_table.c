// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The flows of each RX queue: reading the pinned maps, scaling, intervals,
 * the HyperLogLog estimate (flow_table.h). */
#include "stats/read/flow_table.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader/pins.h"
#include "stats/read/snapshot_types.h"

bool ps_flows_on(const struct ps_snapshot *s)
{
	return s->flows_q && (s->meta.features & PS_F_FLOWS);
}

__u32 ps_flows_sample(const struct ps_snapshot *s)
{
	return s->meta.flow_sample ? s->meta.flow_sample : 1;
}

double ps_hll_estimate(const __u8 *regs, unsigned int m)
{
	double sum = 0, e, alpha = 0.7213 / (1 + 1.079 / m);
	unsigned int j, zeros = 0;

	for (j = 0; j < m; j++) {
		sum += ldexp(1.0, -(int)regs[j]);
		zeros += !regs[j];
	}
	e = alpha * m * m / sum;
	if (e <= 2.5 * m && zeros) /* small range: linear counting */
		e = m * log((double)m / zeros);
	return e;
}

double ps_flows_distinct(const struct ps_snapshot *s, unsigned int q)
{
	__u8 regs[PS_HLL_REGS] = { 0 };
	unsigned int i, j;

	if (!ps_flows_on(s))
		return 0;
	for (i = 0; i < s->nslots; i++) {
		if (q < s->nslots && i != q)
			continue;
		for (j = 0; j < PS_HLL_REGS; j++)
			if (s->flows_q[i].hll[j] > regs[j])
				regs[j] = s->flows_q[i].hll[j];
	}
	return ps_hll_estimate(regs, PS_HLL_REGS);
}

/* Per queue: the CPUs' sampled counts summed, their registers merged by max. */
static int read_flows_q(int fd, struct ps_snapshot *s, int ncpus)
{
	struct ps_flows_qstate *percpu;
	unsigned int j;
	__u32 q;
	int cpu, err = 0;

	percpu = calloc(ncpus, sizeof(*percpu));
	s->flows_q = calloc(s->nslots, sizeof(*s->flows_q));
	if (!percpu || !s->flows_q) {
		free(percpu);
		return -ENOMEM;
	}
	for (q = 0; q < s->nslots && !err; q++) {
		struct ps_flows_qstate *o = &s->flows_q[q];

		if (bpf_map_lookup_elem(fd, &q, percpu)) {
			err = -errno;
			break;
		}
		for (cpu = 0; cpu < ncpus; cpu++) {
			o->packets += percpu[cpu].packets;
			o->bytes += percpu[cpu].bytes;
			o->flows_new += percpu[cpu].flows_new;
			for (j = 0; j < PS_HLL_REGS; j++)
				if (percpu[cpu].hll[j] > o->hll[j])
					o->hll[j] = percpu[cpu].hll[j];
		}
	}
	free(percpu);
	return err;
}

/* Per queue: the CPUs' RX hash type counts summed; nothing (rx_hash NULL)
 * when the map is not pinned or not of this layout. */
static int read_rx_hash(const char *dir, struct ps_snapshot *s, int ncpus)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info), q;
	struct ps_rx_hash_q *percpu;
	int fd, cpu, err = 0;

	fd = ps_pin_open(dir, "flows_rxhash");
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len) || info.max_entries < s->nslots ||
	    info.value_size != sizeof(struct ps_rx_hash_q)) {
		close(fd);
		return 0;
	}
	percpu = calloc(ncpus, sizeof(*percpu));
	s->rx_hash = calloc(s->nslots, sizeof(*s->rx_hash));
	if (!percpu || !s->rx_hash) {
		err = -ENOMEM;
		goto out;
	}
	for (q = 0; q < s->nslots; q++) {
		if (bpf_map_lookup_elem(fd, &q, percpu)) {
			err = -errno;
			break;
		}
		for (cpu = 0; cpu < ncpus; cpu++) {
			s->rx_hash[q].l4 += percpu[cpu].l4;
			s->rx_hash[q].l3 += percpu[cpu].l3;
			s->rx_hash[q].none += percpu[cpu].none;
		}
	}
out:
	if (err) {
		free(s->rx_hash);
		s->rx_hash = NULL;
	}
	free(percpu);
	close(fd);
	return err;
}

static int key_cmp(const void *a, const void *b)
{
	return memcmp(&((const struct ps_flow_row *)a)->key, &((const struct ps_flow_row *)b)->key,
		      sizeof(struct ps_flow_key));
}

/* The whole table. A hash walked while the datapath evicts from it can
 * restart (the previous key gone): a key read twice is kept once. */
static int read_flows(int fd, struct ps_snapshot *s)
{
	struct ps_flow_key key, next;
	struct ps_flow_count v;
	void *prev = NULL;
	unsigned int i, n = 0, steps = 0;

	s->flows = calloc(PS_FLOWS_MAX, sizeof(*s->flows));
	if (!s->flows)
		return -ENOMEM;
	while (n < PS_FLOWS_MAX && steps++ < 4 * PS_FLOWS_MAX &&
	       bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &v))
			continue;
		s->flows[n].key = key;
		s->flows[n].packets = v.packets;
		s->flows[n].bytes = v.bytes;
		n++;
	}
	qsort(s->flows, n, sizeof(*s->flows), key_cmp);
	for (i = 1, s->nflows = n ? 1 : 0; i < n; i++)
		if (key_cmp(&s->flows[i], &s->flows[s->nflows - 1]))
			s->flows[s->nflows++] = s->flows[i];
	return 0;
}

int ps_flows_snapshot_read(const char *dir, struct ps_snapshot *s, int ncpus)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);
	int fd, err;

	fd = ps_pin_open(dir, "flows_q");
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len) || info.max_entries < s->nslots ||
	    info.value_size != sizeof(struct ps_flows_qstate)) {
		close(fd);
		return 0;
	}
	err = read_flows_q(fd, s, ncpus);
	close(fd);
	if (!err)
		err = read_rx_hash(dir, s, ncpus);
	if (!err) {
		fd = ps_pin_open(dir, "flows");
		if (fd >= 0) {
			err = read_flows(fd, s);
			close(fd);
		} else if (fd != -ENOENT) {
			err = fd;
		}
	}
	if (err) {
		free(s->flows_q);
		s->flows_q = NULL;
		free(s->rx_hash);
		s->rx_hash = NULL;
		free(s->flows);
		s->flows = NULL;
		s->nflows = 0;
	}
	return err;
}

static int rows_by_packets(const void *a, const void *b)
{
	const struct ps_flow_row *x = a, *y = b;

	if (x->packets != y->packets)
		return x->packets < y->packets ? 1 : -1;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return key_cmp(a, b);
}

void ps_flows_free(struct ps_flows_q *qs, unsigned int nq)
{
	unsigned int i;

	for (i = 0; qs && i < nq; i++)
		free(qs[i].flows);
	free(qs);
}

/* The interval's part of a count: cur - prev, or all of cur when the entry
 * was evicted and made again in between (cur < prev). */
static __u64 delta(__u64 cur, __u64 prev)
{
	return cur >= prev ? cur - prev : cur;
}

__u64 ps_flows_evicted(const struct ps_snapshot *s, unsigned int q)
{
	__u64 added = 0, held = 0;
	unsigned int i, fq;

	if (!ps_flows_on(s))
		return 0;
	for (i = 0; i < s->nslots; i++)
		if (q == s->nslots || q == i)
			added += s->flows_q[i].flows_new;
	for (i = 0; i < s->nflows; i++) {
		fq = s->flows[i].key.queue < s->nslots ? s->flows[i].key.queue : s->nslots - 1;
		held += q == s->nslots || q == fq;
	}
	return added > held ? added - held : 0;
}

int ps_flows_read(const struct ps_snapshot *cur, const struct ps_snapshot *prev,
		  struct ps_flows_q **qs_out, unsigned int *nq_out)
{
	__u64 n = ps_flows_sample(cur);
	struct ps_flows_q *qs;
	unsigned int i, q;
	bool use_prev = prev && ps_flows_on(prev) && prev->nslots == cur->nslots;

	*qs_out = NULL;
	*nq_out = 0;
	if (!ps_flows_on(cur))
		return -ENOENT;
	qs = calloc(cur->nslots, sizeof(*qs));
	if (!qs)
		return -ENOMEM;
	for (q = 0; q < cur->nslots; q++) {
		struct ps_flows_q *o = &qs[q];

		o->queue = q < cur->meta.nqueues ? q : PS_QUEUE_UNKNOWN;
		o->sample = (__u32)n;
		if (cur->hook[PS_HOOK_XDP]) {
			o->packets = cur->hook[PS_HOOK_XDP][q].packets;
			o->bytes = cur->hook[PS_HOOK_XDP][q].bytes;
			if (use_prev && prev->hook[PS_HOOK_XDP]) {
				o->packets = delta(o->packets, prev->hook[PS_HOOK_XDP][q].packets);
				o->bytes = delta(o->bytes, prev->hook[PS_HOOK_XDP][q].bytes);
			}
		}
		o->sampled = cur->flows_q[q].packets -
			     (use_prev && prev->flows_q[q].packets <= cur->flows_q[q].packets
				  ? prev->flows_q[q].packets
				  : 0);
		if (cur->rx_hash) {
			const struct ps_rx_hash_q *c = &cur->rx_hash[q];
			const struct ps_rx_hash_q *p =
			    use_prev && prev->rx_hash ? &prev->rx_hash[q] : NULL;

			o->rx_hash = true;
			o->rx_hash_l4 = delta(c->l4, p ? p->l4 : 0);
			o->rx_hash_l3 = delta(c->l3, p ? p->l3 : 0);
			o->rx_hash_none = delta(c->none, p ? p->none : 0);
		}
		o->evicted =
		    delta(ps_flows_evicted(cur, q), use_prev ? ps_flows_evicted(prev, q) : 0);
		o->distinct = ps_hll_estimate(cur->flows_q[q].hll, PS_HLL_REGS);
		o->distinct_err = PS_HLL_ERR;
	}
	/* Each flow's part of the interval, into its queue. */
	for (i = 0; i < cur->nflows; i++) {
		const struct ps_flow_row *c = &cur->flows[i], *p = NULL;

		q = c->key.queue < cur->nslots ? c->key.queue : cur->nslots - 1;
		if (use_prev && prev->nflows)
			p = bsearch(c, prev->flows, prev->nflows, sizeof(*c), key_cmp);
		if (delta(c->packets, p ? p->packets : 0) == 0)
			continue;
		if (!(qs[q].nflows & 63)) {
			struct ps_flow_row *r =
			    realloc(qs[q].flows, (qs[q].nflows + 64) * sizeof(*r));

			if (!r) {
				ps_flows_free(qs, cur->nslots);
				return -ENOMEM;
			}
			qs[q].flows = r;
		}
		qs[q].flows[qs[q].nflows].key = c->key;
		qs[q].flows[qs[q].nflows].packets = delta(c->packets, p ? p->packets : 0) * n;
		qs[q].flows[qs[q].nflows].bytes = delta(c->bytes, p ? p->bytes : 0) * n;
		qs[q].nflows++;
	}
	for (q = 0; q < cur->nslots; q++)
		if (qs[q].nflows > 1) /* a queue without flows has none to sort (flows NULL) */
			qsort(qs[q].flows, qs[q].nflows, sizeof(*qs[q].flows), rows_by_packets);
	*qs_out = qs;
	*nq_out = cur->nslots;
	return 0;
}
