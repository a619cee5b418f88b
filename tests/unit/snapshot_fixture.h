/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A fixed pair of snapshots (previous and current) of two interfaces with every family
 * filled (hook counters, ICMP echo and peers, d2s, TX latency, the kernel path, NIC
 * facts, qdiscs, softnet, placement, the first hop), which test_golden.c renders. */
#ifndef PATHSCOPE_TESTS_UNIT_SNAPSHOT_FIXTURE_H
#define PATHSCOPE_TESTS_UNIT_SNAPSHOT_FIXTURE_H

#include <arpa/inet.h>
#include <string.h>

#include "stats/read/flow_table.h"
#include "nic/rss.h"
#include <linux/ethtool.h>
#include "stats/read/kernel_path.h"
#include "stats/render/render.h"
#include "nic/read.h"
#include "nic/placement.h"
#include "nic/qdisc.h"
#include "nic/softnet.h"

#define FX_NQ 3

struct fx_iface {
	struct ps_qstats hook[PS_HOOK_COUNT][FX_NQ + 1];
	struct ps_icmp_qstats echo[FX_NQ + 1];
	struct ps_d2s_qstats d2s[FX_NQ + 1];
	struct ps_fh_qstats fh[FX_NQ + 1];
	struct ps_txlat_qstats txlat[FX_NQ + 1];
	struct ps_peer_entry peers[3];
	struct ps_tcp_qstats tcp[FX_NQ + 1];
	struct ps_tcp_qhist tcp_hist[FX_NQ + 1];
	struct ps_tcp_peer_entry tcp_peers[3];
	struct ps_flows_qstate flows_q[FX_NQ + 1];
	struct ps_rx_hash_q rx_hash[FX_NQ + 1];
	struct ps_flow_row flows[4];
	__u64 xdp_cpu[(FX_NQ + 1) * 2]; /* 2 CPUs */
	struct ps_rss rss;
	struct ps_sock_qstats sock[FX_NQ + 1];
	struct ps_sock_qhist sock_hist[FX_NQ + 1];
	struct ps_sock_pend sock_pend[FX_NQ + 1];
	struct ps_sock_port_entry sock_ports[3];
	struct ps_kern_qstats kq[FX_NQ + 1];
	struct ps_napi_entry napi[2];
	struct ps_drop_entry drops[2];
	struct ps_softirq_cpu softirq[2];
	struct ps_kern_snapshot kern;
	struct ps_nic_queue nicq[4];
	struct ps_nic_equeue niceq[6];
	struct ps_nic_facts nic;
	struct ps_qdisc qd[3];
	struct ps_qdiscs qdiscs;
	struct ps_softnet_cpu softnet[2];
	struct ps_nic_placement place;
};

static struct fx_iface fx_data[2][2]; /* [interface][0: previous, 1: current] */

static void fx_lat(__u64 *hist, __u64 ns, __u64 n)
{
	hist[ps_hist_bucket(ns, PS_LAT_BUCKETS)] += n;
}

/* k scales the counts: 1 for the previous snapshot, 3 for the current. */
static void fx_fill_full(struct ps_snapshot *s, struct fx_iface *d, __u64 k)
{
	struct ps_qstats *x;
	int h;

	memset(d, 0, sizeof(*d));
	s->meta.features = PS_F_ALL;
	s->meta.all_queues = 1;
	s->meta.xdp_mode = PS_XDP_NATIVE;
	s->meta.tc_mode = PS_TC_TCX;
	s->meta.tx_sample_every = 2;
	s->meta.flags = 0;
	for (h = 0; h < PS_HOOK_COUNT; h++)
		s->hook[h] = d->hook[h];

	x = &d->hook[PS_HOOK_XDP][0];
	x->packets = 101 * k;
	x->bytes = (100 * 64 + 1514) * k;
	x->l3[PS_L3_IPV4] = 99 * k;
	x->l3[PS_L3_IPV6] = 2 * k;
	x->l4[PS_L4_UDP] = 100 * k;
	x->l4[PS_L4_MALFORMED] = 1 * k;
	x->err[PS_ERR_L4_TRUNC] = 1 * k;
	x->vlan_tagged = 3 * k;
	x->ecn[PS_IPV4][PS_ECN_CE] = 10 * k;
	x->ecn[PS_IPV4][PS_ECN_NOT_ECT] = 89 * k;
	x->ecn[PS_IPV6][PS_ECN_ECT0] = 2 * k;
	x->size_hist[ps_hist_bucket(64, PS_SIZE_BUCKETS)] = 100 * k;
	x->size_hist[ps_hist_bucket(1514, PS_SIZE_BUCKETS)] = 1 * k;
	x = &d->hook[PS_HOOK_XDP][1];
	x->packets = 5 * k;
	x->bytes = 5 * 42 * k;
	x->l3[PS_L3_ARP] = 5 * k;
	x->size_hist[ps_hist_bucket(42, PS_SIZE_BUCKETS)] = 5 * k;
	/* where the RX queues run: queue 0 on CPU 1, but 1 frame in 101 on CPU
	 * 0 (its IRQ moved); queue 1 on CPU 0 */
	s->xdp_cpu = d->xdp_cpu;
	s->ncpus = 2;
	d->xdp_cpu[0 * 2 + 0] = 1 * k;
	d->xdp_cpu[0 * 2 + 1] = 100 * k;
	d->xdp_cpu[1 * 2 + 0] = 5 * k;
	x = &d->hook[PS_HOOK_TC_INGRESS][1];
	x->packets = 3 * k;
	x->bytes = (14546 + 2 * 66) * k;
	x->l3[PS_L3_IPV4] = 3 * k;
	x->l4[PS_L4_TCP] = 3 * k;
	x->gso_packets = 1 * k;
	x->gso_segs = 10 * k;
	x->gso_size_sum = 1448 * k;
	x->segs_hist[1] = 2 * k;
	x->segs_hist[10] = 1 * k;
	x->size_hist[ps_hist_bucket(66, PS_SIZE_BUCKETS)] = 2 * k;
	x->size_hist[ps_hist_bucket(14546, PS_SIZE_BUCKETS)] = 1 * k;
	x = &d->hook[PS_HOOK_TC_EGRESS][2];
	x->packets = 7 * k;
	x->bytes = 7 * 1000 * k;
	x->l3[PS_L3_IPV6] = 7 * k;
	x->l4[PS_L4_ICMPV6] = 7 * k;
	x->ecn[PS_IPV6][PS_ECN_ECT1] = 7 * k;
	x->segs_hist[1] = 7 * k;
	x->size_hist[ps_hist_bucket(1000, PS_SIZE_BUCKETS)] = 7 * k;
	x = &d->hook[PS_HOOK_TC_EGRESS][FX_NQ];
	x->packets = 4 * k;
	x->bytes = 400 * k;
	x->segs_hist[1] = 4 * k;
	x->size_hist[ps_hist_bucket(100, PS_SIZE_BUCKETS)] = 4 * k;

	s->echo = d->echo;
	d->echo[FX_NQ].requests_out = 12 * k;
	d->echo[1].replies_in = 10 * k;
	fx_lat(d->echo[1].rtt_hist, 31000, 9 * k);
	fx_lat(d->echo[1].rtt_hist, 5200000, 1 * k);
	d->echo[0].requests_in = 4 * k;
	d->echo[0].replies_out = 4 * k;
	fx_lat(d->echo[0].resp_hist, 9000, 4 * k);
	d->echo[1].expired = 1;
	d->peers[0].key.family = 4;
	memcpy(d->peers[0].key.addr, (const __u8[]){ 198, 18, 0, 1 }, 4);
	d->peers[0].stats.rtt_count = 10 * k;
	d->peers[0].stats.rtt_sum_ns = (9 * 31000 + 5200000) * k;
	fx_lat(d->peers[0].stats.rtt_hist, 31000, 9 * k);
	fx_lat(d->peers[0].stats.rtt_hist, 5200000, 1 * k);
	d->peers[1].key.family = 6;
	memcpy(d->peers[1].key.addr,
	       (const __u8[]){ 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 }, 16);
	d->peers[1].stats.resp_count = 4 * k;
	d->peers[1].stats.resp_sum_ns = 36001 * k;
	d->peers[2].key.family = 0; /* "other", still empty */
	s->peers = d->peers;
	s->npeers = 3;

	s->tcp = d->tcp;
	s->tcp_hist = d->tcp_hist;
	d->tcp[1].rx_ts = 900 * k;
	d->tcp[1].rx_no_ts = 5 * k;
	d->tcp[1].opt_bad = 1 * k;
	d->tcp[2].tx_ts = 300 * k;
	d->tcp[2].rtt_taken = 40 * k;
	d->tcp[1].rtt_matched = 38 * k;
	d->tcp[1].rtt_expired = 2 * k;
	d->tcp[1].resp_taken = 20 * k;
	d->tcp[1].resp_data = 12 * k;
	d->tcp[1].resp_ack = 7 * k;
	d->tcp[1].resp_expired = 1;
	d->tcp[1].hs_timed = 2 * k;
	d->tcp[2].syn_retrans = 1;
	/* the half-open table full: 3 x k handshakes evicted */
	d->tcp[2].halfopen_new = PS_TCP_HALFOPEN_MAX + 3 * k;
	s->tcp_halfopen = PS_TCP_HALFOPEN_MAX;
	fx_lat(d->tcp_hist[1].rtt, 2100000, 30 * k);
	fx_lat(d->tcp_hist[1].rtt, 10500000, 8 * k);
	fx_lat(d->tcp_hist[1].handshake, 2050000, 2 * k);
	fx_lat(d->tcp_hist[1].resp_data, 3100000, 12 * k);
	fx_lat(d->tcp_hist[1].resp_ack, 40000, 7 * k);
	d->tcp_peers[0].key.family = 4;
	d->tcp_peers[0].key.prefix = 24;
	memcpy(d->tcp_peers[0].key.addr, (const __u8[]){ 198, 18, 0, 0 }, 4);
	d->tcp_peers[0].stats.rtt_count = 30 * k;
	d->tcp_peers[0].stats.rtt_sum_ns = 30 * 2100000 * k;
	fx_lat(d->tcp_peers[0].stats.rtt_hist, 2100000, 30 * k);
	d->tcp_peers[0].stats.hs_count = 2 * k;
	d->tcp_peers[0].stats.hs_sum_ns = 4100000 * k;
	d->tcp_peers[0].stats.resp_data_count = 12 * k;
	d->tcp_peers[0].stats.resp_data_sum_ns = 12 * 3100000 * k;
	d->tcp_peers[1].key.family = 6;
	d->tcp_peers[1].key.prefix = 48;
	memcpy(d->tcp_peers[1].key.addr, (const __u8[]){ 0x20, 0x01, 0x0d, 0xb8 }, 4);
	d->tcp_peers[1].stats.rtt_count = 8 * k;
	d->tcp_peers[1].stats.rtt_sum_ns = 8 * 10500000 * k;
	fx_lat(d->tcp_peers[1].stats.rtt_hist, 10500000, 8 * k);
	d->tcp_peers[1].stats.resp_ack_count = 7 * k;
	d->tcp_peers[1].stats.resp_ack_sum_ns = 7 * 40000 * k;
	s->tcp_peers = d->tcp_peers;
	s->ntcp_peers = 3;

	/* flows, 1 in 2 frames sampled; rows in key order, as the reader keeps them */
	s->meta.flow_sample = 2;
	s->flows_q = d->flows_q;
	d->flows_q[0].packets = 51 * k;
	d->flows_q[0].bytes = (50 * 64 + 1514) * k;
	d->flows_q[0].hll[3] = d->flows_q[0].hll[77] = 1;
	d->flows_q[0].hll[200] = 2;
	d->flows_q[0].flows_new = 3 + 2 * k; /* it holds 3: 2 x k evicted */
	d->flows_q[1].packets = 2 * k;
	d->flows_q[1].bytes = 2 * 42 * k;
	d->flows_q[1].hll[9] = 1;
	d->flows_q[1].flows_new = 1;
	/* RX hash types of the sampled frames (the device-bound XDP program) */
	s->rx_hash = d->rx_hash;
	d->rx_hash[0].l4 = 50 * k;
	d->rx_hash[0].none = 1 * k;
	d->rx_hash[1].l3 = 2 * k;
	for (h = 0; h < 2; h++) {
		struct ps_flow_row *f = &d->flows[h];

		f->key.family = 4;
		f->key.proto = 17;
		f->key.sport = htons(40000 + h);
		f->key.dport = htons(4789);
		memcpy(f->key.saddr, (const __u8[]){ 198, 18, 0, 2 }, 4);
		memcpy(f->key.daddr, (const __u8[]){ 198, 18, 0, 1 }, 4);
	}
	d->flows[0].packets = 40 * k;
	d->flows[0].bytes = 40 * 64 * k;
	d->flows[1].packets = 10 * k;
	d->flows[1].bytes = 10 * 64 * k;
	d->flows[2].key.family = 6;
	d->flows[2].key.proto = 6;
	d->flows[2].key.sport = htons(443);
	d->flows[2].key.dport = htons(50000);
	memcpy(d->flows[2].key.saddr,
	       (const __u8[]){ 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 }, 16);
	memcpy(d->flows[2].key.daddr,
	       (const __u8[]){ 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 }, 16);
	d->flows[2].packets = 1 * k;
	d->flows[2].bytes = 1514 * k;
	d->flows[3].key.queue = 1;
	d->flows[3].key.ethertype = htons(0x0806);
	d->flows[3].packets = 2 * k;
	d->flows[3].bytes = 2 * 42 * k;
	s->flows = d->flows;
	s->nflows = 4;
	/* RSS beside the flows: a Toeplitz table of 128 entries 0 1 2 0 1 2 ...
	 * (43, 43, 42), udp4 hashed on addresses only, tcp4 on ports too */
	ps_rss_init(&d->rss);
	d->rss.have_table = true;
	d->rss.table_size = 128;
	for (unsigned int e = 0; e < 128; e++)
		d->rss.table[e] = e % FX_NQ;
	d->rss.hfunc = PS_RSS_HFUNC_TOEPLITZ;
	d->rss.have_fields = true;
	d->rss.fields[PS_RSS_TCP4] = RXH_IP_SRC | RXH_IP_DST | RXH_L4_B_0_1 | RXH_L4_B_2_3;
	d->rss.fields[PS_RSS_UDP4] = RXH_IP_SRC | RXH_IP_DST;
	s->rss = &d->rss;
	s->meta.tcp_prefix4 = 24;
	s->meta.tcp_prefix6 = 48;

	s->sock = d->sock;
	s->sock_hist = d->sock_hist;
	s->sock_pend = d->sock_pend;
	d->sock[0].sampled[PS_SOCK_TCP] = 30 * k;
	d->sock[0].matched[PS_SOCK_TCP] = 28 * k;
	d->sock[0].expired[PS_SOCK_TCP] = 1 * k;
	d->sock_pend[0].inflight[PS_SOCK_TCP] = 1;
	d->sock[2].sampled[PS_SOCK_UDP] = 10 * k;
	d->sock[2].matched[PS_SOCK_UDP] = 9 * k;
	d->sock_pend[2].stale[PS_SOCK_UDP] = 1;
	fx_lat(d->sock_hist[0].hist[PS_SOCK_TCP], 9500000, 28 * k);
	fx_lat(d->sock_hist[2].hist[PS_SOCK_UDP], 21000, 9 * k);
	d->sock_ports[0].key = (struct ps_sock_port_key){ PS_SOCK_TCP, 1, htons(5201) };
	d->sock_ports[0].stats.count = 28 * k;
	d->sock_ports[0].stats.sum_ns = 28 * 9500000 * k;
	fx_lat(d->sock_ports[0].stats.hist, 9500000, 28 * k);
	d->sock_ports[1].key = (struct ps_sock_port_key){ PS_SOCK_UDP, 1, htons(53) };
	d->sock_ports[1].stats.count = 9 * k;
	d->sock_ports[1].stats.sum_ns = 9 * 21000 * k;
	fx_lat(d->sock_ports[1].stats.hist, 21000, 9 * k);
	s->sock_ports = d->sock_ports;
	s->nsock_ports = 3;

	s->d2s = d->d2s;
	d->d2s[0].sampled = 50 * k;
	d->d2s[0].matched = 48 * k;
	d->d2s[0].expired = 2 * k;
	d->d2s[0].sum_ns = (2500ULL * 40 + 70000ULL * 8) * k;
	fx_lat(d->d2s[0].hist, 2500, 40 * k);
	fx_lat(d->d2s[0].hist, 70000, 8 * k);
	/* first hop: queue 0's IRQ, 40 polls (30 by it, 6 ksoftirqd, 4 other),
	 * 36 waits of 3 us and 4 of 90 us; 20 frames placed at 6 us */
	s->fh = d->fh;
	s->meta.fh_irqs = 2;
	s->meta.softirq_sample = 8;
	d->fh[0].irqs = 32 * k;
	d->fh[0].polls[PS_FH_IRQ] = 30 * k;
	d->fh[0].polls[PS_FH_KSOFTIRQD] = 6 * k;
	d->fh[0].polls[PS_FH_OTHER] = 4 * k;
	d->fh[0].waited = 40 * k;
	d->fh[0].wait_sum_ns = (3000ULL * 36 + 90000ULL * 4) * k;
	fx_lat(d->fh[0].wait_hist, 3000, 36 * k);
	fx_lat(d->fh[0].wait_hist, 90000, 4 * k);
	d->fh[0].sampled = 20 * k;
	d->fh[0].place_sum_ns = 6000ULL * 20 * k;
	fx_lat(d->fh[0].place_hist, 6000, 20 * k);
	/* queue 1 polled by its NAPI thread: 8 polls, 8 waits of 40 us */
	d->fh[1].irqs = 8 * k;
	d->fh[1].polls[PS_FH_THREAD] = 8 * k;
	d->fh[1].thread_waited = 8 * k;
	d->fh[1].thread_wait_sum_ns = 40000ULL * 8 * k;
	fx_lat(d->fh[1].thread_wait_hist, 40000, 8 * k);

	s->txlat = d->txlat;
	d->txlat[0].queued = 300 * k;
	d->txlat[0].sojourn_n = 150 * k;
	d->txlat[0].completed = 150 * k;
	d->txlat[0].dropped = 3 * k;
	d->txlat[0].sojourn_sum_ns = 20000000ULL * 150 * k;
	d->txlat[0].completion_sum_ns = 15000000ULL * 150 * k;
	fx_lat(d->txlat[0].sojourn_hist, 20000000, 150 * k);
	fx_lat(d->txlat[0].completion_hist, 15000000, 150 * k);
	d->txlat[1].queued = 10 * k;
	d->txlat[1].stale = 1;
	d->txlat[1].sojourn_n = 5 * k;
	d->txlat[1].sojourn_sum_ns = 800 * 5 * k;
	fx_lat(d->txlat[1].sojourn_hist, 800, 5 * k);

	d->kern.nslots = FX_NQ + 1;
	d->kern.q = d->kq;
	d->kq[0].gro_frames = 101 * k;
	d->kq[0].stack_skbs = 90 * k;
	d->kq[0].stack_segs = 101 * k;
	d->kq[2].xmit_ok = 7 * k;
	d->kq[2].xmit_busy = 1 * k;
	d->kq[2].xmit_dropped = 1;
	d->kq[2].xmit_bytes = 7000 * k;
	d->napi[0].id = 8193;
	d->napi[0].queue = 0;
	d->napi[0].s = (struct ps_napi_stats){ 20 * k, 101 * k, 1 * k, 64, 2 * k };
	d->napi[1].id = 8194;
	d->napi[1].queue = PS_QUEUE_UNKNOWN;
	d->napi[1].s = (struct ps_napi_stats){ 5 * k, 0, 0, 64, 5 * k };
	d->kern.napi = d->napi;
	d->kern.nnapi = 2;
	d->drops[0].key = (struct ps_drop_key){ 99990, 0, PS_DROP_RX, 0 };
	d->drops[0].count = 25 * k;
	d->drops[1].key = (struct ps_drop_key){ 99991, PS_QUEUE_UNKNOWN, PS_DROP_TX, 0 };
	d->drops[1].count = 2 * k;
	d->kern.drops = d->drops;
	d->kern.ndrops = 2;
	d->softirq[0].count[PS_SIRQ_NET_RX] = 40 * k;
	d->softirq[0].time_ns[PS_SIRQ_NET_RX] = 1200000 * k;
	d->softirq[1].count[PS_SIRQ_NET_TX] = 3 * k;
	d->softirq[0].timed[PS_SIRQ_NET_RX] = 5 * k;
	d->softirq[1].time_ns[PS_SIRQ_NET_TX] = 4500 * k;
	d->softirq[1].timed[PS_SIRQ_NET_TX] = 1 * k;
	d->kern.softirq = d->softirq;
	d->kern.ncpus = 2;
	d->kern.xdp_exc[0] = 25 * k;
	s->kern = &d->kern;

	ps_nic_init(&d->nic, (int)s->meta.ifindex);
	snprintf(d->nic.ifname, sizeof(d->nic.ifname), "%s", s->meta.ifname);
	d->nic.link.valid = true;
	d->nic.link.up = true;
	for (h = 0; h < PS_LINK_COUNT; h++)
		d->nic.link.v[h] = (__u64)h * 10 * k;
	d->nic.channels.valid = true;
	d->nic.channels.combined = FX_NQ;
	d->nic.channels.combined_max = 8;
	snprintf(d->nic.rings.why, sizeof(d->nic.rings.why), "not supported by the driver");
	d->nic.features.valid = true;
	d->nic.features.f[PS_NIC_F_GRO].state = PS_NIC_ON;
	d->nic.features.f[PS_NIC_F_LRO].state = PS_NIC_OFF;
	d->nic.features.f[PS_NIC_F_LRO].fixed = true;
	d->nic.features.f[PS_NIC_F_GSO].state = PS_NIC_ON;
	d->nic.features.f[PS_NIC_F_TSO].state = PS_NIC_OFF;
	d->nic.queues.valid = true;
	d->nic.queues.qstats_valid = true;
	d->nic.queues.q = d->nicq;
	d->nic.queues.n = 4;
	for (h = 0; h < 4; h++) {
		struct ps_nic_queue *nq = &d->nicq[h];
		int i;

		nq->type = h < 2 ? PS_NIC_Q_RX : PS_NIC_Q_TX;
		nq->id = (uint32_t)(h % 2);
		nq->napi_id = h < 2 ? 8193 + (uint32_t)h : 0;
		nq->has_qstats = h != 3;
		for (i = 0; i < PS_NIC_QSTATS_COUNT; i++)
			nq->qstats[i] = nq->has_qstats && i < 6 ? (uint64_t)(i + h) * k : PS_NA;
	}
	/* ethtool -S of every queue: its XDP frames are pathscope's and 100
	 * from before attach; RX packets of queues 0 and 1 come from qstats. */
	d->nic.estats.valid = true;
	d->nic.estats.ncounters = 42;
	d->nic.estats.q = d->niceq;
	d->nic.estats.n = 6;
	for (h = 0; h < 6; h++) {
		struct ps_nic_equeue *eq = &d->niceq[h];
		bool rx = h < FX_NQ;

		eq->type = rx ? PS_NIC_Q_RX : PS_NIC_Q_TX;
		eq->id = (uint32_t)(h % FX_NQ);
		eq->v[PS_NIC_ES_PACKETS] = (uint64_t)(100 + 10 * h) * k;
		eq->v[PS_NIC_ES_BYTES] = (uint64_t)(100 + 10 * h) * 1000 * k;
		eq->v[PS_NIC_ES_XDP_PACKETS] = rx ? d->hook[PS_HOOK_XDP][h].packets + 100 : PS_NA;
		eq->v[PS_NIC_ES_DROPS] = rx ? (uint64_t)h * k : PS_NA;
	}
	s->nic = &d->nic;

	d->qd[0] = (struct ps_qdisc){ "mq", 0x10000, 0xffffffff, -1, true, 0, 0, 0, 0, 0, 0, 0 };
	d->qd[1] = (struct ps_qdisc){ "tbf",  0x80010000, 0x10001, 0,	  true, 70000 * k,
				      50 * k, 5,	  7000,	   3 * k, 1,	9 };
	d->qd[2] = (struct ps_qdisc){ "pfifo", 0x80020000, 0x10002, 1, false, 0, 0, 0, 0, 0, 0, 0 };
	d->qdiscs.ifindex = (int)s->meta.ifindex;
	d->qdiscs.q = d->qd;
	d->qdiscs.n = 3;
	d->qdiscs.root = 0;
	s->qdiscs = &d->qdiscs;

	/* where its queues run, as a NIC with an IRQ per queue on NUMA node 0
	 * (CPU 0) would say: queues 0 and 1's IRQs both on CPU 1, queue 2's on
	 * CPU 0 with RPS to CPUs 0-1 */
	d->place.nrx = FX_NQ;
	d->place.nvectors = 4;
	d->place.irqs_mapped = FX_NQ;
	d->place.numa_node = 0;
	snprintf(d->place.numa_cpus, sizeof(d->place.numa_cpus), "0");
	for (h = 0; h < FX_NQ; h++) {
		struct ps_nic_place_rx *r = &d->place.rx[h];

		r->irq = 41 + 2 * h;
		r->irq_src = PS_NIC_IRQ_PROC;
		snprintf(r->affinity, sizeof(r->affinity), "%s", h == 2 ? "0" : "1");
		snprintf(r->effective, sizeof(r->effective), "%s", h == 2 ? "0" : "1");
		snprintf(r->rps, sizeof(r->rps), "%s", h == 2 ? "0-1" : "");
	}
	s->place = &d->place;

	d->softnet[0] = (struct ps_softnet_cpu){ 0, true, 1000 * k, 1, 2 * k, 0, 0, 0 };
	d->softnet[1] = (struct ps_softnet_cpu){ 1, true, 500 * k, 0, 0, PS_NA, PS_NA, PS_NA };
	s->softnet = d->softnet;
	s->nsoftnet = 2;
}

/* The second interface: default features less GRO, queues 0 and 2, clsact,
 * no XDP, nothing but counters and echo. */
static void fx_fill_small(struct ps_snapshot *s, struct fx_iface *d, __u64 k)
{
	memset(d, 0, sizeof(*d));
	s->meta.features = PS_F_DEFAULT & ~PS_F_GRO;
	s->meta.all_queues = 0;
	s->meta.queue_mask[0] = 0x5;
	s->meta.xdp_mode = PS_XDP_NONE;
	s->meta.tc_mode = PS_TC_CLSACT;
	s->meta.tx_sample_every = 1;
	s->meta.flags = PS_META_CREATED_CLSACT;
	s->hook[PS_HOOK_TC_INGRESS] = d->hook[PS_HOOK_TC_INGRESS];
	s->hook[PS_HOOK_TC_EGRESS] = d->hook[PS_HOOK_TC_EGRESS];
	d->hook[PS_HOOK_TC_INGRESS][2].packets = 9 * k;
	d->hook[PS_HOOK_TC_INGRESS][2].bytes = 9 * 98 * k;
	d->hook[PS_HOOK_TC_INGRESS][2].l3[PS_L3_IPV4] = 9 * k;
	d->hook[PS_HOOK_TC_INGRESS][2].l4[PS_L4_ICMP] = 9 * k;
	d->hook[PS_HOOK_TC_INGRESS][2].ecn[PS_IPV4][PS_ECN_NOT_ECT] = 9 * k;
	d->hook[PS_HOOK_TC_INGRESS][2].size_hist[ps_hist_bucket(98, PS_SIZE_BUCKETS)] = 9 * k;
	s->echo = d->echo;
	d->echo[2].requests_in = 9 * k;
	s->d2s = NULL;
	s->fh = NULL;
}

/* snaps[i][0]: previous, snaps[i][1]: current. */
static void fx_fill(struct ps_snapshot snaps[2][2])
{
	int i, t;

	for (i = 0; i < 2; i++)
		for (t = 0; t < 2; t++) {
			struct ps_snapshot *s = &snaps[i][t];
			__u64 k = t ? 3 : 1;

			memset(s, 0, sizeof(*s));
			s->meta.abi_version = PS_ABI_VERSION;
			snprintf(s->meta.ifname, sizeof(s->meta.ifname), i ? "lb\"1" : "veth0");
			s->meta.ifindex = 7 + (unsigned int)i;
			s->meta.netns_ino = 4026531840ULL;
			s->meta.nqueues = FX_NQ;
			s->meta.attach_realtime_ns = 1700000000ULL * 1000000000ULL;
			s->meta.attach_monotonic_ns = 1000000000ULL;
			s->meta.rx_queues_at_attach = FX_NQ;
			s->meta.tx_queues_at_attach = FX_NQ;
			s->mono_ns = t ? 3500000000ULL : 2500000000ULL;
			s->real_ns = (1700000000ULL + (t ? 2 : 1)) * 1000000000ULL + 500000000ULL;
			s->nslots = FX_NQ + 1;
			snprintf(s->dir, sizeof(s->dir), "/sys/fs/bpf/pathscope/4026531840/%u",
				 s->meta.ifindex);
			if (i)
				fx_fill_small(s, &fx_data[i][t], k);
			else
				fx_fill_full(s, &fx_data[i][t], k);
		}
}

#endif /* PATHSCOPE_TESTS_UNIT_SNAPSHOT_FIXTURE_H */
