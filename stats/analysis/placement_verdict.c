// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The placement verdict (see placement_verdict.h). */
#include "stats/analysis/placement_verdict.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nic/placement.h"
#include "stats/families/families.h"
#include "stats/format/duration.h"
#include "stats/format/hist.h"

#define MAX_CPUS 1024

struct cpuset {
	uint64_t w[MAX_CPUS / 64];
};

static bool in_set(const struct cpuset *s, int cpu)
{
	return cpu >= 0 && cpu < MAX_CPUS && (s->w[cpu / 64] >> (cpu % 64)) & 1;
}

static void set_add(struct cpuset *s, int cpu)
{
	if (cpu >= 0 && cpu < MAX_CPUS)
		s->w[cpu / 64] |= 1ULL << (cpu % 64);
}

/* A list as sysfs writes it ("0-3,8") into s: its number of CPUs (0 for ""
 * or NULL). */
static int set_parse(const char *list, struct cpuset *s)
{
	const char *p = list;
	int n = 0;

	memset(s, 0, sizeof(*s));
	while (p && *p) {
		char *end;
		long a = strtol(p, &end, 10), b = a, c;

		if (end == p)
			break;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1)
				break;
			p = end;
		}
		for (c = a; c <= b && c < MAX_CPUS; c++)
			if (!in_set(s, (int)c))
				set_add(s, (int)c), n++;
		if (*p != ',')
			break;
		p++;
	}
	return n;
}

static bool set_equal(const struct cpuset *a, const struct cpuset *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* The one CPU of s, or -1 when it has none or several. */
static int set_single(const struct cpuset *s, int n)
{
	int cpu;

	if (n != 1)
		return -1;
	for (cpu = 0; cpu < MAX_CPUS; cpu++)
		if (in_set(s, cpu))
			return cpu;
	return -1;
}

/* s as a list: "0-1,3". */
static void set_format(const struct cpuset *s, char *buf, size_t len)
{
	size_t n = 0;
	int cpu, start = -1;

	buf[0] = 0;
	for (cpu = 0; cpu <= MAX_CPUS && n + 16 < len; cpu++) {
		bool set = cpu < MAX_CPUS && in_set(s, cpu);

		if (set && start < 0)
			start = cpu;
		else if (!set && start >= 0) {
			n += (size_t)snprintf(buf + n, len - n, n ? ",%d" : "%d", start);
			if (cpu - 1 > start)
				n += (size_t)snprintf(buf + n, len - n, "-%d", cpu - 1);
			start = -1;
		}
	}
}

/* "CPU" before a list of one, "CPUs" before more. */
static const char *cpu_word(const char *list)
{
	return strpbrk(list, ",-") ? "CPUs" : "CPU";
}

/* printf at the end of buf, cut at len. */
__attribute__((format(printf, 3, 4))) static void add(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/* The CPU that alone serves q's IRQ: its effective affinity if the kernel
 * says it, else its affinity; -1 when several or none. */
static int serving_cpu(const struct ps_place_queue *q)
{
	struct cpuset s;
	int n;

	if (q->irq < 0)
		return -1;
	n = set_parse(q->effective, &s);
	if (!n)
		n = set_parse(q->affinity, &s);
	return set_single(&s, n);
}

static uint64_t frames_total(const struct ps_place_input *in, const struct ps_place_queue *q)
{
	uint64_t n = 0;
	int cpu;

	for (cpu = 0; q->frames && cpu < in->ncpus; cpu++)
		n += q->frames[cpu];
	return n;
}

/* Frames on CPUs outside s, and those CPUs as a list into cpus. */
static uint64_t frames_outside(const struct ps_place_input *in, const struct ps_place_queue *q,
			       const struct cpuset *s, char *cpus, size_t len)
{
	struct cpuset out = { 0 };
	uint64_t n = 0;
	int cpu;

	for (cpu = 0; q->frames && cpu < in->ncpus; cpu++)
		if (q->frames[cpu] && !in_set(s, cpu)) {
			n += q->frames[cpu];
			set_add(&out, cpu);
		}
	set_format(&out, cpus, len);
	return n;
}

static void shared_cpu(const struct ps_place_input *in, unsigned int i, struct ps_place_verdict *v)
{
	const struct ps_place_queue *q = &in->q[i];
	char *why = v->why[PS_PLACE_SHARED_CPU];
	size_t len = sizeof(v->why[0]);
	int cpu = serving_cpu(q), nshare = 0;
	unsigned int j;

	if (cpu < 0)
		return;
	for (j = 0; j < in->nq; j++)
		nshare += serving_cpu(&in->q[j]) == cpu;
	if (nshare < 2)
		return;
	v->holds[PS_PLACE_SHARED_CPU] = true;
	snprintf(why, len, "CPU %d alone serves the IRQs of queues", cpu);
	for (j = 0, nshare = 0; j < in->nq; j++)
		if (serving_cpu(&in->q[j]) == cpu)
			add(why, len, "%s %u (IRQ %d: %llu frames)", nshare++ ? "," : "",
			    in->q[j].queue, in->q[j].irq,
			    (unsigned long long)frames_total(in, &in->q[j]));
	if ((int)in->nq > in->ncpus)
		add(why, len, "; %u queues, %d CPUs", in->nq, in->ncpus);
}

static void off_affinity(const struct ps_place_input *in, const struct ps_place_queue *q,
			 struct ps_place_verdict *v)
{
	const char *list = *q->affinity ? q->affinity : q->effective;
	struct cpuset s;
	uint64_t out;
	char cpus[64];

	if (q->irq < 0 || v->frames < PS_PLACE_MIN_FRAMES || !set_parse(list, &s))
		return;
	out = frames_outside(in, q, &s, cpus, sizeof(cpus));
	if (out * 100 <= PS_PLACE_OFF_PCT * v->frames)
		return;
	v->holds[PS_PLACE_OFF_AFFINITY] = true;
	snprintf(v->why[PS_PLACE_OFF_AFFINITY], sizeof(v->why[0]),
		 "%llu of its %llu frames (%.1f%%) on %s %s, outside its IRQ %d's affinity %s",
		 (unsigned long long)out, (unsigned long long)v->frames, 100.0 * out / v->frames,
		 cpu_word(cpus), cpus, q->irq, list);
}

static void spread(const struct ps_place_input *in, const struct ps_place_queue *q,
		   struct ps_place_verdict *v)
{
	char *why = v->why[PS_PLACE_SPREAD];
	size_t len = sizeof(v->why[0]);
	uint64_t top = 0, prev = UINT64_MAX;
	int cpu, shown;

	if (v->frames < PS_PLACE_MIN_FRAMES)
		return;
	for (cpu = 0; cpu < in->ncpus; cpu++)
		if (q->frames[cpu] > top)
			top = q->frames[cpu];
	if (top * 100 > PS_PLACE_SPREAD_PCT * v->frames)
		return;
	v->holds[PS_PLACE_SPREAD] = true;
	snprintf(why, len, "no CPU has over %d%% of its %llu frames:", PS_PLACE_SPREAD_PCT,
		 (unsigned long long)v->frames);
	/* the CPUs by frames, heaviest first (equal ones by number), four at most */
	for (shown = 0; shown < 4;) {
		uint64_t best = 0;

		for (cpu = 0; cpu < in->ncpus; cpu++)
			if (q->frames[cpu] < prev && q->frames[cpu] > best)
				best = q->frames[cpu];
		if (!best)
			break;
		for (cpu = 0; cpu < in->ncpus && shown < 4; cpu++)
			if (q->frames[cpu] == best) {
				add(why, len, "%s CPU %d %.1f%%", shown ? "," : "", cpu,
				    100.0 * best / v->frames);
				shown++;
			}
		prev = best;
	}
}

static void rps(const struct ps_place_input *in, const struct ps_place_queue *q,
		struct ps_place_verdict *v)
{
	struct cpuset r, here = { 0 };
	char *why = v->why[PS_PLACE_RPS], list[64];
	size_t len = sizeof(v->why[0]);
	int cpu = serving_cpu(q);

	if (!set_parse(q->rps, &r))
		return;
	if (cpu >= 0) {
		set_add(&here, cpu);
		if (set_equal(&r, &here))
			return;
		v->holds[PS_PLACE_RPS] = true;
		snprintf(why, len,
			 "RPS sends its skbs to %s %s (rps_cpus), not only CPU %d that "
			 "serves its IRQ %d",
			 cpu_word(q->rps), q->rps, cpu, q->irq);
		return;
	}
	for (cpu = 0; q->frames && cpu < in->ncpus; cpu++)
		if (q->frames[cpu])
			set_add(&here, cpu);
	if (set_equal(&r, &here))
		return;
	v->holds[PS_PLACE_RPS] = true;
	if (!v->frames) {
		snprintf(why, len,
			 "RPS sends its skbs to %s %s (rps_cpus); no frames of it in "
			 "the window to say where it runs",
			 cpu_word(q->rps), q->rps);
		return;
	}
	set_format(&here, list, sizeof(list));
	snprintf(why, len,
		 "RPS sends its skbs to %s %s (rps_cpus), not only %s %s that "
		 "handled its %llu frames at XDP",
		 cpu_word(q->rps), q->rps, cpu_word(list), list, (unsigned long long)v->frames);
}

static void remote_numa(const struct ps_place_input *in, const struct ps_place_queue *q,
			struct ps_place_verdict *v)
{
	char *why = v->why[PS_PLACE_REMOTE_NUMA], cpus[64];
	size_t len = sizeof(v->why[0]);
	struct cpuset node;
	uint64_t out;
	int cpu;

	if (in->numa_node < 0 || !set_parse(in->numa_cpus, &node))
		return;
	if (v->frames >= PS_PLACE_MIN_FRAMES) {
		out = frames_outside(in, q, &node, cpus, sizeof(cpus));
		if (out * 100 <= PS_PLACE_OFF_PCT * v->frames)
			return;
		v->holds[PS_PLACE_REMOTE_NUMA] = true;
		snprintf(why, len,
			 "%llu of its %llu frames (%.1f%%) on %s %s, outside the device's NUMA "
			 "node %d (%s %s)",
			 (unsigned long long)out, (unsigned long long)v->frames,
			 100.0 * out / v->frames, cpu_word(cpus), cpus, in->numa_node,
			 cpu_word(in->numa_cpus), in->numa_cpus);
		return;
	}
	cpu = serving_cpu(q);
	if (cpu < 0 || in_set(&node, cpu))
		return;
	v->holds[PS_PLACE_REMOTE_NUMA] = true;
	snprintf(why, len, "CPU %d serves its IRQ %d, outside the device's NUMA node %d (%s %s)",
		 cpu, q->irq, in->numa_node, cpu_word(in->numa_cpus), in->numa_cpus);
}

/* A duration as the tables print it ("-" for no sample). */
static void fmt_ns(char *buf, size_t len, uint64_t ns, uint64_t count)
{
	if (!count)
		snprintf(buf, len, "-");
	else
		ps_fmt_duration(buf, len, ns, false);
}

static void ksoftirqd(const struct ps_place_queue *q, struct ps_place_verdict *v)
{
	const struct ps_fh_qstats *f = q->fh;
	uint64_t n, m;
	char w[16];

	if (!f)
		return;
	n = f->polls[PS_FH_KSOFTIRQD];
	m = f->polls[PS_FH_IRQ] + n + f->polls[PS_FH_TIMER] + f->polls[PS_FH_OTHER];
	if (m < PS_PLACE_MIN_SIRQ_POLLS || n * 100 <= PS_PLACE_KSIRQD_PCT * m)
		return;
	v->holds[PS_PLACE_KSOFTIRQD] = true;
	snprintf(v->why[PS_PLACE_KSOFTIRQD], sizeof(v->why[0]),
		 "%llu of its %llu softirq polls (%.1f%%) ran in ksoftirqd", (unsigned long long)n,
		 (unsigned long long)m, 100.0 * n / m);
	if (!f->waited) {
		add(v->why[PS_PLACE_KSOFTIRQD], sizeof(v->why[0]), "; no softirq wait timed");
		return;
	}
	fmt_ns(w, sizeof(w), f->wait_sum_ns / f->waited, f->waited);
	add(v->why[PS_PLACE_KSOFTIRQD], sizeof(v->why[0]),
	    "; softirq wait %s on average over %llu timed runs", w, (unsigned long long)f->waited);
}

/* " name V" (unit after it), or " name n/a". */
static void knob(char *buf, size_t len, const char *name, long v, const char *unit)
{
	if (v < 0)
		add(buf, len, " %s n/a", name);
	else
		add(buf, len, " %s %ld%s", name, v, unit);
}

static void deferred(const struct ps_place_queue *q, struct ps_place_verdict *v)
{
	const struct ps_fh_qstats *f = q->fh;
	char *why = v->why[PS_PLACE_DEFERRED];
	size_t len = sizeof(v->why[0]);
	uint64_t n, m;

	if (!f)
		return;
	n = f->polls[PS_FH_TIMER];
	m = f->polls[PS_FH_IRQ] + f->polls[PS_FH_KSOFTIRQD] + n + f->polls[PS_FH_OTHER];
	if (m < PS_PLACE_MIN_SIRQ_POLLS || n * 100 <= PS_PLACE_DEFERRED_PCT * m)
		return;
	v->holds[PS_PLACE_DEFERRED] = true;
	snprintf(why, len,
		 "%llu of its %llu softirq polls (%.1f%%) were started by NAPI's deferral timer;",
		 (unsigned long long)n, (unsigned long long)m, 100.0 * n / m);
	knob(why, len, "napi_defer_hard_irqs", q->defer_hard_irqs, "");
	add(why, len, ",");
	knob(why, len, "gro_flush_timeout", q->gro_flush_timeout, " ns");
}

static void thread_starved(const struct ps_place_queue *q, struct ps_place_verdict *v)
{
	const struct ps_fh_qstats *f = q->fh;
	uint64_t mean;
	char w[2][16];

	if (!f || f->thread_waited < PS_PLACE_MIN_THREAD_WAITS)
		return;
	mean = f->thread_wait_sum_ns / f->thread_waited;
	if (mean <= PS_PLACE_THREAD_WAIT_NS)
		return;
	v->holds[PS_PLACE_THREAD_STARVED] = true;
	fmt_ns(w[0], sizeof(w[0]), mean, 1);
	fmt_ns(w[1], sizeof(w[1]), ps_hist_max(f->thread_wait_hist, PS_LAT_BUCKETS), 1);
	snprintf(v->why[PS_PLACE_THREAD_STARVED], sizeof(v->why[0]),
		 "its NAPI thread polled %s after its IRQ on average (at most %s) over %llu "
		 "timed polls",
		 w[0], w[1], (unsigned long long)f->thread_waited);
}

int ps_place_verdict(const struct ps_place_input *in, unsigned int i, struct ps_place_verdict *v)
{
	const struct ps_place_queue *q = &in->q[i];
	int c, n = 0;

	memset(v, 0, sizeof(*v));
	v->queue = q->queue;
	v->frames = frames_total(in, q);
	shared_cpu(in, i, v);
	off_affinity(in, q, v);
	if (q->frames)
		spread(in, q, v);
	rps(in, q, v);
	remote_numa(in, q, v);
	ksoftirqd(q, v);
	deferred(q, v);
	thread_starved(q, v);
	for (c = 0; c < PS_PLACE_NCAUSES; c++)
		n += v->holds[c];
	return n;
}

const char *ps_place_cause_name(enum ps_place_cause c)
{
	static const char *const names[] = { "shared_cpu", "off_affinity",  "spread",
					     "rps",	   "remote_numa",   "ksoftirqd",
					     "deferred",   "thread_starved" };

	return (unsigned int)c < PS_PLACE_NCAUSES ? names[c] : "?";
}

const char *ps_place_cause_advice(enum ps_place_cause c, bool irq)
{
	switch (c) {
	case PS_PLACE_SHARED_CPU:
		return "one CPU takes these queues' interrupts and polls: give each its own "
		       "(smp_affinity_list, irqbalance's banned CPUs)";
	case PS_PLACE_OFF_AFFINITY:
		return "polled off its IRQ's CPUs: NAPI threads or busy polling run it elsewhere";
	case PS_PLACE_SPREAD:
		return irq ? "its IRQ moved (irqbalance) or threads or pollers on several CPUs ran "
			     "it: pin its IRQ (smp_affinity_list)"
			   : "no IRQ of its own: it runs where its frames are sent or polled, "
			     "and its senders run on several CPUs";
	case PS_PLACE_RPS:
		return "RPS hands its packets to other CPUs after XDP: the stack runs there "
		       "(rps_cpus)";
	case PS_PLACE_KSOFTIRQD:
		return "NET_RX outran its budget and waited for the scheduler: the CPU's load, "
		       "time_squeeze, netdev_budget(_usecs)";
	case PS_PLACE_DEFERRED:
		return "NAPI's deferral holds its frames until gro_flush_timeout: lower it, or "
		       "napi_defer_hard_irqs, where latency matters";
	case PS_PLACE_THREAD_STARVED:
		return "another task holds its NAPI thread's CPU: that CPU's load, the thread's "
		       "chrt and taskset, or threaded off";
	case PS_PLACE_REMOTE_NUMA:
	default:
		return "handled off the device's NUMA node: its memory is remote; move its IRQ "
		       "to the node's CPUs";
	}
}

int ps_place_report(const struct ps_report *r, struct ps_place_report *out)
{
	const struct ps_snapshot *s = r->cur;
	const struct ps_nic_placement *p = s->place;
	struct ps_place_queue *qs;
	struct ps_place_input in;
	struct ps_fh_qstats *fh;
	__u64 *frames;
	unsigned int q, nq;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (!p || !s->xdp_cpu || s->ncpus <= 0)
		return 0;
	nq = p->nrx < s->nslots - 1 ? p->nrx : s->nslots - 1;
	qs = calloc(nq ? nq : 1, sizeof(*qs));
	frames = calloc((size_t)(nq ? nq : 1) * s->ncpus, sizeof(*frames));
	fh = calloc(nq ? nq : 1, sizeof(*fh));
	out->v = calloc(nq ? nq : 1, sizeof(*out->v));
	if (!qs || !frames || !fh || !out->v) {
		err = -ENOMEM;
		goto out;
	}
	for (q = 0; q < nq; q++) {
		ps_placement_window(r, q, frames + (size_t)q * s->ncpus);
		qs[q] =
		    (struct ps_place_queue){ .queue = q,
					     .irq = p->rx[q].irq,
					     .affinity = p->rx[q].affinity,
					     .effective = p->rx[q].effective,
					     .rps = p->rx[q].rps,
					     .frames = frames + (size_t)q * s->ncpus,
					     .defer_hard_irqs = p->rx[q].napi_defer_hard_irqs >= 0
								    ? p->rx[q].napi_defer_hard_irqs
								    : p->defer_hard_irqs,
					     .gro_flush_timeout =
						 p->rx[q].napi_gro_flush_timeout >= 0
						     ? p->rx[q].napi_gro_flush_timeout
						     : p->gro_flush_timeout };
		/* the first hop over the same window as the frames */
		if (ps_firsthop_window(r, q, &fh[q])) {
			qs[q].fh = &fh[q];
			out->firsthop = true;
		}
	}
	in = (struct ps_place_input){ .nq = nq,
				      .q = qs,
				      .ncpus = s->ncpus,
				      .numa_node = p->numa_node,
				      .numa_cpus = p->numa_cpus };
	for (q = 0; q < nq; q++)
		ps_place_verdict(&in, q, &out->v[q]);
	out->nq = nq;
	out->known = true;
	out->irq_per_queue = p->irqs_mapped > 0;
out:
	free(qs);
	free(frames);
	free(fh);
	return err;
}

void ps_place_report_free(struct ps_place_report *p)
{
	free(p->v);
	p->v = NULL;
	p->nq = 0;
}
