// SPDX-License-Identifier: GPL-2.0
/* The log-linear histogram bucket math of include/pathscope/hist.h, which the BPF
 * programs and user space share; each check loops over many values and reports the
 * first failure. */
#include <linux/types.h>
#include <stdbool.h>
#include <stdint.h>
#include "pathscope/abi.h"
#include "tests/lib/check.h"

/* The bucket as the tests print it (ps_hist_bucket computes in 64 bits). */
static unsigned int bucket(unsigned long long v, unsigned long long n)
{
	return (unsigned int)ps_hist_bucket(v, n);
}

/* Large enough that no value below 2^64 is clamped: 2^64 needs
 * PS_HIST_BUCKETS_FOR_BITS(64) = 496 buckets. */
#define UNCLAMPED 1024u

typedef unsigned long long u64;

static char why[256];

#define FAIL(...) (snprintf(why, sizeof(why), __VA_ARGS__), false)

static bool sizes(void)
{
	if (PS_SIZE_BUCKETS != 144)
		return FAIL("PS_SIZE_BUCKETS is %u", (unsigned int)PS_SIZE_BUCKETS);
	if (PS_SEGS_BUCKETS != 64)
		return FAIL("PS_SEGS_BUCKETS is %u", (unsigned int)PS_SEGS_BUCKETS);
	if (PS_HIST_SUB != 8)
		return FAIL("PS_HIST_SUB is %u", PS_HIST_SUB);
	return true;
}

static bool msb_single_bits(void)
{
	unsigned int i;

	for (i = 0; i < 64; i++) {
		if (ps_msb64(1ULL << i) != i)
			return FAIL("ps_msb64(1 << %u) = %u", i, ps_msb64(1ULL << i));
		/* all bits at and below i set */
		if (ps_msb64(~0ULL >> (63 - i)) != i)
			return FAIL("ps_msb64(2^%u - 1 + 2^%u) = %u", i, i,
				    ps_msb64(~0ULL >> (63 - i)));
	}
	return true;
}

static bool small_values_exact(void)
{
	unsigned int v;

	for (v = 0; v < 2 * PS_HIST_SUB; v++) {
		if (bucket(v, PS_SIZE_BUCKETS) != v)
			return FAIL("bucket(%u) = %u", v, bucket(v, PS_SIZE_BUCKETS));
		if (ps_hist_bucket_low(v) != v || ps_hist_bucket_high(v) != v + 1)
			return FAIL("bucket %u covers [%llu, %llu)", v, ps_hist_bucket_low(v),
				    ps_hist_bucket_high(v));
	}
	return true;
}

/* Every value 0..65535: monotone buckets, and low(b) <= v < high(b). */
static bool all_16bit_values(void)
{
	unsigned int v, b, prev = 0;

	for (v = 0; v <= 65535; v++) {
		b = bucket(v, PS_SIZE_BUCKETS);
		if (b < prev)
			return FAIL("bucket(%u) = %u < bucket(%u) = %u", v, b, v - 1, prev);
		if (b > prev + 1)
			return FAIL("bucket(%u) = %u skips after bucket(%u) = %u", v, b, v - 1,
				    prev);
		if (!(ps_hist_bucket_low(b) <= v && v < ps_hist_bucket_high(b)))
			return FAIL("value %u in bucket %u = [%llu, %llu)", v, b,
				    ps_hist_bucket_low(b), ps_hist_bucket_high(b));
		prev = b;
	}
	return true;
}

/* Buckets tile [0, 2^64): low/high are consistent with ps_hist_bucket at both
 * edges, and each bucket is at most 1/8 of its lower bound wide. */
static bool bucket_edges(void)
{
	unsigned int b, last = bucket(UINT64_MAX, UNCLAMPED);
	u64 lo, hi;

	for (b = 0; b <= last; b++) {
		lo = ps_hist_bucket_low(b);
		hi = b == last ? 0 : ps_hist_bucket_high(b); /* 2^64 wraps to 0 */
		if (bucket(lo, UNCLAMPED) != b)
			return FAIL("bucket(low(%u) = %llu) = %u", b, lo, bucket(lo, UNCLAMPED));
		if (bucket(hi - 1, UNCLAMPED) != b)
			return FAIL("bucket(high(%u) - 1 = %llu) = %u", b, hi - 1,
				    bucket(hi - 1, UNCLAMPED));
		if (b < last && ps_hist_bucket_low(b + 1) != hi)
			return FAIL("low(%u) = %llu != high(%u) = %llu", b + 1,
				    ps_hist_bucket_low(b + 1), b, hi);
		if (lo >= 2 * PS_HIST_SUB && (hi - lo) * PS_HIST_SUB > lo)
			return FAIL("bucket %u = [%llu, %llu) is wider than 1/8 of %llu", b, lo, hi,
				    lo);
		if (lo < 2 * PS_HIST_SUB && hi - lo != 1)
			return FAIL("bucket %u = [%llu, %llu) is not exact", b, lo, hi);
	}
	if (last != 495)
		return FAIL("bucket(UINT64_MAX) unclamped = %u, want 495", last);
	return true;
}

/* [2^k, 2^(k+1)) for k >= 4 is exactly 8 equal buckets, (k - 2) * 8 + j. */
static bool powers_of_two_split_in_8(void)
{
	unsigned int k, j, b;
	u64 lo, width;

	for (k = 4; k < 64; k++) {
		width = 1ULL << (k - 3);
		for (j = 0; j < 8; j++) {
			lo = (1ULL << k) + j * width;
			b = (k - 2) * 8 + j;
			if (bucket(lo, UNCLAMPED) != b || bucket(lo + width - 1, UNCLAMPED) != b)
				return FAIL("2^%u + %u/8: bucket(%llu) = %u, bucket(%llu) = %u, "
					    "want %u",
					    k, j, lo, bucket(lo, UNCLAMPED), lo + width - 1,
					    bucket(lo + width - 1, UNCLAMPED), b);
			if (ps_hist_bucket_low(b) != lo)
				return FAIL("low(%u) = %llu, want %llu", b, ps_hist_bucket_low(b),
					    lo);
		}
		if (bucket((1ULL << k) - 1, UNCLAMPED) != (k - 2) * 8 - 1)
			return FAIL("bucket(2^%u - 1) = %u, want %u", k,
				    bucket((1ULL << k) - 1, UNCLAMPED), (k - 2) * 8 - 1);
	}
	return true;
}

/* A histogram of N buckets covers [0, 2^(N/8 + 2)); beyond, the last. */
static bool clamping(unsigned int n, unsigned int bits)
{
	u64 top = 1ULL << bits;

	if (ps_hist_bucket_high(n - 1) != top)
		return FAIL("high(%u) = %llu, want 2^%u", n - 1, ps_hist_bucket_high(n - 1), bits);
	if (bucket(top - 1, n) != n - 1)
		return FAIL("bucket(2^%u - 1) = %u, want %u", bits, bucket(top - 1, n), n - 1);
	if (bucket(ps_hist_bucket_low(n - 1) - 1, n) != n - 2)
		return FAIL("bucket below the last = %u", bucket(ps_hist_bucket_low(n - 1) - 1, n));
	if (bucket(top, n) != n - 1 || bucket(top * 1000, n) != n - 1 ||
	    bucket(UINT64_MAX, n) != n - 1)
		return FAIL("bucket(2^%u) = %u, bucket(UINT64_MAX) = %u, want %u", bits,
			    bucket(top, n), bucket(UINT64_MAX, n), n - 1);
	return true;
}

int main(void)
{
	check_report(sizes(), "hist: PS_SIZE_BUCKETS == 144, PS_SEGS_BUCKETS == 64", "%s", why);
	check_report(msb_single_bits(), "hist: ps_msb64 of every single bit and low-bit mask", "%s",
		     why);
	check_report(small_values_exact(), "hist: values 0..15 have exact one-wide buckets", "%s",
		     why);
	check_report(all_16bit_values(),
		     "hist: values 0..65535 monotone, contiguous, low(b) <= v < high(b)", "%s",
		     why);
	check_report(bucket_edges(),
		     "hist: every bucket's low/high edges map back to it, width <= low/8", "%s",
		     why);
	check_report(powers_of_two_split_in_8(),
		     "hist: each power of two from 16 to 2^63 splits into exactly 8 buckets", "%s",
		     why);
	check_report(clamping(PS_SIZE_BUCKETS, PS_SIZE_BITS),
		     "hist: size histogram covers [0, 2^20), clamps 2^20..UINT64_MAX to bucket 143",
		     "%s", why);
	check_report(clamping(PS_SEGS_BUCKETS, PS_SEGS_BITS),
		     "hist: segs histogram covers [0, 1024), clamps 1024..UINT64_MAX to bucket 63",
		     "%s", why);
	CHECK_EQ_U64("hist: bucket(1448 B) in the size histogram", bucket(1448, PS_SIZE_BUCKETS),
		     (10 - 2) * 8 + ((1448 >> 7) & 7));
	CHECK_EQ_U64("hist: bucket(64 segments) in the segs histogram", bucket(64, PS_SEGS_BUCKETS),
		     (6 - 2) * 8);
	return check_exit_code();
}
