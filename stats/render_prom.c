// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Prometheus text format 0.0.4. Each metric family is written as one group
 * (HELP and TYPE once, then its samples for every interface), as the format
 * requires, and only when it has samples.
 *
 * Histograms use a fixed set of power-of-two edges per family, so that every
 * series keeps the same buckets. The log-linear buckets of hist.h have every
 * power of two as an edge, so the count of values below 2^k is exact; the
 * values are integers (bytes, segments, nanoseconds), so "below 2^k" is
 * "less than or equal to 2^k - 1", and that is the le label. The top edge is
 * 2^(bits - 1): the last bucket also holds clamped values.
 */
#include "stats/render_prom.h"

#include <stddef.h>

#include <arpa/inet.h>
#include <string.h>

#include "stats/drop_reasons.h"
#include "stats/kern_snapshot.h"
#include "lib/names.h"
#include "stats/report.h"
#include "lib/queues.h"

typedef unsigned __int128 u128; /* cumulative counts of UINT64_MAX buckets */

struct prom {
	FILE *out;
	const char *name, *type, *help; /* the family being written */
	bool header_done;
};

/* A label set, already escaped: a="x",b="y" */
struct lbl {
	char s[768];
	size_t n;
};

struct edges {
	unsigned int k0, k1; /* le = 2^k - 1 for k0 <= k <= k1 */
	bool ns;	     /* values are ns, exported in seconds */
};

static const struct edges size_edges = { 6, PS_SIZE_BITS - 1, false }; /* 63 B .. 512 KiB */
static const struct edges segs_edges = { 1, PS_SEGS_BITS - 1, false }; /* 1 .. 511 */
static const struct edges lat_edges = { 10, PS_LAT_BITS - 1, true };   /* ~1 us .. ~34 s */

static const char *const xdp_action_names[PS_XDP_ACTIONS] = { "aborted", "drop",     "pass",
							      "tx",	 "redirect", "other" };

static const char *fmt_u128(char *buf, size_t len, u128 v)
{
	char tmp[48];
	size_t i = 0, j;

	do {
		tmp[i++] = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v && i < sizeof(tmp));
	for (j = 0; j < i && j + 1 < len; j++)
		buf[j] = tmp[i - 1 - j];
	buf[j] = '\0';
	return buf;
}

/* Nanoseconds as exact decimal seconds: 1.5, 0.000001023, 34. */
static const char *fmt_seconds(char *buf, size_t len, u128 ns)
{
	char ip[48];
	unsigned long long frac = (unsigned long long)(ns % 1000000000U);
	size_t n;

	fmt_u128(ip, sizeof(ip), ns / 1000000000U);
	if (!frac) {
		snprintf(buf, len, "%s", ip);
		return buf;
	}
	snprintf(buf, len, "%s.%09llu", ip, frac);
	n = strlen(buf);
	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	return buf;
}

static void lbl_reset(struct lbl *l)
{
	l->n = 0;
	l->s[0] = '\0';
}

static void lbl_put(struct lbl *l, char c)
{
	if (l->n + 1 < sizeof(l->s)) {
		l->s[l->n++] = c;
		l->s[l->n] = '\0';
	}
}

/* Label values escape backslash, double quote and line feed. */
static void lbl_add(struct lbl *l, const char *key, const char *val)
{
	if (l->n)
		lbl_put(l, ',');
	for (; *key; key++)
		lbl_put(l, *key);
	lbl_put(l, '=');
	lbl_put(l, '"');
	for (; *val; val++) {
		if (*val == '\\' || *val == '"') {
			lbl_put(l, '\\');
			lbl_put(l, *val);
		} else if (*val == '\n') {
			lbl_put(l, '\\');
			lbl_put(l, 'n');
		} else {
			lbl_put(l, *val);
		}
	}
	lbl_put(l, '"');
}

static void lbl_addu(struct lbl *l, const char *key, unsigned long long v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%llu", v);
	lbl_add(l, key, buf);
}

static void lbl_iface(struct lbl *l, const struct ps_snapshot *s)
{
	char name[sizeof(s->meta.ifname) + 1];

	snprintf(name, sizeof(name), "%.*s", (int)sizeof(s->meta.ifname), s->meta.ifname);
	lbl_reset(l);
	lbl_add(l, "iface", name);
}

/* iface, queue ("0".."N-1", or "other" for the last slot). */
static void lbl_queue(struct lbl *l, const struct ps_snapshot *s, unsigned int q)
{
	lbl_iface(l, s);
	if (q == s->nslots - 1)
		lbl_add(l, "queue", "other");
	else
		lbl_addu(l, "queue", q);
}

static void family(struct prom *p, const char *name, const char *type, const char *help)
{
	p->name = name;
	p->type = type;
	p->help = help;
	p->header_done = false;
}

static void header(struct prom *p)
{
	const char *c;

	if (p->header_done)
		return;
	fprintf(p->out, "# HELP %s ", p->name);
	for (c = p->help; *c; c++) { /* HELP escapes backslash and line feed */
		if (*c == '\\')
			fputs("\\\\", p->out);
		else if (*c == '\n')
			fputs("\\n", p->out);
		else
			fputc(*c, p->out);
	}
	fprintf(p->out, "\n# TYPE %s %s\n", p->name, p->type);
	p->header_done = true;
}

static void sample(struct prom *p, const char *suffix, const struct lbl *l, const char *value)
{
	header(p);
	fprintf(p->out, "%s%s", p->name, suffix);
	if (l && l->n)
		fprintf(p->out, "{%s}", l->s);
	fprintf(p->out, " %s\n", value);
}

static void sample_u(struct prom *p, const struct lbl *l, u128 v)
{
	char buf[48];

	sample(p, "", l, fmt_u128(buf, sizeof(buf), v));
}

/* A sample with one more label. */
static void sample_u1(struct prom *p, const struct lbl *base, const char *key, const char *val,
		      u128 v)
{
	struct lbl l = *base;

	lbl_add(&l, key, val);
	sample_u(p, &l, v);
}

/* The midpoint of bucket b, as the percentiles use it (exact below 16). */
static u128 bucket_mid(unsigned int b)
{
	unsigned long long lo = ps_hist_bucket_low(b), hi = ps_hist_bucket_high(b);

	return lo + (hi - lo - 1) / 2;
}

static u128 est_sum(const __u64 *b, unsigned int n)
{
	u128 sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		sum += (u128)b[i] * bucket_mid(i);
	return sum;
}

/* _bucket at every edge, +Inf, _sum (given), _count. */
static void hist(struct prom *p, const struct lbl *base, const __u64 *b, unsigned int n,
		 const struct edges *e, u128 sum)
{
	char le[48], v[48];
	struct lbl l;
	unsigned int i = 0, k, idx;
	u128 cum = 0;

	for (k = e->k0; k <= e->k1; k++) {
		idx = ps_hist_bucket(1ULL << k, n);
		while (i < idx)
			cum += b[i++];
		if (e->ns)
			fmt_seconds(le, sizeof(le), ((u128)1 << k) - 1);
		else
			fmt_u128(le, sizeof(le), ((u128)1 << k) - 1);
		l = *base;
		lbl_add(&l, "le", le);
		sample(p, "_bucket", &l, fmt_u128(v, sizeof(v), cum));
	}
	while (i < n)
		cum += b[i++];
	l = *base;
	lbl_add(&l, "le", "+Inf");
	sample(p, "_bucket", &l, fmt_u128(v, sizeof(v), cum));
	if (e->ns)
		fmt_seconds(v, sizeof(v), sum);
	else
		fmt_u128(v, sizeof(v), sum);
	sample(p, "_sum", base, v);
	sample(p, "_count", base, fmt_u128(v, sizeof(v), cum));
}

static void lat_hist(struct prom *p, const struct lbl *base, const __u64 *b)
{
	hist(p, base, b, PS_LAT_BUCKETS, &lat_edges, est_sum(b, PS_LAT_BUCKETS));
}

/* ---- per hook and queue ------------------------------------------------- */

/* Queue slots the hooks measure: with --queues, only those (not "other"). */
static bool slot_measured(const struct ps_snapshot *s, unsigned int q)
{
	if (s->meta.all_queues)
		return true;
	return q < s->meta.nqueues && ps_queue_selected(s->meta.queue_mask, q);
}

typedef void (*hook_fn)(struct prom *p, const struct lbl *l, const struct ps_qstats *st);

static void each_hook(struct prom *p, const struct ps_snapshot *snaps, int n, __u32 feature,
		      bool tc_only, hook_fn fn)
{
	struct lbl l;
	unsigned int q;
	int i, h;

	for (i = 0; i < n; i++) {
		const struct ps_snapshot *s = &snaps[i];

		if (feature && !(s->meta.features & feature))
			continue;
		for (h = 0; h < PS_HOOK_COUNT; h++) {
			if (!s->hook[h] || (tc_only && h == PS_HOOK_XDP))
				continue;
			for (q = 0; q < s->nslots; q++) {
				if (!slot_measured(s, q))
					continue;
				lbl_queue(&l, s, q);
				lbl_add(&l, "hook", ps_hook_names[h]);
				lbl_add(&l, "direction", ps_hook_dirs[h]);
				fn(p, &l, &s->hook[h][q]);
			}
		}
	}
}

static void h_packets(struct prom *p, const struct lbl *l, const struct ps_qstats *st)
{
	sample_u(p, l, st->packets);
}

static void h_bytes(struct prom *p, const struct lbl *l, const struct ps_qstats *st)
{
	sample_u(p, l, st->bytes);
}

static void h_l3(struct prom *p, const struct lbl *l, const struct ps_qstats *st)
{
	int c;

	for (c = 0; c < PS_L3_COUNT; c++)
		sample_u1(p, l, "class", ps_l3_names[c], st->l3[c]);
}

static void h_l4(struct prom *p, const struct lbl *l, const struct ps_qstats *st)
{
	int c;

	for (c = 0; c < PS_L4_COUNT; c++)
		sample_u1(p, l, "class", ps_l4_names[c], st->l4[c]);
}

static void h_errors(struct prom *p, const struct lbl *l, const struct ps_qstats *st)
{
	int c;

	for (c = 0; c < PS_ERR_COUNT; c++)
		sample_u1(p, l, "reason", ps_err_names[c], st->err[c]);
}

static void h_vlan(struct prom *p, const struct lbl *l, const struct ps_qstats *st)
{
	sample_u(p, l, st->vlan_tagged);
}

static void h_ecn(struct prom *p, const struct lbl *l, const struct ps_qstats *st)
{
	struct lbl lv;
	int v, c;

	for (v = 0; v < PS_IPVER_COUNT; v++) {
		lv = *l;
		lbl_add(&lv, "ipver", ps_ipver_names[v]);
		for (c = 0; c < PS_ECN_COUNT; c++)
			sample_u1(p, &lv, "codepoint", ps_ecn_names[c], st->ecn[v][c]);
	}
}

static void h_size(struct prom *p, const struct lbl *l, const struct ps_qstats *st)
{
	hist(p, l, st->size_hist, PS_SIZE_BUCKETS, &size_edges, st->bytes);
}

static void h_multi(struct prom *p, const struct lbl *l, const struct ps_qstats *st)
{
	sample_u(p, l, st->gso_packets);
}

static void h_segments(struct prom *p, const struct lbl *l, const struct ps_qstats *st)
{
	sample_u(p, l, ps_segments(st));
}

static void h_gso_size(struct prom *p, const struct lbl *l, const struct ps_qstats *st)
{
	sample_u(p, l, st->gso_size_sum);
}

static void h_segs_hist(struct prom *p, const struct lbl *l, const struct ps_qstats *st)
{
	hist(p, l, st->segs_hist, PS_SEGS_BUCKETS, &segs_edges, ps_segments(st));
}

static void hook_families(struct prom *p, const struct ps_snapshot *s, int n)
{
	family(p, "pathscope_packets_total", "counter",
	       "Packets per queue and hook: frames at xdp (driver ingress), skbs at tc_ingress "
	       "(after GRO) and tc_egress (before the qdisc and GSO).");
	each_hook(p, s, n, 0, false, h_packets);
	family(p, "pathscope_bytes_total", "counter",
	       "Bytes of those packets, Ethernet header included (a GRO/GSO skb with its full "
	       "length).");
	each_hook(p, s, n, 0, false, h_bytes);
	family(p, "pathscope_l3_packets_total", "counter",
	       "Packets by L3 class (exactly one each; the classes sum to packets).");
	each_hook(p, s, n, PS_F_CLASS, false, h_l3);
	family(p, "pathscope_l4_packets_total", "counter",
	       "IPv4/IPv6 packets by L4 class (exactly one each).");
	each_hook(p, s, n, PS_F_CLASS, false, h_l4);
	family(p, "pathscope_parse_errors_total", "counter",
	       "Malformed packets by reason (sum to the malformed L3 and L4 classes).");
	each_hook(p, s, n, PS_F_CLASS, false, h_errors);
	family(p, "pathscope_vlan_tagged_packets_total", "counter",
	       "Packets carrying at least one VLAN tag in the packet data.");
	each_hook(p, s, n, PS_F_CLASS, false, h_vlan);
	family(p, "pathscope_ecn_packets_total", "counter",
	       "IP packets by ECN codepoint and IP version.");
	each_hook(p, s, n, PS_F_ECN, false, h_ecn);
	family(p, "pathscope_frame_size_bytes", "histogram",
	       "Frame (xdp) or skb (tc) length; le=2^k-1 counts lengths below 2^k exactly; _sum "
	       "is the bytes counter.");
	each_hook(p, s, n, PS_F_SIZES, false, h_size);
	family(p, "pathscope_multi_segment_skbs_total", "counter",
	       "tc only: skbs of more than one segment (what GRO merged at tc_ingress, what "
	       "GSO/TSO will split at tc_egress).");
	each_hook(p, s, n, PS_F_GRO, true, h_multi);
	family(p, "pathscope_segments_total", "counter",
	       "tc only: segments in all skbs (a plain skb counts 1).");
	each_hook(p, s, n, PS_F_GRO, true, h_segments);
	family(p, "pathscope_gso_size_bytes_total", "counter",
	       "tc only: sum of gso_size over multi-segment skbs (divide by "
	       "pathscope_multi_segment_skbs_total for the average).");
	each_hook(p, s, n, PS_F_GRO, true, h_gso_size);
	family(p, "pathscope_skb_segments", "histogram",
	       "tc only: segments per skb; le=2^k-1 counts skbs of fewer than 2^k segments "
	       "exactly; _sum is pathscope_segments_total.");
	each_hook(p, s, n, PS_F_GRO, true, h_segs_hist);
}

/* ---- per queue: echo, driver to stack, TX latency, kernel path ----------- */

typedef void (*slot_fn)(struct prom *p, const struct lbl *l, const struct ps_snapshot *s,
			unsigned int q);

enum slot_kind { SLOT_ECHO, SLOT_D2S, SLOT_TXLAT, SLOT_KERN };

static bool has_slots(const struct ps_snapshot *s, enum slot_kind k)
{
	switch (k) {
	case SLOT_ECHO:
		return s->echo && (s->meta.features & PS_F_ICMP);
	case SLOT_D2S:
		return s->d2s && (s->meta.features & PS_F_D2S);
	case SLOT_TXLAT:
		return s->txlat;
	case SLOT_KERN:
		return s->kern;
	}
	return false;
}

/* Echo and d2s are counted by the hooks' programs (queue filter applies);
 * the tracepoint probes see every queue. */

/* The per-queue value of kind k at slot q. */
static const void *slot_value(const struct ps_snapshot *s, enum slot_kind k, unsigned int q)
{
	switch (k) {
	case SLOT_ECHO:
		return &s->echo[q];
	case SLOT_D2S:
		return &s->d2s[q];
	case SLOT_TXLAT:
		return &s->txlat[q];
	case SLOT_KERN:
		return &s->kern->q[q];
	}
	return NULL;
}

/* For every measured queue slot of kind k: fn, or without fn one sample of
 * the __u64 counter at offset off of the slot's value. */
static void each_slot_at(struct prom *p, const struct ps_snapshot *snaps, int n, enum slot_kind k,
			 slot_fn fn, size_t off)
{
	struct lbl l;
	unsigned int q;
	int i;

	for (i = 0; i < n; i++) {
		if (!has_slots(&snaps[i], k))
			continue;
		for (q = 0; q < snaps[i].nslots; q++) {
			if ((k == SLOT_ECHO || k == SLOT_D2S) && !slot_measured(&snaps[i], q))
				continue;
			lbl_queue(&l, &snaps[i], q);
			if (fn)
				fn(p, &l, &snaps[i], q);
			else
				sample_u(
				    p, &l,
				    *(const __u64 *)((const char *)slot_value(&snaps[i], k, q) +
						     off));
		}
	}
}

static void each_slot(struct prom *p, const struct ps_snapshot *snaps, int n, enum slot_kind k,
		      slot_fn fn)
{
	each_slot_at(p, snaps, n, k, fn, 0);
}

static void each_slot_u64(struct prom *p, const struct ps_snapshot *snaps, int n, enum slot_kind k,
			  size_t off)
{
	each_slot_at(p, snaps, n, k, NULL, off);
}

static void e_rtt(struct prom *p, const struct lbl *l, const struct ps_snapshot *s, unsigned int q)
{
	lat_hist(p, l, s->echo[q].rtt_hist);
}

static void e_resp(struct prom *p, const struct lbl *l, const struct ps_snapshot *s, unsigned int q)
{
	lat_hist(p, l, s->echo[q].resp_hist);
}

static void peer_label(struct lbl *l, const struct ps_snapshot *s, const struct ps_peer_key *k)
{
	char name[INET6_ADDRSTRLEN];

	if (k->family == 4)
		inet_ntop(AF_INET, k->addr, name, sizeof(name));
	else if (k->family == 6)
		inet_ntop(AF_INET6, k->addr, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "other");
	lbl_iface(l, s);
	lbl_add(l, "peer", name);
}

static void peer_families(struct prom *p, const struct ps_snapshot *snaps, int n)
{
	char v[48];
	struct lbl l;
	unsigned int j;
	int i;

	family(p, "pathscope_icmp_peer_rtt_seconds", "histogram",
	       "ICMP echo RTT per peer (the first 64 peers, then peer=\"other\"); _sum is exact.");
	for (i = 0; i < n; i++) {
		if (!has_slots(&snaps[i], SLOT_ECHO))
			continue;
		for (j = 0; j < snaps[i].npeers; j++) {
			const struct ps_peer_stats *ps = &snaps[i].peers[j].stats;

			peer_label(&l, &snaps[i], &snaps[i].peers[j].key);
			hist(p, &l, ps->rtt_hist, PS_LAT_BUCKETS, &lat_edges, ps->rtt_sum_ns);
		}
	}
	family(p, "pathscope_icmp_peer_response_seconds", "summary",
	       "This host's ICMP echo response time per peer: exact _sum and _count.");
	for (i = 0; i < n; i++) {
		if (!has_slots(&snaps[i], SLOT_ECHO))
			continue;
		for (j = 0; j < snaps[i].npeers; j++) {
			const struct ps_peer_stats *ps = &snaps[i].peers[j].stats;

			peer_label(&l, &snaps[i], &snaps[i].peers[j].key);
			sample(p, "_sum", &l, fmt_seconds(v, sizeof(v), ps->resp_sum_ns));
			sample(p, "_count", &l, fmt_u128(v, sizeof(v), ps->resp_count));
		}
	}
}

static void echo_families(struct prom *p, const struct ps_snapshot *s, int n)
{
	family(p, "pathscope_icmp_echo_requests_sent_total", "counter",
	       "ICMP/ICMPv6 echo requests sent (tc egress; mostly queue=\"other\": no cached TX "
	       "queue).");
	each_slot_u64(p, s, n, SLOT_ECHO, offsetof(struct ps_echo_qstats, requests_out));
	family(p, "pathscope_icmp_echo_replies_matched_total", "counter",
	       "Echo replies received and matched to a request sent, per RX queue of the reply.");
	each_slot_u64(p, s, n, SLOT_ECHO, offsetof(struct ps_echo_qstats, replies_in));
	family(p, "pathscope_icmp_echo_requests_received_total", "counter",
	       "Echo requests received (xdp), per RX queue.");
	each_slot_u64(p, s, n, SLOT_ECHO, offsetof(struct ps_echo_qstats, requests_in));
	family(p, "pathscope_icmp_echo_replies_sent_total", "counter",
	       "This host's echo replies matched to a request received, per RX queue of the "
	       "request.");
	each_slot_u64(p, s, n, SLOT_ECHO, offsetof(struct ps_echo_qstats, replies_out));
	family(p, "pathscope_icmp_echo_expired_total", "counter",
	       "Echo matches older than 10 s (reused id and sequence), not recorded.");
	each_slot_u64(p, s, n, SLOT_ECHO, offsetof(struct ps_echo_qstats, expired));
	family(p, "pathscope_icmp_rtt_seconds", "histogram",
	       "ICMP echo round-trip time, tc egress to xdp, per RX queue of the reply; _sum is "
	       "estimated from bucket midpoints (the datapath stores no sum).");
	each_slot(p, s, n, SLOT_ECHO, e_rtt);
	family(p, "pathscope_icmp_response_seconds", "histogram",
	       "This host's ICMP echo response time, xdp to tc egress, per RX queue of the "
	       "request; _sum is estimated from bucket midpoints.");
	each_slot(p, s, n, SLOT_ECHO, e_resp);
	peer_families(p, s, n);
}

static void d_hist(struct prom *p, const struct lbl *l, const struct ps_snapshot *s, unsigned int q)
{
	lat_hist(p, l, s->d2s[q].hist);
}

static void d2s_families(struct prom *p, const struct ps_snapshot *s, int n)
{
	family(p, "pathscope_d2s_sampled_total", "counter",
	       "Driver to stack: TCP/UDP packets sampled at xdp (1 in 64 per CPU), per RX queue.");
	each_slot_u64(p, s, n, SLOT_D2S, offsetof(struct ps_d2s_qstats, sampled));
	family(p, "pathscope_d2s_matched_total", "counter",
	       "Driver to stack: samples found at tc ingress.");
	each_slot_u64(p, s, n, SLOT_D2S, offsetof(struct ps_d2s_qstats, matched));
	family(p, "pathscope_d2s_expired_total", "counter",
	       "Driver to stack: samples not found at tc ingress within 10 ms.");
	each_slot_u64(p, s, n, SLOT_D2S, offsetof(struct ps_d2s_qstats, expired));
	family(p, "pathscope_d2s_latency_seconds", "histogram",
	       "Driver to stack latency of matched samples, xdp (before GRO) to tc ingress "
	       "(after GRO); _sum is estimated from bucket midpoints.");
	each_slot(p, s, n, SLOT_D2S, d_hist);
}

static void t_dropped(struct prom *p, const struct lbl *l, const struct ps_snapshot *s,
		      unsigned int q)
{
	sample_u(p, l, (u128)s->txlat[q].dropped * s->meta.tx_sample_every);
}

static void t_sojourn(struct prom *p, const struct lbl *l, const struct ps_snapshot *s,
		      unsigned int q)
{
	lat_hist(p, l, s->txlat[q].sojourn_hist);
}

static void t_completion(struct prom *p, const struct lbl *l, const struct ps_snapshot *s,
			 unsigned int q)
{
	if (!(s->meta.flags & PS_META_NO_COMPLETION)) /* veth hands skbs on */
		lat_hist(p, l, s->txlat[q].completion_hist);
}

static void txlat_families(struct prom *p, const struct ps_snapshot *s, int n)
{
	struct lbl l;
	int i;

	family(p, "pathscope_txlat_sample_every", "gauge",
	       "TX latency: 1 in N transmitted skbs is timed (histogram counts cover those).");
	for (i = 0; i < n; i++) {
		if (!s[i].txlat)
			continue;
		lbl_iface(&l, &s[i]);
		sample_u(p, &l, s[i].meta.tx_sample_every);
	}
	family(p, "pathscope_txlat_queued_total", "counter",
	       "skbs entering the qdisc (net:net_dev_queue), per TX queue.");
	each_slot_u64(p, s, n, SLOT_TXLAT, offsetof(struct ps_txlat_qstats, queued));
	family(p, "pathscope_txlat_dropped_total", "counter",
	       "skbs freed by kfree_skb after entering the qdisc (scaled by the sampling).");
	each_slot(p, s, n, SLOT_TXLAT, t_dropped);
	family(p, "pathscope_txlat_stale_total", "counter",
	       "In-flight entries older than 10 s, not recorded.");
	each_slot_u64(p, s, n, SLOT_TXLAT, offsetof(struct ps_txlat_qstats, stale));
	family(p, "pathscope_qdisc_sojourn_seconds", "histogram",
	       "Time in the qdisc, net_dev_queue to net_dev_start_xmit, per TX queue; _sum is "
	       "estimated from bucket midpoints.");
	each_slot(p, s, n, SLOT_TXLAT, t_sojourn);
	family(p, "pathscope_tx_completion_seconds", "histogram",
	       "Driver TX completion, net_dev_start_xmit to the skb freed, per TX queue (absent "
	       "on veth); _sum is estimated from bucket midpoints.");
	each_slot(p, s, n, SLOT_TXLAT, t_completion);
}

/* The queue a kernel slot stands for in the NAPI lists (the last: unknown). */
static __u32 kern_queue(const struct ps_snapshot *s, unsigned int q)
{
	return q == s->nslots - 1 ? PS_QUEUE_UNKNOWN : q;
}

static void k_xmit(struct prom *p, const struct lbl *l, const struct ps_snapshot *s, unsigned int q)
{
	sample_u1(p, l, "result", "ok", s->kern->q[q].xmit_ok);
	sample_u1(p, l, "result", "busy", s->kern->q[q].xmit_busy);
	sample_u1(p, l, "result", "dropped", s->kern->q[q].xmit_dropped);
}

/* NAPI figures of the instances serving queue q; only queues that have one. */
static void k_napi(struct prom *p, const struct lbl *l, const struct ps_snapshot *s, unsigned int q,
		   size_t off)
{
	struct ps_napi_stats ns;

	if (ps_kern_napi_sum(s->kern, kern_queue(s, q), &ns))
		sample_u(p, l, *(const __u64 *)((const char *)&ns + off));
}

static void k_polls(struct prom *p, const struct lbl *l, const struct ps_snapshot *s,
		    unsigned int q)
{
	k_napi(p, l, s, q, offsetof(struct ps_napi_stats, polls));
}

static void k_work(struct prom *p, const struct lbl *l, const struct ps_snapshot *s, unsigned int q)
{
	k_napi(p, l, s, q, offsetof(struct ps_napi_stats, work));
}

static void k_exhausted(struct prom *p, const struct lbl *l, const struct ps_snapshot *s,
			unsigned int q)
{
	k_napi(p, l, s, q, offsetof(struct ps_napi_stats, exhausted));
}

static void k_idle(struct prom *p, const struct lbl *l, const struct ps_snapshot *s, unsigned int q)
{
	k_napi(p, l, s, q, offsetof(struct ps_napi_stats, idle));
}

static void kernel_lists(struct prom *p, const struct ps_snapshot *snaps, int n)
{
	static const char *const dirs[] = { "rx", "tx" };
	static const char *const vec[PS_SIRQ_COUNT] = { "net_tx", "net_rx" };
	char name[64], v[48];
	struct lbl l, lv;
	unsigned int j;
	int i, a;

	family(p, "pathscope_kernel_drops_total", "counter",
	       "skb:kfree_skb drops on the interface by the kernel's drop reason; queue=\"other\" "
	       "when unknown (always for tx).");
	for (i = 0; i < n; i++) {
		const struct ps_kern_snapshot *k = snaps[i].kern;

		for (j = 0; k && j < k->ndrops; j++) {
			lbl_iface(&l, &snaps[i]);
			lbl_add(&l, "direction", dirs[k->drops[j].key.dir & 1]);
			if (k->drops[j].key.queue == PS_QUEUE_UNKNOWN)
				lbl_add(&l, "queue", "other");
			else
				lbl_addu(&l, "queue", k->drops[j].key.queue);
			lbl_add(&l, "reason",
				ps_drop_reason_name(k->drops[j].key.reason, name, sizeof(name)));
			sample_u(p, &l, k->drops[j].count);
		}
	}
	family(p, "pathscope_kernel_xdp_exceptions_total", "counter",
	       "xdp:xdp_exception events on the interface, per action.");
	for (i = 0; i < n; i++) {
		if (!snaps[i].kern)
			continue;
		lbl_iface(&l, &snaps[i]);
		for (a = 0; a < PS_XDP_ACTIONS; a++)
			sample_u1(p, &l, "action", xdp_action_names[a], snaps[i].kern->xdp_exc[a]);
	}
	family(p, "pathscope_softirq_seconds_total", "counter",
	       "NET_RX/NET_TX softirq time per CPU (all devices of the CPU).");
	for (i = 0; i < n; i++) {
		const struct ps_kern_snapshot *k = snaps[i].kern;

		for (j = 0; k && j < k->ncpus; j++)
			for (a = 0; a < PS_SIRQ_COUNT; a++) {
				lbl_iface(&lv, &snaps[i]);
				lbl_addu(&lv, "cpu", j);
				lbl_add(&lv, "vector", vec[a]);
				sample(p, "", &lv,
				       fmt_seconds(v, sizeof(v), k->softirq[j].time_ns[a]));
			}
	}
	family(p, "pathscope_softirq_runs_total", "counter",
	       "NET_RX/NET_TX softirq runs per CPU (all devices of the CPU).");
	for (i = 0; i < n; i++) {
		const struct ps_kern_snapshot *k = snaps[i].kern;

		for (j = 0; k && j < k->ncpus; j++)
			for (a = 0; a < PS_SIRQ_COUNT; a++) {
				lbl_iface(&lv, &snaps[i]);
				lbl_addu(&lv, "cpu", j);
				lbl_add(&lv, "vector", vec[a]);
				sample_u(p, &lv, k->softirq[j].count[a]);
			}
	}
}

static void kernel_families(struct prom *p, const struct ps_snapshot *s, int n)
{
	family(p, "pathscope_kernel_gro_frames_total", "counter",
	       "Frames the driver handed to GRO (net:napi_gro_receive_entry), per RX queue.");
	each_slot_u64(p, s, n, SLOT_KERN, offsetof(struct ps_kern_qstats, gro_frames));
	family(p, "pathscope_kernel_stack_skbs_total", "counter",
	       "skbs entering the stack (net:netif_receive_skb), per RX queue.");
	each_slot_u64(p, s, n, SLOT_KERN, offsetof(struct ps_kern_qstats, stack_skbs));
	family(p, "pathscope_kernel_stack_packets_total", "counter",
	       "Packets in those skbs (GRO segments counted), per RX queue.");
	each_slot_u64(p, s, n, SLOT_KERN, offsetof(struct ps_kern_qstats, stack_segs));
	family(p, "pathscope_kernel_xmit_total", "counter",
	       "Driver transmit return codes (net:net_dev_xmit) per TX queue: ok "
	       "(NETDEV_TX_OK), busy (NETDEV_TX_BUSY), dropped (anything else).");
	each_slot(p, s, n, SLOT_KERN, k_xmit);
	family(p, "pathscope_kernel_xmit_bytes_total", "counter",
	       "Bytes of the skbs sent with NETDEV_TX_OK, per TX queue.");
	each_slot_u64(p, s, n, SLOT_KERN, offsetof(struct ps_kern_qstats, xmit_bytes));
	family(p, "pathscope_napi_polls_total", "counter",
	       "NAPI polls (napi:napi_poll) of the instances serving each RX queue.");
	each_slot(p, s, n, SLOT_KERN, k_polls);
	family(p, "pathscope_napi_work_total", "counter", "Packets processed by those polls.");
	each_slot(p, s, n, SLOT_KERN, k_work);
	family(p, "pathscope_napi_budget_exhausted_total", "counter",
	       "Polls that used their whole budget (the queue had more waiting).");
	each_slot(p, s, n, SLOT_KERN, k_exhausted);
	family(p, "pathscope_napi_idle_polls_total", "counter", "Polls that found nothing.");
	each_slot(p, s, n, SLOT_KERN, k_idle);
	kernel_lists(p, s, n);
}

/* ---- interfaces, build, BPF run time -------------------------------------- */

static const char *probe_mode(const struct ps_meta *m)
{
	if (!(m->features & (PS_F_TXLAT | PS_F_KERNEL)))
		return "none";
	return (m->flags & PS_META_TRACEPOINTS) ? "tracepoint" : "tp_btf";
}

static void iface_families(struct prom *p, const struct ps_snapshot *s, int n,
			   const struct ps_prom_extra *x)
{
	char buf[256];
	struct lbl l;
	int i;

	family(p, "pathscope_up", "gauge",
	       "1 while the interface's attachment is live (the programs pathscope attached are "
	       "in place), else 0.");
	if (x && x->ifaces) {
		for (i = 0; i < x->nifaces; i++) {
			char name[sizeof(x->ifaces[i].ifname) + 1];

			snprintf(name, sizeof(name), "%.*s", (int)sizeof(x->ifaces[i].ifname),
				 x->ifaces[i].ifname);
			lbl_reset(&l);
			lbl_add(&l, "iface", name);
			sample_u(p, &l, x->ifaces[i].up);
		}
	} else {
		for (i = 0; i < n; i++) {
			lbl_iface(&l, &s[i]);
			sample_u(p, &l, 1);
		}
	}
	family(p, "pathscope_attached_seconds", "gauge",
	       "Seconds since the interface was attached (counters run since then).");
	for (i = 0; i < n; i++) {
		lbl_iface(&l, &s[i]);
		sample(p, "", &l,
		       fmt_seconds(buf, sizeof(buf),
				   s[i].mono_ns > s[i].meta.attach_monotonic_ns
				       ? s[i].mono_ns - s[i].meta.attach_monotonic_ns
				       : 0));
	}
	family(p, "pathscope_attachment_info", "gauge",
	       "What is attached to the interface, as labels; always 1.");
	for (i = 0; i < n; i++) {
		const struct ps_meta *m = &s[i].meta;

		lbl_iface(&l, &s[i]);
		lbl_addu(&l, "ifindex", m->ifindex);
		lbl_add(&l, "xdp_mode", ps_xdp_mode_name(m->xdp_mode));
		lbl_add(&l, "tc_mode", ps_tc_mode_name(m->tc_mode));
		lbl_add(&l, "probe_mode", probe_mode(m));
		ps_features_format(m->features, buf, sizeof(buf));
		lbl_add(&l, "features", buf);
		if (m->all_queues)
			snprintf(buf, sizeof(buf), "all");
		else
			ps_queues_format(m->queue_mask, buf, sizeof(buf));
		lbl_add(&l, "queues", buf);
		lbl_addu(&l, "nqueues", m->nqueues);
		sample_u(p, &l, 1);
	}
}

static void bpf_families(struct prom *p, const struct ps_prom_extra *x)
{
	char v[48];
	struct lbl l;
	int i;

	if (!x || x->bpf_stats_enabled < 0)
		return;
	family(p, "pathscope_bpf_stats_enabled", "gauge",
	       "kernel.bpf_stats_enabled: 1 when the kernel counts BPF run time (adds a clock "
	       "read per run).");
	sample_u(p, NULL, x->bpf_stats_enabled ? 1 : 0);
	if (x->bpf_stats_enabled != 1)
		return;
	family(p, "pathscope_bpf_run_seconds_total", "counter",
	       "Run time of each pathscope BPF program (pin name), from bpf_stats.");
	for (i = 0; i < x->nprogs; i++) {
		lbl_reset(&l);
		lbl_add(&l, "iface", x->progs[i].ifname);
		lbl_add(&l, "program", x->progs[i].program);
		sample(p, "", &l, fmt_seconds(v, sizeof(v), x->progs[i].run_time_ns));
	}
	family(p, "pathscope_bpf_runs_total", "counter",
	       "Runs of each pathscope BPF program (pin name), from bpf_stats.");
	for (i = 0; i < x->nprogs; i++) {
		lbl_reset(&l);
		lbl_add(&l, "iface", x->progs[i].ifname);
		lbl_add(&l, "program", x->progs[i].program);
		sample_u(p, &l, x->progs[i].run_cnt);
	}
}

void ps_render_prom(FILE *out, const struct ps_snapshot *snaps, int n,
		    const struct ps_prom_extra *extra)
{
	struct prom p = { .out = out };
	struct lbl l;
	char abi[16];

	family(&p, "pathscope_build_info", "gauge", "pathscope's version and map ABI; always 1.");
	lbl_reset(&l);
	lbl_add(&l, "version", extra && extra->version ? extra->version : "unknown");
	snprintf(abi, sizeof(abi), "%u", extra ? extra->abi : (unsigned int)PS_ABI_VERSION);
	lbl_add(&l, "abi", abi);
	sample_u(&p, &l, 1);
	iface_families(&p, snaps, n, extra);
	hook_families(&p, snaps, n);
	echo_families(&p, snaps, n);
	d2s_families(&p, snaps, n);
	txlat_families(&p, snaps, n);
	kernel_families(&p, snaps, n);
	bpf_families(&p, extra);
	fflush(out);
}
