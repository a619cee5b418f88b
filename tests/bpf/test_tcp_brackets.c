// SPDX-License-Identifier: GPL-2.0
/* The TCP latency feature's samples held to CLOCK_MONOTONIC on crafted segments
 * (tests/lib/tcp_segments.h); a latency test, run alone (tests/run.sh's ALONE_TIMING).
 * The exact counts of the same logic are tests/bpf/test_tcp_cases.c's. */
#include "tests/lib/bracket.h"
#include "tests/lib/tcp_segments.h"

/* ---- exact brackets against CLOCK_MONOTONIC (tests/lib/bracket.h) --------- */

static void timed(void (*fn)(const struct seg *), const struct seg *g, struct span *s)
{
	s->start = mono_ns();
	fn(g);
	s->end = mono_ns();
}

/* Each family's (rtt, handshake, resp_data, resp_ack) count and exact sum
 * over the peer subnets, and its histogram in each queue slot. */
struct sums {
	__u64 n[4], ns[4];
	__u64 hist[NSLOTS][4][PS_LAT_BUCKETS], all[4];
};

static void read_sums(struct sums *s)
{
	int fd = bpf_map__fd(xdp->maps.tcp_peers), fh = bpf_map__fd(xdp->maps.tcp_hist);
	struct ps_tcp_peer_key k, *prev = NULL;
	struct ps_tcp_peer_stats ps;
	static struct ps_tcp_qhist h;
	__u32 q, j;

	memset(s, 0, sizeof(*s));
	for (q = 0; q < NSLOTS; q++) {
		if (bpf_map_lookup_elem(fh, &q, &h))
			continue;
		for (j = 0; j < PS_LAT_BUCKETS; j++) {
			const __u64 v[4] = { h.rtt[j], h.handshake[j], h.resp_data[j],
					     h.resp_ack[j] };

			for (int i = 0; i < 4; i++) {
				s->all[i] += v[i];
				s->hist[q][i][j] = v[i];
			}
		}
	}
	while (bpf_map_get_next_key(fd, prev, &k) == 0) {
		if (bpf_map_lookup_elem(fd, &k, &ps) == 0) {
			s->n[0] += ps.rtt_count, s->ns[0] += ps.rtt_sum_ns;
			s->n[1] += ps.hs_count, s->ns[1] += ps.hs_sum_ns;
			s->n[2] += ps.resp_data_count, s->ns[2] += ps.resp_data_sum_ns;
			s->n[3] += ps.resp_ack_count, s->ns[3] += ps.resp_ack_sum_ns;
		}
		prev = &k;
	}
}

/* Family i gained one sample, inside the bracket of a then b: its exact sum,
 * and its histogram bucket, in the slot of the RX queue. XDP runs on RX
 * queue 0; a test-run skb has no RX queue recorded: "other". */
static void bracket(const char *name, int i, const struct sums *before, const struct span *a,
		    const struct span *b)
{
	struct sums after;
	unsigned int j, blo, bhi, in = 0, q = rx_at_xdp ? 0 : NSLOTS - 1;
	__u64 lo, hi, got;
	char label[200];

	bracket_of(a, b, &lo, &hi);
	blo = ps_hist_bucket(lo, PS_LAT_BUCKETS);
	bhi = ps_hist_bucket(hi, PS_LAT_BUCKETS);
	read_sums(&after);
	got = after.ns[i] - before->ns[i];
	check(after.n[i] - before->n[i] == 1 && lo <= got && got <= hi, name,
	      "%llu samples, %llu ns; want 1 in [%llu, %llu] ns",
	      (unsigned long long)(after.n[i] - before->n[i]), (unsigned long long)got,
	      (unsigned long long)lo, (unsigned long long)hi);
	for (j = blo; j <= bhi; j++)
		in += (unsigned int)(after.hist[q][i][j] - before->hist[q][i][j]);
	snprintf(label, sizeof(label), "%s: its bucket, in %s", name, q ? "slot other" : "queue 0");
	check(in == 1 && after.all[i] - before->all[i] == 1, label,
	      "%u in buckets %u..%u there, %llu in all slots", in, blo, bhi,
	      (unsigned long long)(after.all[i] - before->all[i]));
}

static void test_brackets(void)
{
	struct span a, b;
	struct sums s;

	read_sums(&s);
	timed(tx, &(struct seg){ .lport = 43000, .flags = ACK, TS(1000, 1), DATA(100) }, &a);
	bracket_gap();
	timed(rx, &(struct seg){ .lport = 43000, .flags = ACK, TS(7001, 1000) }, &b);
	bracket("bracket: RTT, data out to the ACK echoing it", 0, &s, &a, &b);

	read_sums(&s);
	timed(tx, &(struct seg){ .lport = 43001, .flags = SYN, .seq = 100, TS(20, 0) }, &a);
	bracket_gap();
	timed(
	    rx,
	    &(struct seg){ .lport = 43001, .flags = SYN | ACK, .seq = 900, .ack = 101, TS(60, 20) },
	    &b);
	bracket("bracket: handshake, client (SYN out to SYN-ACK in)", 1, &s, &a, &b);

	rx(&(struct seg){ .lport = 43002, .flags = SYN, .seq = 400, TS(80, 0) });
	read_sums(&s);
	timed(
	    tx,
	    &(struct seg){ .lport = 43002, .flags = SYN | ACK, .seq = 600, .ack = 401, TS(40, 80) },
	    &a);
	bracket_gap();
	timed(rx, &(struct seg){ .lport = 43002, .flags = ACK, .seq = 401, .ack = 601, TS(81, 40) },
	      &b);
	bracket("bracket: handshake, server (SYN-ACK out to its ACK in)", 1, &s, &a, &b);

	tx(&(struct seg){ .lport = 43003, .flags = ACK, TS(10, 500) });
	read_sums(&s);
	timed(rx, &(struct seg){ .lport = 43003, .flags = ACK, TS(501, 10), DATA(50) }, &a);
	bracket_gap();
	timed(tx, &(struct seg){ .lport = 43003, .flags = ACK, TS(11, 501) }, &b);
	bracket("bracket: ACK delay (data in to the pure ACK echoing it)", 3, &s, &a, &b);
	read_sums(&s);
	timed(rx, &(struct seg){ .lport = 43003, .flags = ACK, TS(502, 11), DATA(50) }, &a);
	bracket_gap();
	timed(tx, &(struct seg){ .lport = 43003, .flags = ACK, TS(12, 502), DATA(70) }, &b);
	bracket("bracket: response with data (data in to the data echoing it)", 2, &s, &a, &b);
}

/* In both passes (arrivals at tc ingress and at XDP), each latency (RTT,
 * handshake both sides, response with data, ACK delay), read around the two
 * test runs 2 ms apart, brackets the exact sum the sample adds, and the bucket
 * and queue slot it lands in (tests/lib/bracket.h). */
int main(void)
{
	return tcp_passes(test_brackets);
}
