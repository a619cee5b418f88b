// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* tapwire: be the "wire" of a tap device, draining each queue every PERIOD_MS so that
 * the driver's TX completion takes between 0 and PERIOD_MS; and the reference clock
 * for that latency, from each frame's send stamp (stamp.h) to the read that frees it. */
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "stamp.h"

#define MAX_QUEUES 8
#define MAX_AGE_NS (10ULL * 1000000000ULL) /* older "stamps" are payload, not a clock */

struct queue {
	int fd;
	uint64_t period_ns, next_ns;
	unsigned long frames, stamped;
	uint64_t sum_ns, min_ns, max_ns;
};

/* Usage: tapwire IFNAME PERIOD_MS[,PERIOD_MS...] SECONDS
 *
 * It is also the reference clock for that latency: a UDP frame whose payload
 * carries a send time (udpsend --stamp: CLOCK_MONOTONIC ns, big endian, in
 * payload bytes 4..11) is timed from that stamp to the return of the read()
 * that freed it.
 *
 * Prints "ready" once the device exists. At the end, one line per queue:
 *   queue Q frames F stamped S sum_ns T min_ns A max_ns B
 * then the total number of frames read, alone on the last line. Exits 1 with
 * one line on stderr on error, 2 on bad usage. */
static int usage(void)
{
	fprintf(stderr, "usage: tapwire IFNAME PERIOD_MS[,PERIOD_MS...] SECONDS (1..%d queues)\n",
		MAX_QUEUES);
	return 2;
}

/* The send time a UDP frame (IPv4 or IPv6) carries, or 0. */
static uint64_t frame_stamp(const unsigned char *f, size_t len)
{
	size_t l4;

	if (len < 14)
		return 0;
	if (f[12] == 0x08 && f[13] == 0x00 && len >= 34 && f[23] == 17)
		l4 = 14 + (f[14] & 0x0f) * 4;
	else if (f[12] == 0x86 && f[13] == 0xdd && len >= 54 && f[20] == 17)
		l4 = 14 + 40;
	else
		return 0;
	if (len < l4 + 8 + STAMP_END)
		return 0;
	return stamp_get(f + l4 + 8);
}

/* Read every frame waiting in queue q, timing the stamped ones. */
static int drain(struct queue *q)
{
	static unsigned char frame[65536];
	uint64_t sent, read_ns, d;
	ssize_t n;

	while ((n = read(q->fd, frame, sizeof(frame))) > 0) {
		read_ns = clock_ns(CLOCK_MONOTONIC);
		q->frames++;
		sent = frame_stamp(frame, (size_t)n);
		if (!sent || sent > read_ns || (d = read_ns - sent) > MAX_AGE_NS)
			continue;
		q->stamped++;
		q->sum_ns += d;
		if (!q->min_ns || d < q->min_ns)
			q->min_ns = d;
		if (d > q->max_ns)
			q->max_ns = d;
	}
	if (n < 0 && errno != EAGAIN) {
		fprintf(stderr, "tapwire: read: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI };
	struct queue qs[MAX_QUEUES] = { 0 };
	unsigned long total = 0;
	uint64_t end;
	double seconds;
	char *p, *e;
	int nq = 0, i;

	if (argc != 4 || strlen(argv[1]) >= IFNAMSIZ || (seconds = atof(argv[3])) <= 0)
		return usage();
	for (p = argv[2]; *p; p = *e ? e + 1 : e) {
		long ms = strtol(p, &e, 10);

		if (e == p || ms <= 0 || ms > 10000 || (*e && *e != ',') || nq == MAX_QUEUES)
			return usage();
		qs[nq++].period_ns = (uint64_t)ms * 1000000ULL;
	}
	if (nq > 1)
		ifr.ifr_flags |= IFF_MULTI_QUEUE;
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", argv[1]);
	for (i = 0; i < nq; i++) { /* each TUNSETIFF on a new fd attaches one more queue */
		qs[i].fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (qs[i].fd < 0) {
			fprintf(stderr, "tapwire: /dev/net/tun: %s\n", strerror(errno));
			return 1;
		}
		if (ioctl(qs[i].fd, TUNSETIFF, &ifr)) {
			fprintf(stderr, "tapwire: TUNSETIFF %s (queue %d): %s\n", argv[1], i,
				strerror(errno));
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	end = clock_ns(CLOCK_MONOTONIC) + (uint64_t)(seconds * 1e9);
	for (i = 0; i < nq; i++)
		qs[i].next_ns = clock_ns(CLOCK_MONOTONIC) + qs[i].period_ns;
	for (;;) {
		struct queue *q = &qs[0];
		struct timespec at;

		for (i = 1; i < nq; i++) /* the queue due first */
			if (qs[i].next_ns < q->next_ns)
				q = &qs[i];
		if (q->next_ns >= end)
			break;
		at.tv_sec = q->next_ns / 1000000000ULL;
		at.tv_nsec = q->next_ns % 1000000000ULL;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR)
			;
		if (drain(q))
			return 1;
		/* Keep the phase; after a long stall, skip the drains missed. */
		do
			q->next_ns += q->period_ns;
		while (q->next_ns <= clock_ns(CLOCK_MONOTONIC));
	}
	for (i = 0; i < nq; i++) {
		printf("queue %d frames %lu stamped %lu sum_ns %llu min_ns %llu max_ns %llu\n", i,
		       qs[i].frames, qs[i].stamped, (unsigned long long)qs[i].sum_ns,
		       (unsigned long long)qs[i].min_ns, (unsigned long long)qs[i].max_ns);
		total += qs[i].frames;
	}
	printf("%lu\n", total);
	return 0;
}
