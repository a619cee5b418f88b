/* SPDX-License-Identifier: GPL-2.0 */
/* Exact brackets for the datapath's latencies, against CLOCK_MONOTONIC (the clock of
 * bpf_ktime_get_ns()): noise widens a bracket, never moves the truth out of it. */
#ifndef PATHSCOPE_TESTS_LIB_BRACKET_H
#define PATHSCOPE_TESTS_LIB_BRACKET_H

#include <linux/types.h>
#include <time.h>

/* A sample timed from a packet run through BPF_PROG_TEST_RUN in span a to one
 * run in span b, with a sleep between, lies in [b.start - a.end, b.end -
 * a.start] by construction, whatever the machine's load: noise widens the
 * bracket, never moves the truth out of it. The 2 ms sleep makes a constant
 * error (+-200 us), a scale error (x1.2, x0.8) or a unit error fall outside it. */
#define BRACKET_GAP_NS 2000000ULL

struct span {
	__u64 start, end;
};

static inline __u64 mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (__u64)t.tv_sec * 1000000000ULL + (__u64)t.tv_nsec;
}

/* The sleep between the two packets of a bracket. */
static inline void bracket_gap(void)
{
	struct timespec t = { 0, (long)BRACKET_GAP_NS };

	nanosleep(&t, NULL);
}

/* Spin until CLOCK_MONOTONIC reaches t: a gap that ends where the test
 * wants (a sleep overshoots by tens of microseconds). */
static inline void bracket_until(__u64 t)
{
	while (mono_ns() < t)
		;
}

/* The bracket of a sample timed from span a to span b. */
static inline void bracket_of(const struct span *a, const struct span *b, __u64 *lo, __u64 *hi)
{
	*lo = b->start - a->end;
	*hi = b->end - a->start;
}

#endif /* PATHSCOPE_TESTS_LIB_BRACKET_H */
