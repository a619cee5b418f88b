/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Where an RX queue runs, judged: the verdict `pathscope stats` gives after RX QUEUES BY
 * CPU, from the placement (nic/placement.h), its XDP frames by CPU over the window and,
 * with firsthop, its polls' starts and waits; each cause that holds, with its figures. */
#ifndef PATHSCOPE_STATS_ANALYSIS_PLACEMENT_VERDICT_H
#define PATHSCOPE_STATS_ANALYSIS_PLACEMENT_VERDICT_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>

#include "stats/read/report.h"

#define PS_PLACE_MIN_FRAMES	  100	  /* in the window, for a measured cause */
#define PS_PLACE_OFF_PCT	  10	  /* off_affinity, remote_numa: more than this share */
#define PS_PLACE_SPREAD_PCT	  90	  /* spread: no CPU over this share */
#define PS_PLACE_MIN_SIRQ_POLLS	  100	  /* ksoftirqd: polls in softirq runs, in the window */
#define PS_PLACE_KSIRQD_PCT	  25	  /* ksoftirqd: more than this share of them */
#define PS_PLACE_DEFERRED_PCT	  50	  /* deferred: more than this share of them */
#define PS_PLACE_MIN_THREAD_WAITS 10	  /* thread_starved: timed NAPI thread waits */
#define PS_PLACE_THREAD_WAIT_NS	  2000000 /* thread_starved: their mean above this */

/* The causes:
 *   shared_cpu    its IRQ and the IRQ of one or more other RX queues are
 *                 all served by one CPU (the effective affinity, else the
 *                 affinity, names that one CPU alone);
 *   off_affinity  more than 10% of its frames were handled on CPUs its
 *                 IRQ's affinity does not name (NAPI threads, busy polling);
 *   spread        no CPU handled more than 90% of its frames: its IRQ moved
 *                 (irqbalance), or threads or pollers on several CPUs ran it
 *                 (veth: its senders run on several CPUs);
 *   rps           RPS sends its skbs to CPUs (rps_cpus) other than the one
 *                 that serves its IRQ (or, without one, that handled its
 *                 frames): the stack after XDP runs there;
 *   remote_numa   more than 10% of its frames were handled on CPUs outside
 *                 the device's NUMA node, or (no frames) its IRQ is served
 *                 there;
 * with feature firsthop (the poll-start counts are exact, not sampled):
 *   ksoftirqd     more than 25% of its polls in NET_RX softirq runs ran in
 *                 ksoftirqd, out of at least 100: NET_RX outran its budget
 *                 (netdev_budget, netdev_budget_usecs, MAX_SOFTIRQ_TIME) and
 *                 the rest waited for the scheduler. A quiet queue sees a
 *                 few (0-4 of 40 polls under TCG: a run that outlasts a
 *                 tick), a flood most (49-83% under TCG);
 *   deferred      more than half of them (at least 100) were started by
 *                 NAPI's deferral timer (napi_defer_hard_irqs,
 *                 gro_flush_timeout): their frames waited for the timer;
 *   thread_starved  its NAPI thread's timed waits (the queue's IRQ -> the
 *                 thread's poll at XDP) average over 2 ms, out of at least
 *                 10: another task holds the thread's CPU. A thread that
 *                 gets its CPU waits tens of microseconds (under TCG 305 us
 *                 on 6.1, 1.1 ms on 6.12); one starved by a SCHED_FIFO task
 *                 on its CPU 6-369 ms (6.1, 6.12 guests); 2 ms lies between.
 * The measured causes (off_affinity, spread, remote_numa by frames) need at
 * least 100 frames in the window: the per-CPU counts are exact, not
 * sampled, but a handful of frames says nothing of where a queue runs. A
 * queue without an IRQ of its own (veth) has no shared_cpu or off_affinity
 * (nor thread_starved: no IRQ starts a thread wait). */
enum ps_place_cause {
	PS_PLACE_SHARED_CPU,
	PS_PLACE_OFF_AFFINITY,
	PS_PLACE_SPREAD,
	PS_PLACE_RPS,
	PS_PLACE_REMOTE_NUMA,
	PS_PLACE_KSOFTIRQD,
	PS_PLACE_DEFERRED,
	PS_PLACE_THREAD_STARVED,
	PS_PLACE_NCAUSES,
};

/* What the verdict needs of one RX queue. CPU lists as sysfs writes them
 * ("0-3,8"; "" none or n/a). */
struct ps_place_queue {
	uint32_t queue;
	int irq;		       /* -1: none of its own */
	const char *affinity;	       /* its IRQ's smp_affinity_list */
	const char *effective;	       /* its IRQ's effective_affinity_list */
	const char *rps;	       /* rps_cpus */
	const __u64 *frames;	       /* its XDP frames by CPU in the window (ncpus); NULL: none */
	const struct ps_fh_qstats *fh; /* its first hop in the window; NULL: firsthop off */
	long defer_hard_irqs;	       /* its NAPI's, else the device's; -1 n/a */
	long gro_flush_timeout;	       /* ns, likewise */
};

struct ps_place_input {
	unsigned int nq;
	const struct ps_place_queue *q;
	int ncpus;
	int numa_node;	       /* -1: none or unknown */
	const char *numa_cpus; /* the node's cpulist; "" unknown */
};

struct ps_place_verdict {
	uint32_t queue;
	uint64_t frames; /* in the window */
	bool holds[PS_PLACE_NCAUSES];
	char why[PS_PLACE_NCAUSES][240]; /* the figures behind each that holds */
};

/* The verdict of queue i of in: the number of causes that hold. */
int ps_place_verdict(const struct ps_place_input *in, unsigned int i, struct ps_place_verdict *v);

/* "shared_cpu", "off_affinity", "spread", "rps", "remote_numa", "ksoftirqd",
 * "deferred", "thread_starved". */
const char *ps_place_cause_name(enum ps_place_cause c);

/* What it means, one line; irq: the queue has an IRQ of its own. */
const char *ps_place_cause_advice(enum ps_place_cause c, bool irq);

/* The verdicts of a report's interface, from its snapshot's placement
 * (NULL: not read, another network namespace) and its XDP frames by CPU. */
struct ps_place_report {
	bool known;	    /* the snapshot has the placement and the frames by CPU */
	bool irq_per_queue; /* some RX queue has an IRQ of its own */
	bool firsthop;	    /* the first-hop causes were judged (feature firsthop) */
	unsigned int nq;
	struct ps_place_verdict *v; /* nq */
};
/* 0, or -ENOMEM; ps_place_report_free frees it either way. */
int ps_place_report(const struct ps_report *r, struct ps_place_report *out);
void ps_place_report_free(struct ps_place_report *p);

#endif /* PATHSCOPE_STATS_ANALYSIS_PLACEMENT_VERDICT_H */
