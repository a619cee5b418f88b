// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The placement verdict (stats/analysis/placement_verdict.c): each cause with its exact
 * figures, just short of and at its threshold (10% off the affinity, 99 frames, 90% on a
 * CPU, 25%/50% of 100 polls, 2 ms on 10 waits); none on a clean input; advice in 118 columns. */
#include <string.h>

#include "tests/lib/check.h"
#include "pathscope/hist.h"
#include "stats/analysis/placement_verdict.h"

#define NCPUS 4

/* Queue i's verdict, and whether exactly the causes of mask hold. */
static struct ps_place_verdict v;

static bool only(const struct ps_place_input *in, unsigned int i, unsigned int mask)
{
	int c, n = ps_place_verdict(in, i, &v), want = 0;

	for (c = 0; c < PS_PLACE_NCAUSES; c++) {
		want += (mask >> c) & 1;
		if (v.holds[c] != ((mask >> c) & 1))
			return false;
	}
	return n == want;
}

#define BIT(c) (1U << (c))

/* Two queues, each IRQ on a CPU of its own in the device's NUMA node, each
 * queue's frames there, no RPS: nothing to say. */
static void clean(void)
{
	static const __u64 f0[NCPUS] = { 1000, 0, 0, 0 }, f1[NCPUS] = { 0, 500, 0, 0 };
	const struct ps_place_queue q[] = {
		{ 0, 41, "0-3", "0", "", f0, NULL, -1, -1 },
		{ 1, 43, "0-3", "1", "", f1, NULL, -1, -1 },
	};
	const struct ps_place_input in = { 2, q, NCPUS, 0, "0-3" };

	CHECK_TRUE("clean: queue 0, nothing", only(&in, 0, 0));
	CHECK_EQ_U64("clean: queue 0's frames", v.frames, 1000);
	CHECK_TRUE("clean: queue 1, nothing", only(&in, 1, 0));
}

/* Queues 0 and 1's IRQs both on CPU 1 (effective), queue 2's on CPU 2, and
 * queue 3's affinity CPU 1 alone with no effective affinity known. */
static void shared_cpu(void)
{
	static const __u64 f0[NCPUS] = { 0, 1200, 0, 0 }, f1[NCPUS] = { 0, 300, 0, 0 },
			   f2[NCPUS] = { 0, 0, 700, 0 };
	const struct ps_place_queue q[] = {
		{ 0, 41, "0-3", "1", "", f0, NULL, -1, -1 },
		{ 1, 43, "1", "1", "", f1, NULL, -1, -1 },
		{ 2, 45, "2", "2", "", f2, NULL, -1, -1 },
		{ 3, 47, "1", "", "", NULL, NULL, -1, -1 },
	};
	const struct ps_place_input in = { 4, q, NCPUS, -1, "" };

	CHECK_TRUE("shared: queue 0", only(&in, 0, BIT(PS_PLACE_SHARED_CPU)));
	CHECK_STR("shared: queue 0's figures", v.why[PS_PLACE_SHARED_CPU],
		  "CPU 1 alone serves the IRQs of queues 0 (IRQ 41: 1200 frames), 1 (IRQ 43: 300 "
		  "frames), 3 (IRQ 47: 0 frames)");
	CHECK_TRUE("shared: queue 3 (by its affinity)", only(&in, 3, BIT(PS_PLACE_SHARED_CPU)));
	CHECK_TRUE("shared: queue 2 alone on CPU 2: nothing", only(&in, 2, 0));
}

/* Queue 0: IRQ affinity 0-1, 150 of 1000 frames on CPUs 2 and 3 (and only
 * 85% on CPU 0: spread too); queue 1: 100 of 1000 off, exactly 10%: not
 * more, but 90% on CPU 0 is no CPU over 90%: spread; queue 2: 40 of 99
 * off, too few frames. */
static void off_affinity(void)
{
	static const __u64 f0[NCPUS] = { 850, 0, 100, 50 }, f1[NCPUS] = { 900, 0, 100, 0 },
			   f2[NCPUS] = { 59, 0, 40, 0 };
	const struct ps_place_queue q[] = {
		{ 0, 41, "0-1", "0", "", f0, NULL, -1, -1 },
		{ 1, 43, "0-1", "1", "", f1, NULL, -1, -1 },
		{ 2, 45, "0-1", "2", "", f2, NULL, -1, -1 },
	};
	const struct ps_place_input in = { 3, q, NCPUS, -1, "" };

	CHECK_TRUE("off: queue 0, off its affinity and spread",
		   only(&in, 0, BIT(PS_PLACE_OFF_AFFINITY) | BIT(PS_PLACE_SPREAD)));
	CHECK_STR("off: queue 0's figures", v.why[PS_PLACE_OFF_AFFINITY],
		  "150 of its 1000 frames (15.0%) on CPUs 2-3, outside its IRQ 41's affinity 0-1");
	CHECK_STR("spread: queue 0's figures", v.why[PS_PLACE_SPREAD],
		  "no CPU has over 90% of its 1000 frames: CPU 0 85.0%, CPU 2 10.0%, CPU 3 5.0%");
	CHECK_TRUE("off: queue 1, 10.0% off: not off; 90.0% on CPU 0: spread",
		   only(&in, 1, BIT(PS_PLACE_SPREAD)));
	CHECK_TRUE("off: queue 2, 99 frames: too few", only(&in, 2, 0));
}

/* veth: no IRQs. Queue 0: 200 frames on CPU 0 and 200 on CPU 1; queue 1:
 * all 300 on CPU 1 with RPS 0-1; queue 2: RPS 1 where its 150 frames ran
 * (nothing), queue 3: RPS 0,2 and no frames. */
static void veth(void)
{
	static const __u64 f0[NCPUS] = { 200, 200, 0, 0 }, f1[NCPUS] = { 0, 300, 0, 0 },
			   f2[NCPUS] = { 0, 150, 0, 0 }, f3[NCPUS] = { 0 };
	const struct ps_place_queue q[] = {
		{ 0, -1, "", "", "", f0, NULL, -1, -1 },
		{ 1, -1, "", "", "0-1", f1, NULL, -1, -1 },
		{ 2, -1, "", "", "1", f2, NULL, -1, -1 },
		{ 3, -1, "", "", "0,2", f3, NULL, -1, -1 },
	};
	const struct ps_place_input in = { 4, q, NCPUS, -1, "" };

	CHECK_TRUE("veth: queue 0 spread", only(&in, 0, BIT(PS_PLACE_SPREAD)));
	CHECK_STR("veth: queue 0's figures", v.why[PS_PLACE_SPREAD],
		  "no CPU has over 90% of its 400 frames: CPU 0 50.0%, CPU 1 50.0%");
	CHECK_TRUE("veth: queue 1 rps", only(&in, 1, BIT(PS_PLACE_RPS)));
	CHECK_STR("veth: queue 1's figures", v.why[PS_PLACE_RPS],
		  "RPS sends its skbs to CPUs 0-1 (rps_cpus), not only CPU 1 that handled its "
		  "300 frames at XDP");
	CHECK_TRUE("veth: queue 2, RPS where it ran: nothing", only(&in, 2, 0));
	CHECK_TRUE("veth: queue 3 rps, no frames", only(&in, 3, BIT(PS_PLACE_RPS)));
	CHECK_STR("veth: queue 3's figures", v.why[PS_PLACE_RPS],
		  "RPS sends its skbs to CPUs 0,2 (rps_cpus); no frames of it in the window to "
		  "say where it runs");
}

/* An IRQ on CPU 1 with RPS 0-1, and one on CPU 2 with RPS 2 (nothing). */
static void rps(void)
{
	const struct ps_place_queue q[] = {
		{ 0, 41, "1", "1", "0-1", NULL, NULL, -1, -1 },
		{ 1, 43, "2", "2", "2", NULL, NULL, -1, -1 },
	};
	const struct ps_place_input in = { 2, q, NCPUS, -1, "" };

	CHECK_TRUE("rps: queue 0", only(&in, 0, BIT(PS_PLACE_RPS)));
	CHECK_STR("rps: queue 0's figures", v.why[PS_PLACE_RPS],
		  "RPS sends its skbs to CPUs 0-1 (rps_cpus), not only CPU 1 that serves its IRQ "
		  "41");
	CHECK_TRUE("rps: queue 1 on its IRQ's CPU: nothing", only(&in, 1, 0));
}

/* The device on NUMA node 1 (CPUs 2-3): queue 0's frames 950 on CPU 0 and
 * 50 on CPU 2 (its IRQ's affinity 0,2 allows both); queue 1 no frames, its
 * IRQ on CPU 1; queue 2's IRQ on CPU 3 with its frames there. */
static void remote_numa(void)
{
	static const __u64 f0[NCPUS] = { 950, 0, 50, 0 }, f2[NCPUS] = { 0, 0, 0, 400 };
	const struct ps_place_queue q[] = {
		{ 0, 41, "0,2", "", "", f0, NULL, -1, -1 },
		{ 1, 43, "1", "1", "", NULL, NULL, -1, -1 },
		{ 2, 45, "3", "3", "", f2, NULL, -1, -1 },
	};
	const struct ps_place_input in = { 3, q, NCPUS, 1, "2-3" };

	CHECK_TRUE("numa: queue 0", only(&in, 0, BIT(PS_PLACE_REMOTE_NUMA)));
	CHECK_STR("numa: queue 0's figures", v.why[PS_PLACE_REMOTE_NUMA],
		  "950 of its 1000 frames (95.0%) on CPU 0, outside the device's NUMA node 1 "
		  "(CPUs 2-3)");
	CHECK_TRUE("numa: queue 1 by its IRQ", only(&in, 1, BIT(PS_PLACE_REMOTE_NUMA)));
	CHECK_STR("numa: queue 1's figures", v.why[PS_PLACE_REMOTE_NUMA],
		  "CPU 1 serves its IRQ 43, outside the device's NUMA node 1 (CPUs 2-3)");
	CHECK_TRUE("numa: queue 2 on the node: nothing", only(&in, 2, 0));
}

/* Feature firsthop, queues without IRQs of their own, frames on CPU 0 (no
 * placement cause). ksoftirqd: queue 0 26 of 100 softirq polls (26%), its
 * waits timed; queue 1 25 of 100 (25%: not over); queue 2 49 of 99 (too
 * few); queue 3 26 of 86 softirq polls beside 514 in a thread and busy
 * polls (too few: those are not in softirq runs); queue 4 100 of 100, none
 * timed. */
static void ksoftirqd(void)
{
	static const __u64 f[NCPUS] = { 1000, 0, 0, 0 };
	static struct ps_fh_qstats fh[5];
	const struct ps_place_queue q[] = {
		{ 0, -1, "", "", "", f, &fh[0], -1, -1 }, { 1, -1, "", "", "", f, &fh[1], -1, -1 },
		{ 2, -1, "", "", "", f, &fh[2], -1, -1 }, { 3, -1, "", "", "", f, &fh[3], -1, -1 },
		{ 4, -1, "", "", "", f, &fh[4], -1, -1 },
	};
	const struct ps_place_input in = { 5, q, NCPUS, -1, "" };

	fh[0].polls[PS_FH_IRQ] = 70, fh[0].polls[PS_FH_KSOFTIRQD] = 26;
	fh[0].polls[PS_FH_TIMER] = 2, fh[0].polls[PS_FH_OTHER] = 2;
	fh[0].waited = 50, fh[0].wait_sum_ns = 75000000;
	fh[1].polls[PS_FH_IRQ] = 75, fh[1].polls[PS_FH_KSOFTIRQD] = 25;
	fh[2].polls[PS_FH_IRQ] = 50, fh[2].polls[PS_FH_KSOFTIRQD] = 49;
	fh[3].polls[PS_FH_IRQ] = 60, fh[3].polls[PS_FH_KSOFTIRQD] = 26;
	fh[3].polls[PS_FH_THREAD] = 500, fh[3].polls[PS_FH_BUSY] = 14;
	fh[4].polls[PS_FH_KSOFTIRQD] = 100;
	CHECK_TRUE("ksoftirqd: queue 0, 26 of 100", only(&in, 0, BIT(PS_PLACE_KSOFTIRQD)));
	CHECK_STR("ksoftirqd: queue 0's figures", v.why[PS_PLACE_KSOFTIRQD],
		  "26 of its 100 softirq polls (26.0%) ran in ksoftirqd; softirq wait 1.5ms on "
		  "average over 50 timed runs");
	CHECK_TRUE("ksoftirqd: queue 1, 25 of 100: not over 25%", only(&in, 1, 0));
	CHECK_TRUE("ksoftirqd: queue 2, 49 of 99: too few", only(&in, 2, 0));
	CHECK_TRUE("ksoftirqd: queue 3, 26 of 86 in softirq runs: too few", only(&in, 3, 0));
	CHECK_TRUE("ksoftirqd: queue 4, all of 100", only(&in, 4, BIT(PS_PLACE_KSOFTIRQD)));
	CHECK_STR("ksoftirqd: queue 4's figures, no wait timed", v.why[PS_PLACE_KSOFTIRQD],
		  "100 of its 100 softirq polls (100.0%) ran in ksoftirqd; no softirq wait timed");
}

/* Feature firsthop, veth-like queues, frames on CPU 0. deferred: queue 0 51
 * of 100 softirq polls started by the timer (napi_defer_hard_irqs 100,
 * gro_flush_timeout 200 us); queue 1 50 of 100 (not over half); queue 2 all
 * 99 (too few); queue 3 101 of 101, its knobs n/a. */
static void deferred(void)
{
	static const __u64 f[NCPUS] = { 1000, 0, 0, 0 };
	static struct ps_fh_qstats fh[4];
	const struct ps_place_queue q[] = {
		{ 0, -1, "", "", "", f, &fh[0], 100, 200000 },
		{ 1, -1, "", "", "", f, &fh[1], 100, 200000 },
		{ 2, -1, "", "", "", f, &fh[2], 100, 200000 },
		{ 3, -1, "", "", "", f, &fh[3], -1, -1 },
	};
	const struct ps_place_input in = { 4, q, NCPUS, -1, "" };

	fh[0].polls[PS_FH_TIMER] = 51, fh[0].polls[PS_FH_OTHER] = 49;
	fh[0].polls[PS_FH_THREAD] = 1000;
	fh[1].polls[PS_FH_TIMER] = 50, fh[1].polls[PS_FH_IRQ] = 50;
	fh[2].polls[PS_FH_TIMER] = 99;
	fh[3].polls[PS_FH_TIMER] = 101;
	CHECK_TRUE("deferred: queue 0, 51 of 100", only(&in, 0, BIT(PS_PLACE_DEFERRED)));
	CHECK_STR("deferred: queue 0's figures", v.why[PS_PLACE_DEFERRED],
		  "51 of its 100 softirq polls (51.0%) were started by NAPI's deferral timer; "
		  "napi_defer_hard_irqs 100, gro_flush_timeout 200000 ns");
	CHECK_TRUE("deferred: queue 1, 50 of 100: not over half", only(&in, 1, 0));
	CHECK_TRUE("deferred: queue 2, 99 of 99: too few", only(&in, 2, 0));
	CHECK_TRUE("deferred: queue 3, 101 of 101", only(&in, 3, BIT(PS_PLACE_DEFERRED)));
	CHECK_STR("deferred: queue 3's figures, its knobs n/a", v.why[PS_PLACE_DEFERRED],
		  "101 of its 101 softirq polls (100.0%) were started by NAPI's deferral timer; "
		  "napi_defer_hard_irqs n/a, gro_flush_timeout n/a");
}

/* Feature firsthop, each IRQ on a CPU of its own, no frames. Queue 0: 10
 * thread waits averaging 2,000,001 ns, the longest of 9 ms;
 * queue 1: 10 of exactly 2 ms (not over); queue 2: 9 of 10 ms (too few);
 * queue 3: firsthop off. */
static void thread_starved(void)
{
	static struct ps_fh_qstats fh[3];
	const struct ps_place_queue q[] = {
		{ 0, 41, "0", "0", "", NULL, &fh[0], -1, -1 },
		{ 1, 43, "1", "1", "", NULL, &fh[1], -1, -1 },
		{ 2, 45, "2", "2", "", NULL, &fh[2], -1, -1 },
		{ 3, 47, "3", "3", "", NULL, NULL, -1, -1 },
	};
	const struct ps_place_input in = { 4, q, NCPUS, -1, "" };

	fh[0].thread_waited = 10, fh[0].thread_wait_sum_ns = 20000010;
	fh[0].thread_wait_hist[ps_hist_bucket(1000000, PS_LAT_BUCKETS)] = 9;
	fh[0].thread_wait_hist[ps_hist_bucket(9000000, PS_LAT_BUCKETS)] = 1;
	fh[1].thread_waited = 10, fh[1].thread_wait_sum_ns = 20000000;
	fh[2].thread_waited = 9, fh[2].thread_wait_sum_ns = 90000000;
	CHECK_TRUE("thread: queue 0, 2,000,001 ns on average",
		   only(&in, 0, BIT(PS_PLACE_THREAD_STARVED)));
	/* the top of 9 ms's bucket, 8,388,608-9,437,183 ns */
	CHECK_STR("thread: queue 0's figures", v.why[PS_PLACE_THREAD_STARVED],
		  "its NAPI thread polled 2.0ms after its IRQ on average (at most 9.4ms) over 10 "
		  "timed polls");
	CHECK_TRUE("thread: queue 1, 2 ms on average: not over", only(&in, 1, 0));
	CHECK_TRUE("thread: queue 2, 9 waits: too few", only(&in, 2, 0));
	CHECK_TRUE("thread: queue 3, firsthop off", only(&in, 3, 0));
}

/* Every advice fits the table: printed after an indent of 2, in 120 columns. */
static void advice_width(void)
{
	int c;

	for (c = 0; c < PS_PLACE_NCAUSES; c++) {
		CHECK_TRUE(ps_place_cause_name((enum ps_place_cause)c),
			   strlen(ps_place_cause_advice((enum ps_place_cause)c, true)) <= 118 &&
			       strlen(ps_place_cause_advice((enum ps_place_cause)c, false)) <= 118);
	}
}

int main(void)
{
	clean();
	shared_cpu();
	off_affinity();
	veth();
	rps();
	remote_numa();
	ksoftirqd();
	deferred();
	thread_starved();
	advice_width();
	CHECK_STR("cause names", ps_place_cause_name(PS_PLACE_REMOTE_NUMA), "remote_numa");
	CHECK_STR("cause names: ksoftirqd", ps_place_cause_name(PS_PLACE_KSOFTIRQD), "ksoftirqd");
	CHECK_STR("cause names: deferred", ps_place_cause_name(PS_PLACE_DEFERRED), "deferred");
	CHECK_STR("cause names: thread_starved", ps_place_cause_name(PS_PLACE_THREAD_STARVED),
		  "thread_starved");
	return check_exit_code();
}
