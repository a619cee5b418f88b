// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rawsend: send exactly COUNT IPv4/UDP frames out of one interface through an AF_PACKET
 * socket, to make traffic that one layer misses, for `pathscope check` (--bypass: no
 * qdisc, no tc egress, no net_dev_xmit tracepoint, while the driver still counts). */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rawsend [--bypass] [--syn] [--src-mac MAC] [-n COUNT] IFACE DST_MAC SRC_IP "
		"DST_IP PORT\n"
		"Send COUNT (default 1) 64-byte-payload IPv4/UDP frames out of IFACE with an\n"
		"AF_PACKET socket; --bypass skips the qdisc layer (PACKET_QDISC_BYPASS);\n"
		"--syn sends TCP SYNs instead, each from another source port (1024 + i);\n"
		"--src-mac sets the frames' source MAC (default 00:00:00:00:00:00).\n"
		"example: rawsend --bypass -n 50 vA 02:00:00:00:00:02 198.18.0.1 198.18.0.2 "
		"9000\n");
}

/* The Internet checksum of len bytes, in network order. Read byte by byte:
 * reading a struct through a uint16_t pointer breaks C's aliasing rules, and
 * gcc -O2 then reads the struct before its fields are stored. */
static uint16_t csum(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint32_t s = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		s += (uint32_t)b[i] << 8 | b[i + 1];
	if (len & 1)
		s += (uint32_t)b[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return htons((uint16_t)~s);
}

/* A SYN from sport to the port already in tcp->dest, with its checksum over
 * the IPv4 pseudo-header. */
static void syn_fill(const struct iphdr *ip, struct tcphdr *tcp, uint16_t sport, uint32_t seq)
{
	struct {
		uint32_t saddr, daddr;
		uint8_t zero, proto;
		uint16_t len;
		struct tcphdr tcp;
	} ph;

	tcp->source = htons(sport);
	tcp->seq = htonl(seq);
	tcp->ack_seq = 0;
	tcp->doff = 5;
	tcp->syn = 1;
	tcp->window = htons(65535);
	tcp->check = 0;
	ph.saddr = ip->saddr;
	ph.daddr = ip->daddr;
	ph.zero = 0;
	ph.proto = IPPROTO_TCP;
	ph.len = htons(sizeof(*tcp));
	ph.tcp = *tcp;
	tcp->check = csum(&ph, sizeof(ph));
}

/* With --syn the frames are TCP SYNs to PORT from COUNT different source ports
 * (a SYN flood, for the bounds of the tcp feature's maps). */
int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "bypass", no_argument, NULL, 'b' },
		{ "syn", no_argument, NULL, 'S' },
		{ "src-mac", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	/* The frame starts 2 bytes into an aligned buffer, so that the IP and
	 * UDP headers after the 14-byte Ethernet header are aligned. */
	static union {
		uint32_t align;
		unsigned char b[2 + sizeof(struct ether_header) + sizeof(struct iphdr) +
				sizeof(struct udphdr) + 64];
	} buf;
	unsigned char *frame = buf.b + 2;
	const size_t frame_len = sizeof(buf.b) - 2;
	struct ether_header *eth = (void *)frame;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp = (void *)(ip + 1);
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	unsigned int mac[6], smac[6] = { 0 };
	long count = 1, i;
	struct tcphdr *tcp = (void *)(ip + 1);
	size_t len = frame_len;
	int bypass = 0, syn = 0, one = 1, fd, opt, k;
	char *end;

	while ((opt = getopt_long(argc, argv, "n:s:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			bypass = 1;
			break;
		case 'S':
			syn = 1;
			break;
		case 's':
			if (sscanf(optarg, "%x:%x:%x:%x:%x:%x", &smac[0], &smac[1], &smac[2],
				   &smac[3], &smac[4], &smac[5]) != 6) {
				fprintf(stderr, "rawsend: bad MAC '%s'\n", optarg);
				return 2;
			}
			break;
		case 'n':
			errno = 0;
			count = strtol(optarg, &end, 10);
			if (errno || *end || count < 0) {
				fprintf(stderr, "rawsend: bad COUNT '%s'\n", optarg);
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
	if (argc - optind != 5) {
		usage(stderr);
		return 2;
	}
	sll.sll_ifindex = (int)if_nametoindex(argv[optind]);
	if (!sll.sll_ifindex) {
		fprintf(stderr, "rawsend: no interface '%s'\n", argv[optind]);
		return 2;
	}
	if (sscanf(argv[optind + 1], "%x:%x:%x:%x:%x:%x", &mac[0], &mac[1], &mac[2], &mac[3],
		   &mac[4], &mac[5]) != 6) {
		fprintf(stderr, "rawsend: bad MAC '%s'\n", argv[optind + 1]);
		return 2;
	}
	for (k = 0; k < 6; k++) {
		eth->ether_dhost[k] = sll.sll_addr[k] = (unsigned char)mac[k];
		eth->ether_shost[k] = (unsigned char)smac[k];
	}
	sll.sll_halen = 6;
	eth->ether_type = htons(ETHERTYPE_IP);
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	if (syn)
		len = sizeof(*eth) + sizeof(*ip) + sizeof(*tcp);
	ip->protocol = syn ? IPPROTO_TCP : IPPROTO_UDP;
	ip->tot_len = htons(len - sizeof(*eth));
	if (inet_pton(AF_INET, argv[optind + 2], &ip->saddr) != 1 ||
	    inet_pton(AF_INET, argv[optind + 3], &ip->daddr) != 1) {
		fprintf(stderr, "rawsend: bad IPv4 address\n");
		return 2;
	}
	ip->check = csum(ip, sizeof(*ip));
	if (syn) {
		tcp->dest = htons((uint16_t)atoi(argv[optind + 4]));
	} else {
		udp->source = htons(40000);
		udp->dest = htons((uint16_t)atoi(argv[optind + 4]));
		udp->len = htons(frame_len - sizeof(*eth) - sizeof(*ip));
		udp->check = 0; /* optional for IPv4 */
	}

	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		perror("rawsend: socket");
		return 1;
	}
	if (bypass && setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one))) {
		perror("rawsend: PACKET_QDISC_BYPASS");
		return 1;
	}
	for (i = 0; i < count; i++) {
		if (syn)
			syn_fill(ip, tcp, (uint16_t)(1024 + i % 64000), (uint32_t)i * 2654435761u);
		/* Without --src-mac the source MAC is zero (the interface's would
		 * need SIOCGIFHWADDR); the peer delivers it like any other. */
		while (sendto(fd, frame, len, 0, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
			if (errno == ENOBUFS || errno == EAGAIN || errno == EINTR) {
				usleep(100);
				continue;
			}
			fprintf(stderr, "rawsend: send %ld of %ld failed: %s\n", i + 1, count,
				strerror(errno));
			return 1;
		}
	}
	close(fd);
	return 0;
}
