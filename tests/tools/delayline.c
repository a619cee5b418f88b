// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* delayline: a wire with a fixed delay between a host and its peers, for latency tests
 * on a kernel without netem: a tap device for the host and one per peer, each frame
 * forwarded after a fixed delay per direction. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#include "pathscope/hist.h" /* lateness histogram: pathscope's own bucket math */

#define LATE_BUCKETS PS_HIST_BUCKETS_FOR_BITS(36)
#define MAX_PEERS    16
#define MAX_QUEUES   16
#define MAX_FRAME    65536
#define READ_BURST   64		 /* frames read from one fd before the queues are served again */
#define POLL_MAX_NS  100000000LL /* look at the clock and at signals at least every 100 ms */

/* One direction: a FIFO of frames in a byte ring. A record is a header and
 * the frame, padded to 8 bytes; a header with len WRAP sends the reader back
 * to the start of the ring. */
struct rec {
	int64_t due_ns;
	uint32_t len;
	uint32_t pad;
};
#define WRAP UINT32_MAX

struct dir {
	char name[2 * IFNAMSIZ + 2];
	unsigned char *ring;
	size_t size, head, tail, used; /* head: next to send; tail: next free */
	int64_t delay_ns;
	int out_fd;
	uint64_t frames, bytes, dropped, unsent, late_sum, late_max;
	uint64_t write_ns; /* time spent in write(): the receiver's stack runs in it */
	uint64_t late_hist[LATE_BUCKETS];
};

struct peer {
	char name[IFNAMSIZ];
	int fd;
	unsigned char mac[6];
	struct dir to, from; /* host -> peer, peer -> host */
};

static struct peer peers[MAX_PEERS];
static int npeers;
static char host_name[IFNAMSIZ];
static int host_fd[MAX_QUEUES], nqueues = 1;
static volatile sig_atomic_t stop, step;
static unsigned char frame[MAX_FRAME];

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void on_step(int sig)
{
	(void)sig;
	if (!step)
		step = 1;
}

/* Usage:
 *   delayline [-t SECONDS] [-s SPIN_US] [-b MIB] [-r PRIO] [-c CPU] [-k FACTOR]
 *             HOST PEER...
 *     HOST  TAP[@NETNS][:QUEUES]     the host's tap; QUEUES > 1 makes it
 *                                    multiqueue (IFF_MULTI_QUEUE, one fd per queue)
 *     PEER  TAP[@NETNS]:TO_US[:FROM_US[:QUEUE]]
 *           TO_US    delay of frames from the host to this peer, microseconds
 *           FROM_US  delay of frames from this peer to the host (default TO_US)
 *           QUEUE    the host tap's queue this peer's frames are written into
 *                    (default 0): on a multiqueue tap, the queue fd a frame is
 *                    written into is the RX queue the host receives it on
 *                    (XDP's rx_queue_index, tc's queue_mapping - 1)
 *     NETNS  a name under /var/run/netns, or a path; default: the current one
 *     -t     run at most SECONDS (default 60), then exit
 *     -s     before each deadline, sleep until SPIN_US before it and spin (read
 *            and check the clock) for the rest (default 50)
 *     -b     MiB of frames in flight per direction (default 8); a frame that
 *            does not fit is dropped and counted
 *     -r     run with real-time priority PRIO (SCHED_FIFO), so that other
 *            work on the machine does not delay the frames (default 0: no)
 *     -c     run on CPU only; a sender on the same CPU then hands its frames
 *            over without waking another (virtual) CPU from idle
 *     -k     on SIGUSR1, multiply every delay by FACTOR (1..100), once: a step
 *            in latency at a moment the test chooses. Frames read before
 *            keep their due time; the delays only grow, so each direction
 *            stays in order. Prints "stepped" once the new delays apply. */
static void usage(void)
{
	fprintf(
	    stderr,
	    "usage: delayline [-t SECONDS] [-s SPIN_US] [-b MIB] [-r PRIO] [-c CPU] [-k FACTOR] "
	    "TAP[@NETNS][:QUEUES] "
	    "TAP[@NETNS]:TO_US[:FROM_US[:QUEUE]]...\n");
	exit(2);
}

static long num(const char *s, const char *what, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max || *s < '0' || *s > '9') {
		fprintf(stderr, "delayline: bad %s '%s' (%ld..%ld)\n", what, s, min, max);
		exit(2);
	}
	return v;
}

/* Split "TAP[@NETNS]" off spec (up to the first ':', which is cut); name gets
 * TAP, *ns the NETNS part or NULL. Returns what followed the ':' or NULL. */
static char *split_tap(char *spec, char *name, char **ns)
{
	char *rest = strchr(spec, ':'), *at;

	if (rest)
		*rest++ = 0;
	at = strchr(spec, '@');
	*ns = NULL;
	if (at) {
		*at = 0;
		*ns = at + 1;
	}
	if (!*spec || strlen(spec) >= IFNAMSIZ || (*ns && !**ns)) {
		fprintf(stderr, "delayline: bad tap name '%s'\n", spec);
		exit(2);
	}
	snprintf(name, IFNAMSIZ, "%s", spec);
	return rest;
}

static void die(const char *what, const char *name)
{
	fprintf(stderr, "delayline: %s %s: %s\n", what, name, strerror(errno));
	exit(1);
}

/* Enter network namespace ns (a name under /var/run/netns or a path). */
static void enter_netns(const char *ns)
{
	char path[PATH_MAX];
	int fd;

	if (strchr(ns, '/'))
		snprintf(path, sizeof(path), "%s", ns);
	else
		snprintf(path, sizeof(path), "/var/run/netns/%s", ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET))
		die("network namespace", path);
	close(fd);
}

/* Open queue fds of tap name in namespace ns (NULL: the current one; the
 * caller's namespace is restored). A tap's fd keeps working wherever the
 * device is; opening it inside ns makes SIOCGIFHWADDR look there. */
static void open_tap(const char *name, const char *ns, int *fds, int nfds, int self_ns)
{
	struct ifreq ifr;
	int i;

	if (ns)
		enter_netns(ns);
	for (i = 0; i < nfds; i++) {
		memset(&ifr, 0, sizeof(ifr));
		ifr.ifr_flags = IFF_TAP | IFF_NO_PI | (nfds > 1 ? IFF_MULTI_QUEUE : 0);
		snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
		fds[i] = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (fds[i] < 0)
			die("open /dev/net/tun for", name);
		if (ioctl(fds[i], TUNSETIFF, &ifr))
			die("TUNSETIFF", name);
	}
	if (ns && setns(self_ns, CLONE_NEWNET))
		die("back to the own network namespace from", ns);
}

static void dir_init(struct dir *d, const char *from, const char *to, long delay_us, size_t size,
		     int out_fd)
{
	char name[sizeof(d->name)];

	snprintf(name, sizeof(name), "%s>%s", from, to);
	memcpy(d->name, name, sizeof(name));
	d->delay_ns = delay_us * 1000LL;
	d->size = size;
	d->ring = malloc(size);
	if (!d->ring)
		die("malloc ring", d->name);
	memset(d->ring, 0, size); /* no page faults while forwarding */
	d->out_fd = out_fd;
}

/* Queue frame[0..len) for d, due delay after now; drop it when full. */
static void dir_push(struct dir *d, const unsigned char *f, uint32_t len, int64_t now)
{
	size_t need = sizeof(struct rec) + ((len + 7) & ~7u);
	struct rec *r;

	if (!d->used)
		d->head = d->tail = 0;
	if (d->used && d->tail <= d->head) { /* free space is head - tail */
		if (d->head - d->tail < need)
			goto full;
	} else if (d->size - d->tail < need) { /* no room at the end: wrap */
		if (d->head < need)
			goto full;
		if (d->size - d->tail >= sizeof(struct rec))
			((struct rec *)(d->ring + d->tail))->len = WRAP;
		d->used += d->size - d->tail;
		d->tail = 0;
	}
	r = (struct rec *)(d->ring + d->tail);
	r->due_ns = now + d->delay_ns;
	r->len = len;
	memcpy(r + 1, f, len);
	d->tail += need;
	d->used += need;
	if (d->tail == d->size)
		d->tail = 0;
	return;
full:
	d->dropped++;
}

/* The record at d's head, past a wrap marker; NULL when d is empty. */
static struct rec *dir_head(struct dir *d)
{
	struct rec *r;

	if (!d->used)
		return NULL;
	if (d->size - d->head < sizeof(struct rec) ||
	    ((struct rec *)(d->ring + d->head))->len == WRAP) {
		d->used -= d->size - d->head;
		d->head = 0;
		if (!d->used)
			return NULL;
	}
	r = (struct rec *)(d->ring + d->head);
	return r;
}

/* Write every frame of d that is due at now; returns the next due time or
 * INT64_MAX. */
static int64_t dir_send(struct dir *d, int64_t now)
{
	struct rec *r;
	size_t need;
	uint64_t late;

	while ((r = dir_head(d)) && r->due_ns <= now) {
		ssize_t n = write(d->out_fd, r + 1, r->len);
		int64_t done = now_ns();

		d->write_ns += (uint64_t)(done - now);
		if (n == (ssize_t)r->len) {
			late = (uint64_t)(now - r->due_ns);
			d->frames++;
			d->bytes += r->len;
			d->late_sum += late;
			d->late_hist[ps_hist_bucket(late, LATE_BUCKETS)]++;
			if (late > d->late_max)
				d->late_max = late;
		} else {
			d->unsent++;
		}
		need = sizeof(struct rec) + ((r->len + 7) & ~7u);
		d->head += need;
		d->used -= need;
		if (d->head == d->size)
			d->head = 0;
		now = done;
	}
	return r ? r->due_ns : INT64_MAX;
}

static void refresh_macs(void)
{
	struct ifreq ifr;
	int i;

	for (i = 0; i < npeers; i++) {
		memset(&ifr, 0, sizeof(ifr));
		if (!ioctl(peers[i].fd, SIOCGIFHWADDR, &ifr))
			memcpy(peers[i].mac, ifr.ifr_hwaddr.sa_data, 6);
	}
}

/* A frame from the host: to the peer with its destination MAC, else to all. */
static void from_host(const unsigned char *f, uint32_t len, int64_t now)
{
	int i, pass;

	if (len >= 6 && !(f[0] & 1)) {
		for (pass = 0; pass < 2; pass++) {
			for (i = 0; i < npeers; i++) {
				if (!memcmp(peers[i].mac, f, 6)) {
					dir_push(&peers[i].to, f, len, now);
					return;
				}
			}
			if (!pass)
				refresh_macs();
		}
	}
	for (i = 0; i < npeers; i++)
		dir_push(&peers[i].to, f, len, now);
}

/* Read up to READ_BURST frames from fd; returns how many. A tap that is down
 * reads EIO: nothing to read. */
static int drain(int fd, int host, struct peer *p)
{
	ssize_t n;
	int k;

	for (k = 0; k < READ_BURST; k++) {
		n = read(fd, frame, sizeof(frame));
		if (n < 0) {
			if (errno == EAGAIN || errno == EIO || errno == EINTR)
				break;
			die("read from", host ? host_name : p->name);
		}
		if (host)
			from_host(frame, (uint32_t)n, now_ns());
		else
			dir_push(&p->from, frame, (uint32_t)n, now_ns());
	}
	return k;
}

/* Read whatever every fd holds (all of it, in bursts). */
static void drain_all(void)
{
	int i, more;

	do {
		more = 0;
		for (i = 0; i < nqueues; i++)
			more |= drain(host_fd[i], 1, NULL) == READ_BURST;
		for (i = 0; i < npeers; i++)
			more |= drain(peers[i].fd, 0, &peers[i]) == READ_BURST;
	} while (more && !stop);
}

static int64_t send_due(int64_t now)
{
	int64_t next = INT64_MAX, t;
	int i;

	for (i = 0; i < npeers; i++) {
		t = dir_send(&peers[i].to, now);
		next = t < next ? t : next;
		t = dir_send(&peers[i].from, now);
		next = t < next ? t : next;
	}
	return next;
}

/* The upper end of the bucket holding the p-th per-mille frame: at most
 * 1/8 above the true value. */
static uint64_t late_pct(const struct dir *d, unsigned int permille)
{
	uint64_t want = (d->frames * permille + 999) / 1000, seen = 0;
	unsigned int b;

	for (b = 0; b < LATE_BUCKETS && want; b++) {
		seen += d->late_hist[b];
		if (seen >= want)
			return ps_hist_bucket_high(b);
	}
	return 0;
}

static void report(const struct dir *d)
{
	printf(
	    "%s frames %llu bytes %llu dropped %llu unsent %llu late_avg_ns %llu late_p50_ns %llu "
	    "late_p99_ns %llu late_max_ns %llu write_ns %llu\n",
	    d->name, (unsigned long long)d->frames, (unsigned long long)d->bytes,
	    (unsigned long long)d->dropped, (unsigned long long)d->unsent,
	    (unsigned long long)(d->frames ? d->late_sum / d->frames : 0),
	    (unsigned long long)late_pct(d, 500), (unsigned long long)late_pct(d, 990),
	    (unsigned long long)d->late_max, (unsigned long long)d->write_ns);
}

/* Frames from the host go to the peer whose tap has the frame's destination MAC
 * (read from each peer tap with SIOCGIFHWADDR; multicast, broadcast and unknown
 * destinations go to every peer). Frames from a peer go to the host only. Each
 * direction is a FIFO: frames leave in the order they came, each DELAY after
 * the delay line read it.
 *
 * Prints "ready" once every tap exists (the taps start down: configure and set
 * them up then). On SIGTERM, SIGINT or at the end of SECONDS it prints one line
 * per direction and exits 0; the taps go away with it:
 *   HOST>PEER frames N bytes N dropped N unsent N late_avg_ns N late_p50_ns N
 *     late_p99_ns N late_max_ns N write_ns N
 * frames and bytes written; dropped: no room in flight; unsent: the write
 * failed (the tap was down); late: how long after its due time a frame was
 * written (p50 and p99 at most 1/8 above); write_ns: the time spent in write()
 * for this direction, in which the receiving kernel handles each frame (a tap
 * without NAPI runs its receive path in the writer's call: an ICMP echo request
 * is answered, up to the reply's tc egress, before the write returns). Exits 1
 * with one line on stderr on error, 2 on a usage error.
 *
 * Its own added latency, measured on the project's VM (2 vCPUs, kernel 6.18)
 * with -r 10 -c 0 and the default spin, ping -i 0.002 from the host (on CPU 0)
 * to a peer, 2000 echoes, pathscope attached to the host's tap: the added
 * latency is pathscope's RTT (tc egress -> XDP on the host's tap) minus the
 * delays of both directions; ping's own RTT is 15-40 us longer (the host's send
 * path).
 *   delay 0 each way:       pathscope mean +45..51 us; ping p50 +59..67 us,
 *                           p90 +73..87 us, p99 +129..147 us
 *   1050 us each way:       pathscope mean +49..122 us; ping p50 +50..70 us,
 *                           p90 +70..180 us, p99 +0.13..1.9 ms
 *   4900 us each way:       pathscope mean +92..178 us; ping p50 +100 us,
 *                           p90 +120..200 us, p99 +0.6..2.3 ms
 * The delay line itself writes a frame 1.3-3.6 us after it is due (median,
 * late_p50_ns); 1% of frames are 0.1-2 ms late, and a few up to 17 ms: that
 * tail is the VM's, as a real-time task spinning on the clock here sees gaps of
 * 0.1-44 ms too (96 gaps over 100 us in 3 s). Without -r and -c the median
 * added latency was 100-300 us: the delay line then waited for idle vCPUs to
 * wake and for other work on the machine. */
int main(int argc, char **argv)
{
	struct pollfd pfd[MAX_QUEUES + MAX_PEERS];
	long seconds = 60, spin_us = 200, mib = 8, prio = 0, cpu = -1, factor = 1, to_us, from_us,
	     queue;
	struct sigaction sa = { .sa_handler = on_signal }, sa_step = { .sa_handler = on_step };
	int64_t end, now, next, wait;
	char *rest, *ns, *f;
	struct timespec ts;
	int opt, i, self_ns, npfd;

	while ((opt = getopt(argc, argv, "t:s:b:r:c:k:h")) != -1) {
		switch (opt) {
		case 't':
			seconds = num(optarg, "SECONDS", 1, 86400);
			break;
		case 's':
			spin_us = num(optarg, "SPIN_US", 0, 1000000);
			break;
		case 'b':
			mib = num(optarg, "MIB", 1, 1024);
			break;
		case 'r':
			prio = num(optarg, "PRIO", 0, 99);
			break;
		case 'c':
			cpu = num(optarg, "CPU", 0, CPU_SETSIZE - 1);
			break;
		case 'k':
			factor = num(optarg, "FACTOR", 1, 100);
			break;
		default:
			usage();
		}
	}
	if (argc - optind < 2 || argc - optind - 1 > MAX_PEERS)
		usage();
	self_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self_ns < 0)
		die("open", "/proc/self/ns/net");

	rest = split_tap(argv[optind], host_name, &ns);
	if (rest)
		nqueues = (int)num(rest, "QUEUES", 1, MAX_QUEUES);
	open_tap(host_name, ns, host_fd, nqueues, self_ns);
	for (i = optind + 1; i < argc; i++) {
		struct peer *p = &peers[npeers++];

		rest = split_tap(argv[i], p->name, &ns);
		if (!rest)
			usage();
		f = strtok(rest, ":");
		to_us = num(f ? f : "", "TO_US", 0, 10000000);
		f = strtok(NULL, ":");
		from_us = f ? num(f, "FROM_US", 0, 10000000) : to_us;
		f = strtok(NULL, ":");
		queue = f ? num(f, "QUEUE", 0, nqueues - 1) : 0;
		if (strtok(NULL, ":"))
			usage();
		open_tap(p->name, ns, &p->fd, 1, self_ns);
		dir_init(&p->to, host_name, p->name, to_us, (size_t)mib << 20, p->fd);
		dir_init(&p->from, p->name, host_name, from_us, (size_t)mib << 20, host_fd[queue]);
	}
	close(self_ns);
	refresh_macs();

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa_step, NULL);
	/* Sleep to the nanosecond, not the default 50 us timer slack. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			die("sched_setaffinity", "CPU");
	}
	if (prio) {
		struct sched_param sp = { .sched_priority = (int)prio };

		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			die("sched_setscheduler", "SCHED_FIFO");
	}
	npfd = 0;
	for (i = 0; i < nqueues; i++)
		pfd[npfd++] = (struct pollfd){ .fd = host_fd[i], .events = POLLIN };
	for (i = 0; i < npeers; i++)
		pfd[npfd++] = (struct pollfd){ .fd = peers[i].fd, .events = POLLIN };
	printf("ready\n");
	fflush(stdout);

	end = now_ns() + seconds * 1000000000LL;
	while (!stop) {
		if (step == 1) {
			for (i = 0; i < npeers; i++) {
				peers[i].to.delay_ns *= factor;
				peers[i].from.delay_ns *= factor;
			}
			step = 2; /* once */
			printf("stepped\n");
			fflush(stdout);
		}
		now = now_ns();
		if (now >= end)
			break;
		next = send_due(now);
		now = now_ns();
		wait = (next < end ? next : end) - now;
		if (wait <= spin_us * 1000LL) { /* close to a deadline: spin */
			drain_all();
			continue;
		}
		wait -= spin_us * 1000LL;
		if (wait > POLL_MAX_NS)
			wait = POLL_MAX_NS;
		ts.tv_sec = wait / 1000000000LL;
		ts.tv_nsec = wait % 1000000000LL;
		if (ppoll(pfd, npfd, &ts, NULL) > 0)
			drain_all();
	}
	for (i = 0; i < npeers; i++) {
		report(&peers[i].to);
		report(&peers[i].from);
	}
	return 0;
}
