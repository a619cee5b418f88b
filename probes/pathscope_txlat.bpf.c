// SPDX-License-Identifier: GPL-2.0
/* TX path latency of one interface, per TX queue (see abi.h): qdisc sojourn and driver
 * TX completion, from tracepoints keyed by skb address, filtered on the loader's ifindex
 * and netns; tp_btf (cheaper) or classic tracepoints (the fallback), one set loaded. */
#include "pathscope/kernel_types.bpf.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "pathscope/abi.h"
#include "pathscope/kread.bpf.h"

const volatile __u32 ps_nqueues = 1;
const volatile __u32 ps_completion = 1;	  /* 0: the driver hands skbs on (veth) */
const volatile __u32 ps_sample_every = 1; /* time 1 in N skbs (per CPU) */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} tx_tick SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, PS_TX_INFLIGHT_MAX);
	__type(key, __u64);
	__type(value, struct ps_tx_inflight);
} tx_inflight SEC(".maps");

/* How many entries tx_inflight may hold: raised before an insert, lowered
 * after a delete that removed one, so never below the true number (entries
 * the LRU evicts are not subtracted: that only costs lookups). A free while
 * it is 0 is no skb of ours: no lookup. consume_skb fires for every skb the
 * host frees, twice per packet on a veth pair, and the lookup that misses
 * cost about 40 ns each (live, bpf_stats). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} tx_entries SEC(".maps");

static __always_inline __u64 *ps_tx_entries(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&tx_entries, &zero);
}

/* Remove the entry of skb address key, if there is one. */
static __always_inline void ps_tx_forget(__u64 key, __u64 *n)
{
	if (!bpf_map_delete_elem(&tx_inflight, &key))
		__sync_fetch_and_add(n, -1);
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2); /* set by the loader: nqueues + 1 */
	__type(key, __u32);
	__type(value, struct ps_txlat_qstats);
} txlat_stats SEC(".maps");

static __always_inline struct ps_txlat_qstats *ps_txlat_slot(__u32 q)
{
	__u32 key = q < ps_nqueues ? q : ps_nqueues;

	return bpf_map_lookup_elem(&txlat_stats, &key);
}

static __always_inline void ps_tx_queued(struct sk_buff *skb, int btf)
{
	struct ps_tx_inflight e = {};
	struct ps_txlat_qstats *s;
	__u64 key = (__u64)skb;

	__u32 zero = 0;
	__u64 *tick, *n;

	if (!ps_our_dev(PS_KREAD(btf, skb, dev), btf))
		return;
	n = ps_tx_entries();
	if (!n)
		return;
	e.queue = PS_KREAD(btf, skb, queue_mapping);
	s = ps_txlat_slot(e.queue);
	if (s)
		s->queued++;
	if (ps_sample_every > 1) {
		tick = bpf_map_lookup_elem(&tx_tick, &zero);
		if (!tick || ++*tick % ps_sample_every) {
			/* Not timed: no clock read, no update. An entry left at this
			 * address by an earlier skb whose end we never saw must not
			 * time this one. */
			if (*n)
				ps_tx_forget(key, n);
			return;
		}
	}
	e.ts_ns = bpf_ktime_get_ns();
	e.stage = PS_TX_QUEUED;
	__sync_fetch_and_add(n, 1);
	if (bpf_map_update_elem(&tx_inflight, &key, &e, BPF_NOEXIST)) {
		/* A reused address overwrites: no entry more. */
		bpf_map_update_elem(&tx_inflight, &key, &e, BPF_ANY);
		__sync_fetch_and_add(n, -1);
	}
}

static __always_inline void ps_tx_started(const struct sk_buff *skb, const struct net_device *dev,
					  int btf)
{
	__u64 key = (__u64)skb, now, d, *n;
	struct ps_tx_inflight *e;
	struct ps_txlat_qstats *s;

	if (!ps_our_dev(dev, btf))
		return;
	n = ps_tx_entries();
	if (!n || !*n)
		return;
	e = bpf_map_lookup_elem(&tx_inflight, &key);
	if (!e || e->stage != PS_TX_QUEUED) /* not seen queued, or a requeue */
		return;
	now = bpf_ktime_get_ns();
	d = now - e->ts_ns;
	s = ps_txlat_slot(e->queue);
	if (s) {
		if (now < e->ts_ns || d > PS_TX_MAX_AGE_NS) {
			s->stale++;
		} else {
			s->sojourn_n++;
			s->sojourn_sum_ns += d;
			s->sojourn_hist[ps_hist_bucket(d, PS_LAT_BUCKETS)]++;
		}
	}
	if (!ps_completion) {
		ps_tx_forget(key, n);
		return;
	}
	e->ts_ns = now;
	e->stage = PS_TX_STARTED;
}

/* The skb is gone: a completion after start_xmit, else a drop. */
static __always_inline void ps_tx_freed(__u64 key, int consumed)
{
	struct ps_tx_inflight *e;
	struct ps_txlat_qstats *s;
	__u64 now, d, *n = ps_tx_entries();

	if (!n || !*n)
		return;
	e = bpf_map_lookup_elem(&tx_inflight, &key);
	if (!e)
		return;
	s = ps_txlat_slot(e->queue);
	if (s) {
		now = bpf_ktime_get_ns();
		d = now - e->ts_ns;
		if (!consumed)
			s->dropped++;
		else if (e->stage == PS_TX_STARTED && now >= e->ts_ns && d <= PS_TX_MAX_AGE_NS) {
			s->completed++;
			s->completion_sum_ns += d;
			s->completion_hist[ps_hist_bucket(d, PS_LAT_BUCKETS)]++;
		} else if (e->stage == PS_TX_STARTED) {
			s->stale++;
		}
	}
	ps_tx_forget(key, n);
}

/* tp_btf: typed arguments. */
SEC("tp_btf/net_dev_queue")
int BPF_PROG(pathscope_tx_queue, struct sk_buff *skb)
{
	ps_tx_queued(skb, 1);
	return 0;
}

SEC("tp_btf/net_dev_start_xmit")
int BPF_PROG(pathscope_tx_start, const struct sk_buff *skb, const struct net_device *dev)
{
	ps_tx_started(skb, dev, 1);
	return 0;
}

SEC("tp_btf/consume_skb")
int BPF_PROG(pathscope_tx_consume, struct sk_buff *skb)
{
	ps_tx_freed((__u64)skb, 1);
	return 0;
}

SEC("tp_btf/kfree_skb")
int BPF_PROG(pathscope_tx_kfree, struct sk_buff *skb)
{
	ps_tx_freed((__u64)skb, 0);
	return 0;
}

/* Classic tracepoints: the skb address from the event, the rest read with
 * CO-RE from the skb. */
SEC("tracepoint/net/net_dev_queue")
int pathscope_tp_queue(struct trace_event_raw_net_dev_template *ctx)
{
	ps_tx_queued(ctx->skbaddr, 0);
	return 0;
}

SEC("tracepoint/net/net_dev_start_xmit")
int pathscope_tp_start(struct trace_event_raw_net_dev_start_xmit *ctx)
{
	const struct sk_buff *skb = ctx->skbaddr;

	ps_tx_started(skb, BPF_CORE_READ(skb, dev), 0);
	return 0;
}

SEC("tracepoint/skb/consume_skb")
int pathscope_tp_consume(struct trace_event_raw_consume_skb *ctx)
{
	ps_tx_freed((__u64)ctx->skbaddr, 1);
	return 0;
}

SEC("tracepoint/skb/kfree_skb")
int pathscope_tp_kfree(struct trace_event_raw_kfree_skb *ctx)
{
	ps_tx_freed((__u64)ctx->skbaddr, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
