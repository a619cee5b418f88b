// SPDX-License-Identifier: GPL-2.0
/* The kernel's own packet path around one interface (see abi.h, feature kernel), from
 * stable tracepoints only (no kprobes): NAPI polls, GRO, the stack's entry, TX, drops
 * by reason, XDP errors and the network softirqs. */
#include "pathscope/kernel_types.bpf.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "pathscope/abi.h"
#include "pathscope/kread.bpf.h"

const volatile __u32 ps_nqueues = 1;
const volatile __u32 ps_rx_queue_base = 0; /* RX queue = queue_mapping - base */

#define NET_TX_SOFTIRQ_VEC 2
#define NET_RX_SOFTIRQ_VEC 3
#define NETDEV_TX_OK_RC	   0x00
#define NETDEV_TX_BUSY_RC  0x10

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2); /* set by the loader: nqueues + 1 */
	__type(key, __u32);
	__type(value, struct ps_kern_qstats);
} kern_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, PS_NAPI_MAX);
	__type(key, __u32); /* napi id */
	__type(value, struct ps_napi_stats);
} napi_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PS_NAPI_MAX);
	__type(key, __u32); /* napi id */
	__type(value, struct ps_napi_queue);
} napi_queue SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PS_DROPS_MAX);
	__type(key, struct ps_drop_key);
	__type(value, __u64);
} drops SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ps_softirq_cpu);
} softirq SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PS_XDP_ACTIONS);
	__type(key, __u32);
	__type(value, __u64);
} xdp_exceptions SEC(".maps");

/* The NAPI instance and queue this CPU last recorded in napi_queue: a frame
 * of the same pair (nearly all of them) skips the hash lookup, which cost
 * about 40 ns per frame (live, bpf_stats). */
struct ps_napi_queue_seen {
	__u32 napi_id;
	__u32 queue;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ps_napi_queue_seen);
} napi_seen SEC(".maps");

/* The skb between net_dev_start_xmit and net_dev_xmit on this CPU: both fire
 * in xmit_one() with bottom halves off, and after the driver returns the skb
 * may already be freed, so its queue is read before. */
struct ps_xmit_slot {
	__u64 skb;
	__u32 queue;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ps_xmit_slot);
} xmit_slot SEC(".maps");

static __always_inline struct ps_kern_qstats *ps_kern_slot(__u32 q)
{
	__u32 key = q < ps_nqueues ? q : ps_nqueues;

	return bpf_map_lookup_elem(&kern_stats, &key);
}

/* The RX queue recorded in an skb (skb_get_rx_queue), or unknown. */
static __always_inline __u32 ps_rx_queue(__u16 queue_mapping)
{
	if (queue_mapping < ps_rx_queue_base)
		return PS_QUEUE_UNKNOWN;
	return queue_mapping - ps_rx_queue_base;
}

static __always_inline void ps_napi_polled(struct napi_struct *napi, int work, int budget, int btf)
{
	struct ps_napi_stats *s, zero = {};
	__u32 id;

	if (!ps_our_dev(PS_KREAD(btf, napi, dev), btf))
		return;
	id = PS_KREAD(btf, napi, napi_id);
	s = bpf_map_lookup_elem(&napi_stats, &id);
	if (!s) {
		bpf_map_update_elem(&napi_stats, &id, &zero, BPF_NOEXIST);
		s = bpf_map_lookup_elem(&napi_stats, &id);
		if (!s)
			return; /* more than PS_NAPI_MAX instances */
	}
	s->polls++;
	s->work += work > 0 ? work : 0;
	s->budget = budget;
	if (work >= budget)
		s->exhausted++;
	if (work <= 0)
		s->idle++;
}

static __always_inline void ps_gro_entry(__u32 napi_id, __u16 queue_mapping)
{
	__u32 q = ps_rx_queue(queue_mapping), zero = 0;
	struct ps_kern_qstats *s = ps_kern_slot(q);
	struct ps_napi_queue nq = { .queue = q }, *old;
	struct ps_napi_queue_seen *seen;

	if (s)
		s->gro_frames++;
	if (!napi_id)
		return;
	seen = bpf_map_lookup_elem(&napi_seen, &zero);
	if (!seen || (seen->napi_id == napi_id && seen->queue == q))
		return;
	old = bpf_map_lookup_elem(&napi_queue, &napi_id);
	if ((!old || old->queue != q) && bpf_map_update_elem(&napi_queue, &napi_id, &nq, BPF_ANY))
		return; /* the map is full: not recorded, so not remembered */
	seen->napi_id = napi_id;
	seen->queue = q;
}

static __always_inline void ps_stack_entry(const struct sk_buff *skb, int btf)
{
	struct skb_shared_info *shinfo;
	struct ps_kern_qstats *s;
	__u16 segs;

	s = ps_kern_slot(ps_rx_queue(PS_KREAD(btf, skb, queue_mapping)));
	if (!s)
		return;
	/* skb_shinfo(): end is an offset from head on 64-bit kernels. The
	 * verifier takes head + end for a number, not a typed pointer: a probe
	 * read in both kinds of programs. */
	shinfo = (void *)(PS_KREAD(btf, skb, head) + PS_KREAD(btf, skb, end));
	segs = BPF_CORE_READ(shinfo, gso_segs);
	s->stack_skbs++;
	s->stack_segs += segs > 1 ? segs : 1;
}

static __always_inline void ps_xmit_started(const struct sk_buff *skb, int btf)
{
	struct ps_xmit_slot *x;
	__u32 zero = 0;

	x = bpf_map_lookup_elem(&xmit_slot, &zero);
	if (!x)
		return;
	x->skb = (__u64)skb;
	x->queue = PS_KREAD(btf, skb, queue_mapping);
}

static __always_inline void ps_xmit_done(__u64 skb, int rc, unsigned int len)
{
	struct ps_kern_qstats *s;
	struct ps_xmit_slot *x;
	__u32 zero = 0;

	/* Only the skb this CPU just started on this interface: that is the
	 * device filter too (the classic event has only a device name). */
	x = bpf_map_lookup_elem(&xmit_slot, &zero);
	if (!x || x->skb != skb)
		return;
	x->skb = 0;
	s = ps_kern_slot(x->queue);
	if (!s)
		return;
	if (rc == NETDEV_TX_OK_RC) {
		s->xmit_ok++;
		s->xmit_bytes += len;
	} else if (rc == NETDEV_TX_BUSY_RC) {
		s->xmit_busy++;
	} else {
		s->xmit_dropped++;
	}
}

static __always_inline void ps_dropped(struct sk_buff *skb, __u32 reason, int btf)
{
	struct ps_drop_key k = { .reason = reason, .queue = PS_QUEUE_UNKNOWN, .dir = PS_DROP_TX };
	__u64 one = 1, *n;

	/* SKB_CONSUMED (Linux 6.3) is not a drop: the kernel traces it as
	 * consume_skb too. Before, consumed skbs never came here. */
	if (bpf_core_enum_value_exists(enum skb_drop_reason, SKB_CONSUMED) &&
	    reason == bpf_core_enum_value(enum skb_drop_reason, SKB_CONSUMED))
		return;
	if (!ps_our_dev(PS_KREAD(btf, skb, dev), btf))
		return;
	/* An skb that arrived on this interface is an RX drop; its recorded
	 * queue (if any) is the RX queue. */
	if (PS_KREAD(btf, skb, skb_iif) == (int)ps_ifindex) {
		k.dir = PS_DROP_RX;
		k.queue = ps_rx_queue(PS_KREAD(btf, skb, queue_mapping));
	}
	n = bpf_map_lookup_elem(&drops, &k);
	if (n) {
		__sync_fetch_and_add(n, 1);
		return;
	}
	if (bpf_map_update_elem(&drops, &k, &one, BPF_NOEXIST))
		if ((n = bpf_map_lookup_elem(&drops, &k)))
			__sync_fetch_and_add(n, 1); /* another CPU created it first */
}

static __always_inline void ps_xdp_exception(__u32 act)
{
	__u32 key = act < PS_XDP_ACTIONS - 1 ? act : PS_XDP_ACTIONS - 1;
	__u64 *n = bpf_map_lookup_elem(&xdp_exceptions, &key);

	if (n)
		(*n)++;
}

static __always_inline void ps_softirq(unsigned int vec, int entry)
{
	struct ps_softirq_cpu *c;
	__u32 zero = 0, i;
	__u64 now;

	if (vec == NET_TX_SOFTIRQ_VEC)
		i = PS_SIRQ_NET_TX;
	else if (vec == NET_RX_SOFTIRQ_VEC)
		i = PS_SIRQ_NET_RX;
	else
		return;
	c = bpf_map_lookup_elem(&softirq, &zero);
	if (!c)
		return;
	if (entry) {
		if (c->count[i]++ % PS_SIRQ_EVERY == 0)
			c->entry_ns[i] = bpf_ktime_get_ns();
		return;
	}
	if (!c->entry_ns[i]) /* not timed, or attached mid-softirq */
		return;
	now = bpf_ktime_get_ns();
	if (now >= c->entry_ns[i]) {
		c->timed[i]++;
		c->time_ns[i] += (now - c->entry_ns[i]) * PS_SIRQ_EVERY;
	}
	c->entry_ns[i] = 0;
}

/* The tracepoints:
 *   napi:napi_poll              polls, work and budget per NAPI instance
 *   net:napi_gro_receive_entry  frames the driver hands to GRO, per RX queue,
 *                               and which NAPI instance serves which queue
 *   net:netif_receive_skb       skbs and packets entering the stack
 *   net:net_dev_start_xmit      remembers the TX queue of the skb being sent
 *   net:net_dev_xmit            the driver's return code per TX queue
 *   skb:kfree_skb               drops by the kernel's reason
 *   xdp:xdp_exception           XDP errors per action
 *   irq:softirq_entry/exit      NET_RX and NET_TX softirq runs per CPU, and
 *                               their time from 1 run in PS_SIRQ_EVERY
 * As in the txlat probes, two sets of programs do the same: tp_btf (typed
 * arguments, these) and classic tracepoints (below); the loader loads one. */
SEC("tp_btf/napi_poll")
int BPF_PROG(pathscope_k_napi_poll, struct napi_struct *napi, int work, int budget)
{
	ps_napi_polled(napi, work, budget, 1);
	return 0;
}

SEC("tp_btf/napi_gro_receive_entry")
int BPF_PROG(pathscope_k_gro_entry, const struct sk_buff *skb)
{
	if (ps_our_dev(skb->dev, 1))
		ps_gro_entry(skb->napi_id, skb->queue_mapping);
	return 0;
}

SEC("tp_btf/netif_receive_skb")
int BPF_PROG(pathscope_k_stack, struct sk_buff *skb)
{
	if (ps_our_dev(skb->dev, 1))
		ps_stack_entry(skb, 1);
	return 0;
}

SEC("tp_btf/net_dev_start_xmit")
int BPF_PROG(pathscope_k_start_xmit, const struct sk_buff *skb, const struct net_device *dev)
{
	if (ps_our_dev(dev, 1))
		ps_xmit_started(skb, 1);
	return 0;
}

SEC("tp_btf/net_dev_xmit")
int BPF_PROG(pathscope_k_xmit, struct sk_buff *skb, int rc, struct net_device *dev,
	     unsigned int len)
{
	ps_xmit_done((__u64)skb, rc, len);
	return 0;
}

/* skb:kfree_skb has carried the drop reason since Linux 5.17 (the event's
 * field and the tracepoint's third argument came together); before, every
 * drop counts under reason 0, "not specified". */
#define PS_HAS_DROP_REASON bpf_core_field_exists(struct trace_event_raw_kfree_skb, reason)

SEC("tp_btf/kfree_skb")
int pathscope_k_kfree(unsigned long long *ctx)
{
	/* Not BPF_PROG: its third argument may not exist, and the verifier
	 * refuses a read of it even where the value goes unused. */
	ps_dropped((struct sk_buff *)ctx[0], PS_HAS_DROP_REASON ? (__u32)ctx[2] : 0, 1);
	return 0;
}

SEC("tp_btf/xdp_exception")
int BPF_PROG(pathscope_k_xdp_exc, const struct net_device *dev, const struct bpf_prog *xdp,
	     __u32 act)
{
	if (ps_our_dev(dev, 1))
		ps_xdp_exception(act);
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(pathscope_k_sirq_entry, unsigned int vec)
{
	ps_softirq(vec, 1);
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(pathscope_k_sirq_exit, unsigned int vec)
{
	ps_softirq(vec, 0);
	return 0;
}

/* Classic tracepoints: the event's fields, the rest read with CO-RE. */
SEC("tracepoint/napi/napi_poll")
int pathscope_kt_napi_poll(struct trace_event_raw_napi_poll *ctx)
{
	ps_napi_polled(ctx->napi, ctx->work, ctx->budget, 0);
	return 0;
}

SEC("tracepoint/net/napi_gro_receive_entry")
int pathscope_kt_gro_entry(struct trace_event_raw_net_dev_rx_verbose_template *ctx)
{
	const struct sk_buff *skb = ctx->skbaddr;

	if (ps_our_dev(BPF_CORE_READ(skb, dev), 0))
		ps_gro_entry(ctx->napi_id, ctx->queue_mapping);
	return 0;
}

SEC("tracepoint/net/netif_receive_skb")
int pathscope_kt_stack(struct trace_event_raw_net_dev_template *ctx)
{
	const struct sk_buff *skb = ctx->skbaddr;

	if (ps_our_dev(BPF_CORE_READ(skb, dev), 0))
		ps_stack_entry(skb, 0);
	return 0;
}

SEC("tracepoint/net/net_dev_start_xmit")
int pathscope_kt_start_xmit(struct trace_event_raw_net_dev_start_xmit *ctx)
{
	const struct sk_buff *skb = ctx->skbaddr;

	if (ps_our_dev(BPF_CORE_READ(skb, dev), 0))
		ps_xmit_started(skb, 0);
	return 0;
}

SEC("tracepoint/net/net_dev_xmit")
int pathscope_kt_xmit(struct trace_event_raw_net_dev_xmit *ctx)
{
	ps_xmit_done((__u64)ctx->skbaddr, ctx->rc, ctx->len);
	return 0;
}

SEC("tracepoint/skb/kfree_skb")
int pathscope_kt_kfree(struct trace_event_raw_kfree_skb *ctx)
{
	ps_dropped(ctx->skbaddr, PS_HAS_DROP_REASON ? ctx->reason : 0, 0);
	return 0;
}

SEC("tracepoint/xdp/xdp_exception")
int pathscope_kt_xdp_exc(struct trace_event_raw_xdp_exception *ctx)
{
	if (ctx->ifindex == (int)ps_ifindex) /* the event has no namespace */
		ps_xdp_exception(ctx->act);
	return 0;
}

SEC("tracepoint/irq/softirq_entry")
int pathscope_kt_sirq_entry(struct trace_event_raw_softirq *ctx)
{
	ps_softirq(ctx->vec, 1);
	return 0;
}

SEC("tracepoint/irq/softirq_exit")
int pathscope_kt_sirq_exit(struct trace_event_raw_softirq *ctx)
{
	ps_softirq(ctx->vec, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
