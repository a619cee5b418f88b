// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* udpsend: exact UDP workloads for the pathscope tests: a sender of exactly COUNT
 * datagrams with a known ECN codepoint, and a sink that counts them. See usage()
 * for the options. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* ppoll */
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "stamp.h"

#define MAX_PAYLOAD	65507 /* largest IPv4 UDP payload; IPv6 allows 65527 */
#define RETRY_SLEEP_US	100
#define RETRY_BUDGET_US 2000000 /* give up on one datagram after 2 s of ENOBUFS */

static volatile sig_atomic_t stop;
static int retry_refused; /* -r */
static int sink_gro;	  /* --gro */
static int gap_mode;	  /* -g: the interval is a gap after each send */
static int stamp;	  /* --stamp: CLOCK_MONOTONIC ns of the send in bytes 4..11 */
static long nports = 1;	  /* --ports K: datagram i to PORT + i % K */
static int sink_stamped;  /* --stamped: time each datagram from its send stamp */

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: udpsend [-6] [-r] [-t TOS] [-n COUNT] [-s PAYLOAD_BYTES] [-i INTERVAL_US | -g "
	    "GAP_US] DST "
	    "PORT\n"
	    "       udpsend --sink [-6] PORT [--expect N] [--timeout SECONDS] [--gro]\n"
	    "                      [--stamped [--every K] [--below NS]]\n"
	    "\n"
	    "Sender: send exactly COUNT UDP datagrams to DST:PORT from one connected socket.\n"
	    "  -6             DST is IPv6 (default IPv4)\n"
	    "  -t TOS         IPv4 TOS byte (IP_TOS) or IPv6 traffic class (IPV6_TCLASS), 0..255;\n"
	    "                 the low two bits are ECN: 0x01 ECT(1), 0x02 ECT(0), 0x03 CE (default "
	    "0)\n"
	    "  -n COUNT       datagrams to send (default 1)\n"
	    "  -s BYTES       UDP payload bytes (default 64, max %d); the first 4 bytes carry\n"
	    "                 the sequence number (big endian) when BYTES >= 4. Above MTU-28\n"
	    "                 (IPv4) or MTU-48 (IPv6) a datagram leaves as several fragments,\n"
	    "                 and interface counters count the fragments\n"
	    "  -i US          microseconds between datagrams (default 0: back to back); after a\n"
	    "                 late wake-up the sender catches up, so two may leave back to back\n"
	    "  -g US          at least US microseconds from one send to the next, even after a\n"
	    "                 late wake-up (the rate is then lower)\n"
	    "  --stamp        bytes 4..11 carry CLOCK_MONOTONIC ns (big endian) read just\n"
	    "                 before each send (needs BYTES >= 12): a receiver's clock\n"
	    "  --ports K      datagram i goes to PORT + i %% K (K flows, so a multi-queue\n"
	    "                 device spreads them over its TX queues by flow hash)\n"
	    "  -r             to a closed port: when a send reports the ICMP error of an\n"
	    "                 earlier datagram (ECONNREFUSED, and the current one was not\n"
	    "                 sent), send it again, so exactly COUNT reach the closed port\n"
	    "  (no -q TXQUEUE: a socket cannot choose its TX queue, and this kernel has no\n"
	    "   mqprio/skbedit to map one; pin the queue for the whole namespace with XPS:\n"
	    "   ps_txq_pin NS DEV QUEUE in tests/integration/lib.sh)\n"
	    "  Exits 0 when all COUNT were sent; otherwise 1 with one line on stderr\n"
	    "  (e.g. 'Connection refused' when an earlier datagram met no listener).\n"
	    "\n"
	    "Sink: bind PORT on every address and count received datagrams; print the count.\n"
	    "  -6             IPv6 only (default: both IPv4 and IPv6, or IPv4 only when the\n"
	    "                 namespace has no IPv6)\n"
	    "  --expect N     exit 0 as soon as N datagrams arrived, 1 on timeout\n"
	    "  --timeout S    stop after S seconds (default 10 with --expect; otherwise run\n"
	    "                 until SIGINT/SIGTERM). Without --expect, exit 0 at the end.\n"
	    "  --gro          receive with UDP_GRO: the kernel may hold datagrams in GRO and\n"
	    "                 hand over several at once (each is counted)\n"
	    "  --stamped      datagrams carry a send stamp (--stamp): time each from it to\n"
	    "                 the kernel's receive stamp (SO_TIMESTAMPNS, taken as the stack\n"
	    "                 takes the skb, after GRO) and print a second line:\n"
	    "                 stamped N mean_ns M std_ns S min_ns A max_ns B\n"
	    "  --every K      with --stamped, also the same over the datagrams with sequence\n"
	    "                 numbers K-1, 2K-1, ... (those a 1-in-K sampler takes), on a\n"
	    "                 third line: every_kth N mean_ns M std_ns S min_ns A max_ns B\n"
	    "  --below NS     with --stamped, end both lines with \"below C\": how many of\n"
	    "                 their times were under NS nanoseconds\n"
	    "  The count (one number) is printed on stdout when the sink stops.\n"
	    "\n"
	    "examples:\n"
	    "  udpsend --sink 9000 --expect 100 --timeout 5 &  # in the receiving namespace\n"
	    "  udpsend -n 100 -t 0x03 198.18.0.2 9000          # 100 CE-marked datagrams\n"
	    "  udpsend -6 -n 10 -s 1200 -t 0x02 2001:db8::2 9000  # ECT(0), IPv6\n"
	    "  udpsend -n 1000 -i 1000 198.18.0.2 9000         # 1000 datagrams at 1000 pkt/s\n"
	    "  udpsend -n 300 -i 5000 -s 64 --stamp --ports 32 198.18.1.2 9000\n",
	    MAX_PAYLOAD);
}

static void die(const char *what)
{
	fprintf(stderr, "udpsend: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long parse_num(const char *s, const char *what, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0); /* accepts 0x03 as well as 3 */
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "udpsend: bad %s '%s' (want %ld..%ld)\n", what, s, min, max);
		exit(2);
	}
	return v;
}

static double now_s(void)
{
	return clock_ns(CLOCK_MONOTONIC) / 1e9;
}

static void sleep_us(long us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Fill a sockaddr for DST:PORT; returns its length. */
static socklen_t make_addr(struct sockaddr_storage *ss, int v6, const char *dst, int port)
{
	memset(ss, 0, sizeof(*ss));
	if (v6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(port);
		if (dst && inet_pton(AF_INET6, dst, &a->sin6_addr) != 1)
			goto bad;
		return sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons(port);
		if (dst && inet_pton(AF_INET, dst, &a->sin_addr) != 1)
			goto bad;
		return sizeof(*a);
	}
bad:
	fprintf(stderr, "udpsend: '%s' is not an IPv%d address%s\n", dst, v6 ? 6 : 4,
		v6 ? "" : " (use -6 for IPv6)");
	exit(2);
}

static void set_port(struct sockaddr_storage *ss, int port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons(port);
}

static int run_sender(int v6, int tos, long count, long size, long interval_us, const char *dst,
		      int port)
{
	struct sockaddr_storage ss;
	socklen_t len = make_addr(&ss, v6, dst, port);
	static char buf[MAX_PAYLOAD + 20];
	struct timespec next;
	int one = 1, fd;
	long i;

	fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		die("socket");
	if (v6) {
		if (setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof(tos)))
			die("setsockopt IPV6_TCLASS");
		if (setsockopt(fd, IPPROTO_IPV6, IPV6_RECVERR, &one, sizeof(one)))
			die("setsockopt IPV6_RECVERR");
	} else {
		if (setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)))
			die("setsockopt IP_TOS");
		if (setsockopt(fd, IPPROTO_IP, IP_RECVERR, &one, sizeof(one)))
			die("setsockopt IP_RECVERR");
	}
	/* One flow: connected, so that ICMP errors come back (-r). */
	if (nports == 1 && connect(fd, (struct sockaddr *)&ss, len))
		die("connect");

	memset(buf, 0, sizeof(buf));
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (i = 0; i < count; i++) {
		long waited = 0;

		if (size >= 4) {
			uint32_t seq = htonl((uint32_t)i);

			memcpy(buf, &seq, sizeof(seq));
		}
		if (nports > 1)
			set_port(&ss, port + (int)(i % nports));
		for (;;) {
			ssize_t n;

			if (stamp)
				stamp_put((unsigned char *)buf, clock_ns(CLOCK_MONOTONIC));
			n = nports > 1 ? sendto(fd, buf, size, 0, (struct sockaddr *)&ss, len)
				       : send(fd, buf, size, 0);

			if (n == size)
				break;
			if (n >= 0) {
				fprintf(stderr, "udpsend: short send %zd of %ld bytes\n", n, size);
				return 1;
			}
			if (errno == EINTR || (errno == ECONNREFUSED && retry_refused))
				continue;
			if ((errno == ENOBUFS || errno == EAGAIN) && waited < RETRY_BUDGET_US) {
				sleep_us(RETRY_SLEEP_US);
				waited += RETRY_SLEEP_US;
				continue;
			}
			fprintf(
			    stderr,
			    "udpsend: send %ld of %ld to %s port %d failed after %ld sent: %s\n",
			    i + 1, count, dst, port, i, strerror(errno));
			return 1;
		}
		if (interval_us > 0 && i + 1 < count) {
			/* Absolute deadlines: the rate does not drift with send time.
			 * With -g, from the end of this send: never closer. */
			if (gap_mode)
				clock_gettime(CLOCK_MONOTONIC, &next);
			next.tv_nsec += (interval_us % 1000000) * 1000;
			next.tv_sec += interval_us / 1000000 + next.tv_nsec / 1000000000;
			next.tv_nsec %= 1000000000;
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) ==
			       EINTR)
				;
		}
	}
	close(fd);
	return 0;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * Bind PORT on [::] (IPv6 only with -6, else dual stack) or, when the
 * namespace has no IPv6 and -6 was not given, on 0.0.0.0.
 */
static int sink_socket(int v6only, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = make_addr(&ss, 1, NULL, port);
	int one = 1, rcvbuf = 8 << 20, fd;

	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	if (fd < 0 && !v6only && errno == EAFNOSUPPORT) {
		len = make_addr(&ss, 0, NULL, port);
		fd = socket(AF_INET, SOCK_DGRAM, 0);
	}
	if (fd < 0)
		die("socket");
	if (ss.ss_family == AF_INET6 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof(v6only)))
		die("setsockopt IPV6_V6ONLY");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* A big buffer so bursts are not dropped at the socket (FORCE needs root). */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (sink_gro && setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof(one)))
		die("setsockopt UDP_GRO");
	if (sink_stamped && setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)))
		die("setsockopt SO_TIMESTAMPNS");
	if (bind(fd, (struct sockaddr *)&ss, len))
		die("bind");
	return fd;
}

/* Send-to-receive times (--stamped): of all stamped datagrams, and of
 * every K-th (--every K: sequence numbers K-1, 2K-1, ...). */
struct tally {
	long n;
	double sum, sumsq;
	uint64_t min, max;
	long below; /* times under below_ns */
};
static struct tally stamped, every_kth;
static long every_k;	  /* --every K */
static uint64_t below_ns; /* --below NS */

static void tally_add(struct tally *t, uint64_t d)
{
	t->n++;
	t->sum += (double)d;
	t->sumsq += (double)d * (double)d;
	if (!t->min || d < t->min)
		t->min = d;
	if (d > t->max)
		t->max = d;
	if (d < below_ns)
		t->below++;
}

/* The sequence number of the datagram at p (4 bytes, big endian). */
static uint32_t seq_at(const char *p)
{
	const unsigned char *u = (const unsigned char *)p;

	return (uint32_t)u[0] << 24 | u[1] << 16 | u[2] << 8 | u[3];
}

/* A read of n bytes in segments of gso bytes, received at rx_real
 * (CLOCK_REALTIME, as SO_TIMESTAMPNS is): time each segment's stamp. */
static void time_stamped(const char *buf, ssize_t n, long gso, uint64_t rx_real)
{
	/* The two clocks' offset now: they run at the same rate. */
	uint64_t real = clock_ns(CLOCK_REALTIME), mono = clock_ns(CLOCK_MONOTONIC), rx, d;
	ssize_t off;

	rx = rx_real - (real - mono);
	for (off = 0; off + STAMP_END <= n; off += gso) {
		uint64_t sent = stamp_get((const unsigned char *)buf + off);

		if (sent > rx)
			continue;
		d = rx - sent;
		tally_add(&stamped, d);
		if (every_k && (seq_at(buf + off) + 1) % every_k == 0)
			tally_add(&every_kth, d);
	}
}

/* "LABEL N mean_ns M std_ns S min_ns A max_ns B[ below C]" */
static void tally_print(const char *label, const struct tally *t)
{
	double mean = t->n ? t->sum / t->n : 0;
	double var = t->n ? t->sumsq / t->n - mean * mean : 0;

	printf("%s %ld mean_ns %.0f std_ns %.0f min_ns %llu max_ns %llu", label, t->n, mean,
	       sqrt(var > 0 ? var : 0), (unsigned long long)t->min, (unsigned long long)t->max);
	if (below_ns)
		printf(" below %ld", t->below);
	printf("\n");
}

static int run_sink(int v6only, int port, long expect, double timeout)
{
	int fd, rc = 0;
	struct sigaction sa;
	sigset_t block, unblocked;
	static char buf[65536];
	double deadline = timeout > 0 ? now_s() + timeout : 0;
	long got = 0;

	/*
	 * SIGINT/SIGTERM stop the sink (and it still prints its count). They are
	 * blocked except inside ppoll(), so one cannot slip in between the check
	 * of 'stop' and the wait.
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &unblocked);

	fd = sink_socket(v6only, port);
	while (!stop && (expect < 0 || got < expect)) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct timespec ts, *tsp = NULL;

		if (deadline > 0) {
			double left = deadline - now_s();

			if (left <= 0)
				break;
			ts.tv_sec = (time_t)left;
			ts.tv_nsec = (long)((left - ts.tv_sec) * 1e9);
			tsp = &ts;
		}
		if (ppoll(&p, 1, tsp, &unblocked) < 0) {
			if (errno == EINTR)
				continue;
			die("ppoll");
		}
		while (expect < 0 || got < expect) {
			char cbuf[CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(struct timespec))];
			struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
			struct msghdr mh = { .msg_iov = &iov,
					     .msg_iovlen = 1,
					     .msg_control = cbuf,
					     .msg_controllen = sizeof(cbuf) };
			struct cmsghdr *c;
			ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);
			long segs = 1, gso = 0;
			uint64_t rx_real = 0;

			if (n < 0) {
				if (errno != EAGAIN && errno != EINTR)
					die("recv");
				break;
			}
			/* With UDP_GRO, one read may carry several datagrams of
			 * gso_size bytes (the last may be shorter). */
			for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
				struct timespec ts;
				int g;

				if (c->cmsg_level == SOL_SOCKET &&
				    c->cmsg_type == SCM_TIMESTAMPNS) {
					memcpy(&ts, CMSG_DATA(c), sizeof(ts));
					rx_real = (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
				}
				if (c->cmsg_level != SOL_UDP || c->cmsg_type != UDP_GRO)
					continue;
				memcpy(&g, CMSG_DATA(c), sizeof(g));
				if (g > 0)
					segs = (n + g - 1) / g, gso = g;
			}
			if (sink_stamped && rx_real)
				time_stamped(buf, n, gso ? gso : n, rx_real);
			got += segs;
		}
	}
	printf("%ld\n", got);
	if (sink_stamped)
		tally_print("stamped", &stamped);
	if (every_k)
		tally_print("every_kth", &every_kth);
	fflush(stdout);
	if (expect >= 0 && got < expect) {
		fprintf(stderr, "udpsend: sink on port %d received %ld of %ld datagrams%s\n", port,
			got, expect, stop ? " (stopped by signal)" : " before the timeout");
		rc = 1;
	}
	close(fd);
	return rc;
}

/* Sender: sends exactly COUNT datagrams with a chosen IPv4 TOS / IPv6 traffic
 * class (so the ECN codepoint is known) and exits non-zero with one line on
 * stderr if any datagram could not be handed to the kernel. Transient
 * ENOBUFS/EAGAIN are retried (bounded), so the count stays exact. IP_RECVERR is
 * set because without it Linux silently swallows ENOBUFS from a full qdisc for
 * UDP, and the count would no longer be exact.
 *
 * Sink: binds a UDP port (IPv4 and IPv6 unless -6) and counts datagrams, so
 * that the receiving side answers no ICMP port-unreachable (which would add
 * packets to the counts). */
int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "sink", no_argument, NULL, 'S' },
		{ "expect", required_argument, NULL, 'E' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "gro", no_argument, NULL, 'G' },
		{ "stamp", no_argument, NULL, 'M' },
		{ "ports", required_argument, NULL, 'P' },
		{ "stamped", no_argument, NULL, 'D' },
		{ "every", required_argument, NULL, 'K' },
		{ "below", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int v6 = 0, tos = 0, sink = 0, port, opt;
	long count = 1, size = 64, interval_us = 0, expect = -1;
	double timeout = -1;
	char *end;

	while ((opt = getopt_long(argc, argv, "6t:n:s:i:g:q:rh", longopts, NULL)) != -1) {
		switch (opt) {
		case '6':
			v6 = 1;
			break;
		case 't':
			tos = (int)parse_num(optarg, "TOS", 0, 255);
			break;
		case 'n':
			count = parse_num(optarg, "COUNT", 0, LONG_MAX);
			break;
		case 's':
			size = parse_num(optarg, "payload size", 0, MAX_PAYLOAD);
			break;
		case 'i':
		case 'g':
			interval_us = parse_num(optarg, "interval", 0, 60000000);
			gap_mode = opt == 'g';
			break;
		case 'r':
			retry_refused = 1;
			break;
		case 'q':
			fprintf(stderr, "udpsend: -q is not supported: a socket cannot choose its "
					"TX queue here;\n"
					"         pin one with XPS: ps_txq_pin NS DEV QUEUE "
					"(tests/integration/lib.sh)\n");
			return 2;
		case 'S':
			sink = 1;
			break;
		case 'M':
			stamp = 1;
			break;
		case 'D':
			sink_stamped = 1;
			break;
		case 'K':
			every_k = parse_num(optarg, "--every", 1, 1000000);
			break;
		case 'B':
			below_ns = (uint64_t)parse_num(optarg, "--below", 1, LONG_MAX);
			break;
		case 'P':
			nports = parse_num(optarg, "--ports", 1, 1024);
			break;
		case 'G':
			sink_gro = 1;
			break;
		case 'E':
			expect = parse_num(optarg, "--expect", 0, LONG_MAX);
			break;
		case 'T':
			errno = 0;
			timeout = strtod(optarg, &end);
			if (errno || end == optarg || *end || timeout <= 0) {
				fprintf(stderr, "udpsend: bad --timeout '%s' (seconds > 0)\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}

	if (sink) {
		if (argc - optind != 1 || ((every_k || below_ns) && !sink_stamped)) {
			usage(stderr);
			return 2;
		}
		if (expect >= 0 && timeout < 0)
			timeout = 10;
		return run_sink(v6, (int)parse_num(argv[optind], "PORT", 1, 65535), expect,
				timeout);
	}
	if (argc - optind != 2 || expect >= 0 || timeout >= 0 || sink_gro || sink_stamped ||
	    every_k || below_ns) {
		usage(stderr);
		return 2;
	}
	if (stamp && size < 12) {
		fprintf(stderr, "udpsend: --stamp needs a payload of at least 12 bytes (-s)\n");
		return 2;
	}
	port = (int)parse_num(argv[optind + 1], "PORT", 1, 65535);
	if (port + nports - 1 > 65535) {
		fprintf(stderr, "udpsend: --ports %ld from port %d passes 65535\n", nports, port);
		return 2;
	}
	return run_sender(v6, tos, count, size, interval_us, argv[optind], port);
}
