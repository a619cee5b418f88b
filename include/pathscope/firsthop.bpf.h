/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The first hop at XDP (feature firsthop, BPF only): each frame marks its
 * queue in the CPU's poll; in the runs timed, 1 frame in PS_FH_PLACE_EVERY(N)
 * gives its place in the run (about 1 in PS_FH_EVERY of all frames). */
#ifndef PATHSCOPE_FIRSTHOP_BPF_H
#define PATHSCOPE_FIRSTHOP_BPF_H

#include "count.bpf.h"

PS_PER_QUEUE_MAP(fh_stats, struct ps_fh_qstats);

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ps_fh_cpu);
} fh_cpu SEC(".maps");

/* PS_FH_PLACE_EVERY(N) of attach --softirq-sample N (the loader sets it). */
const volatile __u32 ps_fh_place_every = PS_FH_PLACE_EVERY(PS_FH_SIRQ_DEFAULT);

/* Per RX queue slot, all CPUs: its first IRQ since its last poll (abi.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct ps_fh_thread);
} fh_thread SEC(".maps");

/* The first frame of a poll outside a softirq (a NAPI thread, or a busy
 * poll): the wait since the queue's first IRQ not yet taken, kept in the
 * CPU's state for the end of the poll, which knows a thread from a busy
 * poll. One clock read per such poll; none in softirq polls. */
static __always_inline void ps_firsthop_thread_first(struct ps_fh_cpu *c, __u32 slot)
{
	struct ps_fh_thread *t = bpf_map_lookup_elem(&fh_thread, &slot);
	__u64 irq, now;

	if (!t)
		return;
	irq = t->irq_ns;
	if (irq == t->taken_ns)
		return;
	t->taken_ns = irq;
	now = bpf_ktime_get_ns();
	if (now < irq)
		return;
	c->thread_wait_ns = now - irq;
	c->thread_timed = 1;
}

/* XDP, every frame of a measured queue: the probe of napi:napi_poll counts
 * the poll for this slot when it ends. Inside a timed NET_RX run (the only
 * ones whose start is known), 1 frame in ps_fh_place_every per CPU adds the
 * time since the run began: the frames and polls ahead of it. */
static __always_inline void ps_firsthop_xdp(__u32 slot)
{
	struct ps_fh_qstats *s;
	struct ps_fh_cpu *c;
	__u32 zero = 0;
	__u64 d;

	c = bpf_map_lookup_elem(&fh_cpu, &zero);
	if (!c)
		return;
	if (c->poll_slot1 != slot + 1) {
		c->poll_slot1 = slot + 1;
		if (!c->in_run)
			ps_firsthop_thread_first(c, slot);
	}
	if (!c->run_ns)
		return;
	if (c->place_skip) {
		c->place_skip--;
		return;
	}
	c->place_skip = ps_fh_place_every - 1;
	s = bpf_map_lookup_elem(&fh_stats, &slot);
	if (!s)
		return;
	d = bpf_ktime_get_ns() - c->run_ns;
	s->sampled++;
	s->place_sum_ns += d;
	s->place_hist[ps_hist_bucket(d, PS_LAT_BUCKETS)]++;
}

/* The NIC's RX timestamp of the frame (Linux 6.3; only a device-bound
 * program may call it: pathscope_xdp_rxhash). */
extern int bpf_xdp_metadata_rx_timestamp(const struct xdp_md *ctx, __u64 *timestamp) __ksym __weak;

#define PS_ENODATA 61

/* The device-bound program, 1 frame in PS_FH_EVERY of each queue and CPU:
 * the NIC's timestamp against CLOCK_TAI now. */
static __always_inline void ps_firsthop_wire(struct xdp_md *ctx, const struct ps_qstats *q,
					     __u32 slot)
{
	struct ps_fh_qstats *s;
	__u64 ts = 0, now;
	int err;

	if (q->packets % PS_FH_EVERY)
		return;
	s = bpf_map_lookup_elem(&fh_stats, &slot);
	if (!s)
		return;
	err = bpf_xdp_metadata_rx_timestamp(ctx, &ts);
	if (err || !ts) {
		if (err == -PS_ENODATA || !err)
			s->hw_nodata++;
		else
			s->hw_unsupported++;
		return;
	}
	now = bpf_ktime_get_tai_ns();
	s->hw_stamped++;
	if (now < ts) {
		s->hw_ahead++;
		return;
	}
	s->wire_sum_ns += now - ts;
	s->wire_hist[ps_hist_bucket(now - ts, PS_LAT_BUCKETS)]++;
}

#endif /* PATHSCOPE_FIRSTHOP_BPF_H */
