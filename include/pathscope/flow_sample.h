/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Feature flows' sampling, shared by the XDP program and user space: 1 frame in N,
 * each with probability 1/N (Bernoulli), drawn as a geometric skip so that an
 * unsampled frame costs one decrement of a per-CPU counter. */
#ifndef PATHSCOPE_FLOW_SAMPLE_H
#define PATHSCOPE_FLOW_SAMPLE_H

/* After Miano et al., "Fast In-kernel Traffic Sketching in eBPF", CCR 2023.
 * The skip after a sample is floor(-log2(U) * K), U uniform in (0, 1) from
 * bpf_get_prandom_u32(), K = 1 / -log2(1 - 1/N): P(skip >= k) = (1 - 1/N)^k,
 * the number of failures before the next success of a Bernoulli(1/N) trial.
 * BPF has no floating point: log2 of the 32-bit random is its top bit's
 * position plus a 64-entry table of log2(1 + (m + 0.5) / 64) for the next
 * six bits, in 16.16 fixed point (at most 0.011 bits off), and K is 16.16
 * fixed point computed by the loader (ps_flow_skip_k()). */
#ifdef __bpf__
/* log2(1 + (m + 0.5) / 64) * 65536, m = 0..63 */
static const __u32 ps_log2_mant[64] = {
	736,   2190,  3623,  5034,  6425,  7795,  9146,	 10477, 11791, 13086, 14363, 15624, 16868,
	18096, 19308, 20505, 21687, 22854, 24007, 25146, 26272, 27384, 28484, 29571, 30645, 31707,
	32758, 33797, 34825, 35841, 36847, 37842, 38827, 39802, 40767, 41722, 42667, 43603, 44530,
	45448, 46357, 47258, 48150, 49034, 49909, 50776, 51636, 52488, 53332, 54169, 54998, 55820,
	56635, 57443, 58245, 59039, 59827, 60609, 61384, 62152, 62915, 63671, 64421, 65166,
};
#else
#include <math.h>

/* K = 1 / -log2(1 - 1/n) in 16.16 fixed point; 0 for n <= 1 (every frame). */
static inline __u64 ps_flow_skip_k(__u32 n)
{
	if (n <= 1)
		return 0;
	return (__u64)llround(65536.0 / -log2(1.0 - 1.0 / (double)n));
}
#endif

#endif /* PATHSCOPE_FLOW_SAMPLE_H */
