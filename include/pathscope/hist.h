/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Log-linear histogram bucket math, shared by the BPF programs (clang -target bpf)
 * and user space (gcc). */
#ifndef PATHSCOPE_HIST_H
#define PATHSCOPE_HIST_H

#ifndef __always_inline /* user space; BPF gets it from bpf_helpers.h */
#define __always_inline inline __attribute__((always_inline))
#endif

/* Each power of two is split into PS_HIST_SUB sub-buckets, so a bucket's width
 * is at most 1/8 of its lower bound and values below 2 * PS_HIST_SUB land in
 * exact, one-wide buckets:
 *   value v < 16          -> bucket v                         (exact)
 *   value v >= 16, msb m  -> bucket (m - 2) * 8 + ((v >> (m - 3)) & 7)
 * A histogram with N buckets covers [0, 2^(N/8 + 2)); larger values are
 * counted in the last bucket (clamped), which user space reports as ">=". */
#define PS_HIST_SUB_BITS 3
#define PS_HIST_SUB	 (1U << PS_HIST_SUB_BITS)

/* Number of buckets needed to cover [0, 2^bits) exactly. */
#define PS_HIST_BUCKETS_FOR_BITS(bits) (((bits)-PS_HIST_SUB_BITS + 1) * PS_HIST_SUB)

/* The most significant set bit of a byte (0 for 0), sixteen to a row. */
/* clang-format off */
static const unsigned char ps_msb8[256] = {
	0, 0, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
	5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5,
	5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5,
	6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6,
	6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6,
	6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6,
	6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6,
	7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
	7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
	7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
	7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
	7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
	7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
	7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
	7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,

};
/* clang-format on */

/* Index of the most significant set bit of v, which must be non-zero and
 * below 2^bits. BPF has no count-leading-zeros instruction: up to three
 * halvings, then a table. bits is a constant where it matters (BPF): the
 * halvings that cannot apply compile to nothing. */
static __always_inline unsigned int ps_msb_below(unsigned long long v, unsigned int bits)
{
	unsigned int r = 0;

	if (bits > 32 && v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (bits > 16 && v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (bits > 8 && v >> 8) {
		v >>= 8;
		r += 8;
	}
	/* Opaque to the compiler: where it can prove v below 256 it would drop
	 * the & 0xff, while the verifier, which follows another copy of v, cannot
	 * (a halved RTT was rejected at load so). & 7: a bound the verifier sees. */
	__asm__ __volatile__("" : "+r"(v));
	return r + (ps_msb8[v & 0xff] & 7);
}

/* Index of the most significant set bit; v must be non-zero. */
static __always_inline unsigned int ps_msb64(unsigned long long v)
{
	return ps_msb_below(v, 64);
}

/* Bucket of value v in a histogram of nbuckets buckets (clamped). In 64-bit
 * arithmetic throughout: a 32-bit value is zero-extended on each use, and the
 * BPF verifier then loses the clamp's bound between the copies.
 *
 * v is first clamped to the top of the range the buckets cover, rounded up
 * to a power of two: the same bucket for every v, and with nbuckets a
 * constant the msb search is shorter (sizes: two halvings, not three). */
static __always_inline unsigned long long ps_hist_bucket(unsigned long long v,
							 unsigned long long nbuckets)
{
	unsigned long long bits = (nbuckets + PS_HIST_SUB - 1) / PS_HIST_SUB + PS_HIST_SUB_BITS - 1;
	unsigned long long top = bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
	unsigned long long msb, b;

	if (v > top)
		v = top;
	if (v < 2 * PS_HIST_SUB)
		b = v;
	else {
		msb = ps_msb_below(v, (unsigned int)bits);
		b = (msb - PS_HIST_SUB_BITS + 1) * PS_HIST_SUB +
		    ((v >> (msb - PS_HIST_SUB_BITS)) & (PS_HIST_SUB - 1));
	}
	/* For an nbuckets not a multiple of PS_HIST_SUB; and the verifier cannot
	 * follow the arithmetic above to the bound. Hidden from clang first: it
	 * may drop the bound on the branch where b = v, having tested v in
	 * another register than the one it returns, which the verifier does
	 * not connect (seen with gso_segs at tc ingress). */
#ifdef __bpf__
	asm volatile("" : "+r"(b));
#endif
	return b < nbuckets ? b : nbuckets - 1;
}

/* Smallest value that falls into bucket b. */
static __always_inline unsigned long long ps_hist_bucket_low(unsigned int b)
{
	unsigned int msb;

	if (b < 2 * PS_HIST_SUB)
		return b;
	msb = b / PS_HIST_SUB + PS_HIST_SUB_BITS - 1;
	return (unsigned long long)(PS_HIST_SUB + b % PS_HIST_SUB) << (msb - PS_HIST_SUB_BITS);
}

/* One past the largest value that falls into bucket b (ignoring clamping). */
static __always_inline unsigned long long ps_hist_bucket_high(unsigned int b)
{
	return ps_hist_bucket_low(b + 1);
}

#endif /* PATHSCOPE_HIST_H */
