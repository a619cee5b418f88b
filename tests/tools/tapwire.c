// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tapwire: be the "wire" of a tap device. Creates tap IFNAME in the current
 * network namespace and drains the frames the host transmits on it every
 * PERIOD_MS milliseconds, for SECONDS seconds, so that a frame waits in the
 * tap's queue until the next drain: the driver's TX completion (the skb is
 * freed when the frame is read) takes between 0 and PERIOD_MS.
 *
 *   tapwire IFNAME PERIOD_MS SECONDS
 *
 * Prints "ready" once the device exists, then at the end the number of
 * frames read. Exits 1 with one line on stderr on error.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI };
	char frame[65536];
	long period_ms, frames = 0;
	double seconds, end;
	struct timespec gap;
	ssize_t n;
	int fd;

	if (argc != 4 || (period_ms = atol(argv[2])) <= 0 || (seconds = atof(argv[3])) <= 0 ||
	    strlen(argv[1]) >= IFNAMSIZ) {
		fprintf(stderr, "usage: tapwire IFNAME PERIOD_MS SECONDS\n");
		return 2;
	}
	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "tapwire: /dev/net/tun: %s\n", strerror(errno));
		return 1;
	}
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", argv[1]);
	if (ioctl(fd, TUNSETIFF, &ifr)) {
		fprintf(stderr, "tapwire: TUNSETIFF %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	gap.tv_sec = period_ms / 1000;
	gap.tv_nsec = (period_ms % 1000) * 1000000L;
	end = now_s() + seconds;
	while (now_s() < end) {
		nanosleep(&gap, NULL);
		while ((n = read(fd, frame, sizeof(frame))) > 0)
			frames++;
		if (n < 0 && errno != EAGAIN) {
			fprintf(stderr, "tapwire: read: %s\n", strerror(errno));
			return 1;
		}
	}
	printf("%ld\n", frames);
	return 0;
}
