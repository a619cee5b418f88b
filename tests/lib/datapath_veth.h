/* SPDX-License-Identifier: GPL-2.0 */
/* The live queue tests' veth pair, pstA/pstB with 4 queues each in the program's private
 * namespace: frames out of pstA through an AF_PACKET socket, counted at pstB's XDP and
 * tc ingress. */
#ifndef PATHSCOPE_TESTS_LIB_DATAPATH_VETH_H
#define PATHSCOPE_TESTS_LIB_DATAPATH_VETH_H

#include "tests/lib/datapath.h"

static inline int sh(const char *cmd)
{
	int rc = system(cmd);

	return rc == 0 ? 0 : -1;
}

static int tx_sock = -1;

/* Send a whole frame out of ifindex through an AF_PACKET socket. */
static inline int send_frame(int ifindex, const struct frame *f)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_ifindex = ifindex,
				   .sll_halen = 6 };
	ssize_t n;

	if (tx_sock < 0)
		tx_sock = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (tx_sock < 0)
		return -errno;
	memcpy(sll.sll_addr, f->b, 6);
	n = sendto(tx_sock, f->b, f->len, 0, (struct sockaddr *)&sll, sizeof(sll));
	return n == (ssize_t)f->len ? 0 : -errno;
}

static inline void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Sum of packets over the slots of a snapshot s of h. */
static inline __u64 packets_in(const struct hook *h, const struct ps_qstats *s)
{
	__u64 n = 0;
	__u32 i;

	for (i = 0; i < h->nslots; i++)
		n += s[i].packets;
	return n;
}

static inline __u64 total_packets(const struct hook *h)
{
	static struct ps_qstats s[MAX_SLOTS];

	return snapshot(h, s) ? 0 : packets_in(h, s);
}

/* Wait (up to 2 s) until h counted n packets more than in its snapshot
 * before, taken before the send (a veth often delivers within send()). h is
 * the last hook on the frames' way (tc ingress after pstA's tc egress and
 * pstB's XDP): once it counted them, so did the others. */
static inline void wait_packets(const struct hook *h, const struct ps_qstats *before, __u64 n)
{
	__u64 want = packets_in(h, before) + n;
	int i;

	for (i = 0; i < 200 && total_packets(h) < want; i++)
		sleep_ms(10);
}

/* The veth pair pstA/pstB, 4 RX and 4 TX queues each, up, in the private
 * namespace, no IPv6 autoconfiguration traffic: 0 with the ifindexes, or -1
 * after a skip or failure line. */
static inline int veth_up(int *ifa, int *ifb)
{
	int fd;

	if (!netns_ok) {
		check_skip("queues", "no private network namespace (unshare failed)");
		return -1;
	}
	/* No IPv6 autoconfiguration traffic in the live tests. */
	fd = open("/proc/sys/net/ipv6/conf/default/disable_ipv6", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "1", 1) != 1)
			perror("disable_ipv6");
		close(fd);
	}
	if (sh("ip link add pstA numrxqueues 4 numtxqueues 4 type veth peer name pstB "
	       "numrxqueues 4 numtxqueues 4 && ip link set pstA up && ip link set pstB up")) {
		check_report(0, "queues: create veth pair pstA/pstB with 4 queues", "ip failed");
		return -1;
	}
	*ifa = (int)if_nametoindex("pstA");
	*ifb = (int)if_nametoindex("pstB");
	return 0;
}

static inline void veth_down(void)
{
	if (tx_sock >= 0)
		close(tx_sock);
	sh("ip link del pstA");
}

#endif /* PATHSCOPE_TESTS_LIB_DATAPATH_VETH_H */
