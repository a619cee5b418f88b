// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The send stamp that the test tools carry in a UDP payload across a wire: udpsend
 * --stamp writes it; udpsend --stamped and tapwire read it on the other side. */
#ifndef PATHSCOPE_TESTS_TOOLS_STAMP_H
#define PATHSCOPE_TESTS_TOOLS_STAMP_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC (bpf_ktime_get_ns's clock) in ns, 8 bytes big endian, in
 * payload bytes 4..11, after udpsend's sequence number. */
#define STAMP_OFF 4 /* in the payload */
#define STAMP_END (STAMP_OFF + 8)

static inline uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static inline void stamp_put(unsigned char *payload, uint64_t ns)
{
	int b;

	for (b = STAMP_END - 1; b >= STAMP_OFF; b--, ns >>= 8)
		payload[b] = (unsigned char)(ns & 0xff);
}

static inline uint64_t stamp_get(const unsigned char *payload)
{
	uint64_t ns = 0;
	int b;

	for (b = STAMP_OFF; b < STAMP_END; b++)
		ns = ns << 8 | payload[b];
	return ns;
}

#endif /* PATHSCOPE_TESTS_TOOLS_STAMP_H */
