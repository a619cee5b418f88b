// SPDX-License-Identifier: GPL-2.0
/* firsthop's XDP side of a NAPI thread's wait (BPF_PROG_TEST_RUN): a poll's
 * first frame outside a softirq takes the queue's pending IRQ stamp and times
 * it once; other frames and a poll with no stamp take and time nothing. */
#include "tests/lib/datapath.h"

static int thread_fd, cpu_fd;
static size_t cpu_size; /* ps_fh_cpu rounded up to 8 bytes, per CPU */
static void *cpus;

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

/* This process runs on CPU 0: its fh_cpu value is the first. */
static struct ps_fh_cpu *cpu0(void)
{
	__u32 zero = 0;

	if (bpf_map_lookup_elem(cpu_fd, &zero, cpus))
		check_report(0, "firsthop: read fh_cpu", "%s", strerror(errno));
	return cpus;
}

static void set_cpu0(__u32 in_run, __u32 poll_slot1)
{
	__u32 zero = 0;

	struct ps_fh_cpu *c = cpus;

	memset(cpus, 0, cpu_size * (size_t)ncpus);
	c->in_run = in_run;
	c->poll_slot1 = poll_slot1;
	if (bpf_map_update_elem(cpu_fd, &zero, cpus, BPF_ANY))
		check_report(0, "firsthop: write fh_cpu", "%s", strerror(errno));
}

static void set_stamp(__u64 irq, __u64 taken)
{
	struct ps_fh_thread t = { irq, taken };
	__u32 zero = 0;

	if (bpf_map_update_elem(thread_fd, &zero, &t, BPF_ANY))
		check_report(0, "firsthop: write fh_thread", "%s", strerror(errno));
}

static struct ps_fh_thread stamp(void)
{
	struct ps_fh_thread t = { 0 };
	__u32 zero = 0;

	bpf_map_lookup_elem(thread_fd, &zero, &t);
	return t;
}

static void frame(const struct hook *h, const struct frame *f, const char *name)
{
	struct run r = { .f = f };
	char why[160];

	if (test_run(h, &r, why, sizeof(why)))
		check_report(0, name, "%s", why);
}

int main(void)
{
	const struct cfg c = { PS_F_FIRSTHOP, 1, 1, 0, 0, P_XDP };
	struct frame f = { 0 };
	struct ps_fh_thread t;
	struct env e;
	cpu_set_t set;
	__u64 irq;
	int err;

	if (datapath_init() || !datapath_bpf_ok("datapath firsthop: load BPF programs"))
		return check_exit_code();
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		check_report(0, "firsthop: run on CPU 0", "%s", strerror(errno));
		return check_exit_code();
	}
	err = env_load(&e, &c);
	if (err) {
		check_report(0, "firsthop: load XDP with feature firsthop", "%s", strerror(-err));
		return check_exit_code();
	}
	thread_fd = bpf_map__fd(e.x->maps.fh_thread);
	cpu_fd = bpf_map__fd(e.x->maps.fh_cpu);
	cpu_size = (sizeof(struct ps_fh_cpu) + 7) / 8 * 8;
	cpus = calloc((size_t)ncpus, cpu_size);
	put_eth(&f, 0, 0x88b5); /* a local experimental ethertype: no L3 */
	put(&f, 46);

	/* A thread's poll, an IRQ 1 ms ago pending: timed once, taken. */
	irq = now_ns() - 1000000;
	set_stamp(irq, 0);
	set_cpu0(0, 0);
	frame(&e.h[XDP], &f, "thread poll: first frame");
	t = stamp();
	CHECK_EQ_U64("thread poll: the first frame took the IRQ stamp", t.taken_ns, irq);
	CHECK_EQ_U64("thread poll: timed", cpu0()->thread_timed, 1);
	CHECK_TRUE("thread poll: the wait is the 1 ms since the stamp, within 1 s",
		   cpu0()->thread_wait_ns >= 1000000 && cpu0()->thread_wait_ns < 1001000000ULL);
	CHECK_EQ_U64("thread poll: the poll's slot noted", cpu0()->poll_slot1, 1);

	/* A new stamp during the poll: its later frames take nothing. */
	set_stamp(irq + 10, irq);
	frame(&e.h[XDP], &f, "thread poll: second frame");
	frame(&e.h[XDP], &f, "thread poll: third frame");
	CHECK_EQ_U64("thread poll: later frames take no stamp", stamp().taken_ns, irq);

	/* A softirq poll: no stamp taken, nothing timed, no clock read. */
	set_cpu0(1, 0);
	frame(&e.h[XDP], &f, "softirq poll: first frame");
	CHECK_EQ_U64("softirq poll: no stamp taken at XDP", stamp().taken_ns, irq);
	CHECK_EQ_U64("softirq poll: not timed", cpu0()->thread_timed, 0);

	/* A thread's poll with no IRQ since the last one took its stamp. */
	set_stamp(irq, irq);
	set_cpu0(0, 0);
	frame(&e.h[XDP], &f, "thread poll, no stamp: first frame");
	CHECK_EQ_U64("thread poll with no IRQ pending: not timed", cpu0()->thread_timed, 0);
	CHECK_EQ_U64("thread poll with no IRQ pending: the stamp stays", stamp().taken_ns, irq);

	env_free(&e);
	free(cpus);
	free(percpu);
	return check_exit_code();
}
