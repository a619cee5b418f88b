// SPDX-License-Identifier: GPL-2.0
/* The first hop per RX queue (feature firsthop; see abi.h): what starts each
 * NET_RX softirq run and how long it waits, from stable tracepoints only. */
#include "pathscope/kernel_types.bpf.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_endian.h>
#include "pathscope/abi.h"
#include "pathscope/firsthop.bpf.h"

#define NET_RX_SOFTIRQ_VEC 3

/* N of attach --softirq-sample: 1 NET_RX run in N per CPU has its wait timed. */
const volatile __u32 ps_fh_sirq_every = PS_FH_SIRQ_DEFAULT;

/* IRQ number -> RX queue + 1, filled by the loader from the device's IRQs. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PS_FH_IRQS_MAX);
	__type(key, __u32);
	__type(value, __u32);
} fh_irqs SEC(".maps");

static __always_inline struct ps_fh_cpu *ps_fh_cpu(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&fh_cpu, &zero);
}

/* The current task's name begins with prefix (at most 8 bytes), compared as
 * one word: "napi/" for a NAPI thread. */
static __always_inline int ps_comm_is(__u64 prefix, __u64 mask)
{
	union {
		char c[16];
		__u64 w[2];
	} comm = {};

	bpf_get_current_comm(comm.c, sizeof(comm.c));
	return (comm.w[0] & mask) == prefix;
}

#define PS_NAPI	 0x2f6970616eULL /* "napi/" */
#define PS_MASK5 0xffffffffffULL

/* The queue's IRQ, for the wait of a NAPI thread's poll (on another CPU):
 * stamped only when the last stamp was taken, so the first IRQ since the
 * queue's last poll. One clock read and one store per IRQ at most. */
static __always_inline void ps_fh_thread_irq(__u32 slot)
{
	struct ps_fh_thread *t = bpf_map_lookup_elem(&fh_thread, &slot);

	if (t && t->irq_ns == t->taken_ns)
		t->irq_ns = bpf_ktime_get_ns();
}

/* The end of a poll with frames of slot: a NAPI thread's adds its timed
 * wait; a softirq poll takes the queue's pending IRQ stamp (its IRQ's, or
 * stale once the device goes threaded). Called once the poll is counted. */
static __always_inline void ps_fh_thread_end(struct ps_fh_cpu *c, __u32 slot, __u32 start,
					     struct ps_fh_qstats *s)
{
	struct ps_fh_thread *t;
	__u64 d;

	if (c->thread_timed) {
		c->thread_timed = 0;
		if (start != PS_FH_THREAD)
			return;
		d = c->thread_wait_ns;
		s->thread_waited++;
		s->thread_wait_sum_ns += d;
		s->thread_wait_hist[ps_hist_bucket(d, PS_LAT_BUCKETS)]++;
		return;
	}
	if (!c->in_run)
		return;
	t = bpf_map_lookup_elem(&fh_thread, &slot);
	if (t && t->taken_ns != t->irq_ns)
		t->taken_ns = t->irq_ns;
}

static __always_inline void ps_fh_irq_entry(int irq)
{
	__u32 key = (__u32)irq, *q1, slot;
	struct ps_fh_qstats *s;
	struct ps_fh_cpu *c;

	q1 = bpf_map_lookup_elem(&fh_irqs, &key);
	if (!q1 || !(c = ps_fh_cpu()))
		return;
	c->irq_queue1 = *q1;
	slot = *q1 - 1;
	s = bpf_map_lookup_elem(&fh_stats, &slot);
	if (s)
		s->irqs++;
	ps_fh_thread_irq(slot);
}

static __always_inline void ps_fh_irq_exit(void)
{
	struct ps_fh_cpu *c = ps_fh_cpu();

	if (c && c->irq_queue1)
		c->irq_queue1 = 0;
}

/* hrtimer functions run in hard IRQ context, one at a time per CPU; NAPI's
 * deferral timer (napi_watchdog) raises NET_RX from one. */
static __always_inline void ps_fh_timer(__u32 in)
{
	struct ps_fh_cpu *c = ps_fh_cpu();

	if (c && c->in_timer != in)
		c->in_timer = in;
}

/* The first NET_RX raise since the last run: the run it brings is timed
 * when it is the 1st, N+1st, ... of the CPU (the runs begun so far a multiple
 * of N); only then is the clock read. */
static __always_inline void ps_fh_raise(unsigned int vec)
{
	struct ps_fh_cpu *c;

	if (vec != NET_RX_SOFTIRQ_VEC || !(c = ps_fh_cpu()) || c->raised)
		return;
	c->raised = 1;
	if ((__u32)c->run % ps_fh_sirq_every == 0)
		c->raise_ns = bpf_ktime_get_ns();
	c->raise_queue1 = c->irq_queue1;
	c->raise_timer = !c->irq_queue1 && c->in_timer;
}

static __always_inline void ps_fh_entry(unsigned int vec)
{
	struct ps_fh_cpu *c;
	__u64 now = 0;

	if (vec != NET_RX_SOFTIRQ_VEC || !(c = ps_fh_cpu()))
		return;
	if (c->raise_ns)
		now = bpf_ktime_get_ns();
	c->run++;
	c->in_run = 1;
	c->run_ns = now;
	c->wait_timed = c->raise_ns && now >= c->raise_ns;
	c->wait_ns = c->wait_timed ? now - c->raise_ns : 0;
	c->run_queue1 = c->raise_queue1;
	if (c->ksoftirqd_pid && (__u32)bpf_get_current_pid_tgid() == c->ksoftirqd_pid)
		c->run_start = PS_FH_KSOFTIRQD;
	else if (c->raise_queue1)
		c->run_start = PS_FH_IRQ;
	else
		c->run_start = c->raise_timer ? PS_FH_TIMER : PS_FH_OTHER;
	c->raised = 0;
	c->raise_ns = 0;
	c->raise_queue1 = 0;
	c->raise_timer = 0;
	c->poll_slot1 = 0;
}

static __always_inline void ps_fh_exit(unsigned int vec)
{
	struct ps_fh_cpu *c;

	if (vec == NET_RX_SOFTIRQ_VEC && (c = ps_fh_cpu())) {
		c->in_run = 0;
		c->run_ns = 0;
	}
}

/* napi:napi_poll fires as any poll ends (softirq, NAPI thread, busy poll):
 * count it for the queue whose frames XDP saw in it, with the wait of its
 * softirq run once per run when the run is timed. */
static __always_inline void ps_fh_poll_end(void)
{
	struct ps_fh_qstats *s;
	struct ps_fh_cpu *c;
	__u32 slot, start;

	c = ps_fh_cpu();
	if (!c || !c->poll_slot1)
		return;
	slot = c->poll_slot1 - 1;
	c->poll_slot1 = 0;
	s = bpf_map_lookup_elem(&fh_stats, &slot);
	if (!s)
		return;
	if (!c->in_run)
		start = ps_comm_is(PS_NAPI, PS_MASK5) ? PS_FH_THREAD : PS_FH_BUSY;
	else if (c->run_start == PS_FH_IRQ && c->run_queue1 != slot + 1)
		start = PS_FH_OTHER; /* another queue's IRQ raised the run */
	else
		start = c->run_start;
	if (start < PS_FH_STARTS)
		s->polls[start]++;
	ps_fh_thread_end(c, slot, start, s);
	if (!c->in_run || s->last_run == c->run)
		return;
	s->last_run = c->run;
	if (!c->wait_timed)
		return;
	s->waited++;
	s->wait_sum_ns += c->wait_ns;
	s->wait_hist[ps_hist_bucket(c->wait_ns, PS_LAT_BUCKETS)]++;
}

/* tp_btf: typed arguments. */
SEC("tp_btf/irq_handler_entry")
int BPF_PROG(pathscope_fh_irq_entry, int irq, void *action)
{
	ps_fh_irq_entry(irq);
	return 0;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(pathscope_fh_irq_exit, int irq, void *action, int ret)
{
	ps_fh_irq_exit();
	return 0;
}

SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(pathscope_fh_timer_entry, void *timer, void *now)
{
	ps_fh_timer(1);
	return 0;
}

SEC("tp_btf/hrtimer_expire_exit")
int BPF_PROG(pathscope_fh_timer_exit, void *timer)
{
	ps_fh_timer(0);
	return 0;
}

SEC("tp_btf/softirq_raise")
int BPF_PROG(pathscope_fh_raise, unsigned int vec)
{
	ps_fh_raise(vec);
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(pathscope_fh_entry, unsigned int vec)
{
	ps_fh_entry(vec);
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(pathscope_fh_exit, unsigned int vec)
{
	ps_fh_exit(vec);
	return 0;
}

SEC("tp_btf/napi_poll")
int BPF_PROG(pathscope_fh_poll, void *napi, int work, int budget)
{
	ps_fh_poll_end();
	return 0;
}

/* Classic tracepoints. */
SEC("tracepoint/irq/irq_handler_entry")
int pathscope_fht_irq_entry(struct trace_event_raw_irq_handler_entry *ctx)
{
	ps_fh_irq_entry(ctx->irq);
	return 0;
}

SEC("tracepoint/irq/irq_handler_exit")
int pathscope_fht_irq_exit(void *ctx)
{
	ps_fh_irq_exit();
	return 0;
}

SEC("tracepoint/timer/hrtimer_expire_entry")
int pathscope_fht_timer_entry(void *ctx)
{
	ps_fh_timer(1);
	return 0;
}

SEC("tracepoint/timer/hrtimer_expire_exit")
int pathscope_fht_timer_exit(void *ctx)
{
	ps_fh_timer(0);
	return 0;
}

SEC("tracepoint/irq/softirq_raise")
int pathscope_fht_raise(struct trace_event_raw_softirq *ctx)
{
	ps_fh_raise(ctx->vec);
	return 0;
}

SEC("tracepoint/irq/softirq_entry")
int pathscope_fht_entry(struct trace_event_raw_softirq *ctx)
{
	ps_fh_entry(ctx->vec);
	return 0;
}

SEC("tracepoint/irq/softirq_exit")
int pathscope_fht_exit(struct trace_event_raw_softirq *ctx)
{
	ps_fh_exit(ctx->vec);
	return 0;
}

SEC("tracepoint/napi/napi_poll")
int pathscope_fht_poll(void *ctx)
{
	ps_fh_poll_end();
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
