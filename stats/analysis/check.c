// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* pathscope check: over one interval, put side by side the counts of the layers that
 * see the same packets and say for each pair whether they agree or by how much
 * they differ: a layer that misses a fast or slow path shows up as a difference. */
#include "stats/analysis/check.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/util.h"
#include "stats/families/families.h"
#include "stats/format/hist.h"
#include "stats/format/json.h"
#include "stats/format/table.h"
#include "stats/read/report.h"

int ps_check_read(const char *dir, const struct ps_kern_fds *fds, struct ps_check_layers *l)
{
	int err;

	memset(l, 0, sizeof(*l));
	err = ps_snapshot_read(dir, &l->snap);
	if (err)
		return ps_error("cannot read %s: %s", dir, strerror(-err));
	err = ps_kern_read(fds, l->snap.nslots, &l->kern);
	if (err) {
		ps_snapshot_free(&l->snap);
		return ps_error("cannot read the kernel probes: %s", strerror(-err));
	}
	l->nic_ok = ps_nic_read((int)l->snap.meta.ifindex, &l->nic) == 0;
	return 0;
}

void ps_check_free(struct ps_check_layers *l)
{
	ps_snapshot_free(&l->snap);
	ps_kern_free(&l->kern);
	if (l->nic_ok)
		ps_nic_free(&l->nic);
}

/* A value of one layer over the interval, or why there is none. */
struct value {
	__u64 v;
	const char *na; /* NULL: v is valid */
};

struct pair {
	const char *dir;
	const char *name; /* what is compared */
	const char *a_name, *b_name;
	struct value a, b;
};

static struct value val(__u64 v)
{
	return (struct value){ .v = v };
}

static struct value na(const char *why)
{
	return (struct value){ .na = why };
}

static __u64 delta(__u64 b, __u64 a)
{
	return a >= b ? a - b : 0;
}

/* A hook's window over all queues, or n/a when it is not attached. */
static struct value hook_value(const struct ps_check_layers *b, const struct ps_check_layers *a,
			       int hook, bool segments)
{
	struct ps_qstats t0, t1;

	if (!a->snap.hook[hook])
		return na(hook == PS_HOOK_XDP ? "no XDP program" : "no tc program");
	ps_snapshot_total(&b->snap, hook, &t0);
	ps_snapshot_total(&a->snap, hook, &t1);
	return val(segments ? delta(ps_segments(&t0), ps_segments(&t1))
			    : delta(t0.packets, t1.packets));
}

static struct value link_value(const struct ps_check_layers *b, const struct ps_check_layers *a,
			       int field)
{
	if (!b->nic_ok || !a->nic_ok || !a->nic.link.valid)
		return na("no link stats");
	if (a->nic.link.v[field] == PS_NA)
		return na("not reported");
	return val(delta(b->nic.link.v[field], a->nic.link.v[field]));
}

/* The sum over the driver's queues of one qstats counter. */
static struct value qstats_value(const struct ps_check_layers *b, const struct ps_check_layers *a,
				 int field)
{
	__u64 s0 = 0, s1 = 0;
	unsigned int i;
	bool any = false;

	if (!a->nic_ok || !a->nic.queues.qstats_valid)
		return na("the driver has no per-queue stats");
	for (i = 0; i < a->nic.queues.n; i++)
		if (a->nic.queues.q[i].has_qstats && a->nic.queues.q[i].qstats[field] != PS_NA) {
			s1 += a->nic.queues.q[i].qstats[field];
			any = true;
		}
	for (i = 0; b->nic_ok && i < b->nic.queues.n; i++)
		if (b->nic.queues.q[i].has_qstats && b->nic.queues.q[i].qstats[field] != PS_NA)
			s0 += b->nic.queues.q[i].qstats[field];
	return any ? val(delta(s0, s1)) : na("not reported");
}

static __u64 kern_sum(const struct ps_kern_snapshot *k, size_t off)
{
	__u64 s = 0;
	unsigned int q;

	for (q = 0; q < k->nslots; q++)
		s += *(const __u64 *)((const char *)&k->q[q] + off);
	return s;
}

#define KERN_DELTA(b, a, field)                                                 \
	val(delta(kern_sum(&(b)->kern, offsetof(struct ps_kern_qstats, field)), \
		  kern_sum(&(a)->kern, offsetof(struct ps_kern_qstats, field))))

static int build_pairs(const struct ps_check_layers *b, const struct ps_check_layers *a,
		       struct pair *p)
{
	struct value xdp = hook_value(b, a, PS_HOOK_XDP, false);
	struct value tci = hook_value(b, a, PS_HOOK_TC_INGRESS, true);
	struct value tce_skbs = hook_value(b, a, PS_HOOK_TC_EGRESS, false);
	struct value tce_pkts = hook_value(b, a, PS_HOOK_TC_EGRESS, true);
	struct value xmit = val(KERN_DELTA(b, a, xmit_ok).v + KERN_DELTA(b, a, xmit_dropped).v);
	int n = 0;

	/* The first layer of a direction is the reference of its pairs. */
	if (xdp.na) {
		xdp = tci;
		p[n++] = (struct pair){ "rx",	      "packets",
					"tc ingress", "netif_receive_skb",
					tci,	      KERN_DELTA(b, a, stack_segs) };
	} else {
		p[n++] = (struct pair){ "rx",  "frames",
					"xdp", "napi_gro_receive_entry",
					xdp,   KERN_DELTA(b, a, gro_frames) };
		p[n++] = (struct pair){ "rx",  "packets",
					"xdp", "netif_receive_skb",
					xdp,   KERN_DELTA(b, a, stack_segs) };
		p[n++] = (struct pair){ "rx", "packets", "xdp", "tc ingress", xdp, tci };
	}
	p[n++] = (struct pair){ "rx",
				"packets",
				xdp.na ? "tc ingress" : "xdp",
				"link rx_packets",
				xdp,
				link_value(b, a, PS_LINK_RX_PACKETS) };
	p[n++] = (struct pair){ "rx",
				"packets",
				xdp.na ? "tc ingress" : "xdp",
				"queue rx-packets",
				xdp,
				qstats_value(b, a, PS_NIC_QS_RX_PACKETS) };
	p[n++] = (struct pair){ "tx", "skbs", "tc egress", "net_dev_xmit", tce_skbs, xmit };
	p[n++] = (struct pair){ "tx",	     "packets",
				"tc egress", "link tx_packets",
				tce_pkts,    link_value(b, a, PS_LINK_TX_PACKETS) };
	p[n++] = (struct pair){ "tx",	     "packets",
				"tc egress", "queue tx-packets",
				tce_pkts,    qstats_value(b, a, PS_NIC_QS_TX_PACKETS) };
	return n;
}

/* Nothing counted by either side of a pair between two reads. */
static bool still(const struct pair *p)
{
	return (p->a.na || !p->a.v) && (p->b.na || !p->b.v);
}

int ps_check_read_settled(const char *dir, const struct ps_kern_fds *fds, struct ps_check_layers *l)
{
	struct ps_check_layers next;
	struct pair p[16];
	int tries, n, i;

	if (ps_check_read(dir, fds, l))
		return -1;
	for (tries = 1; tries < PS_CHECK_READS; tries++) {
		if (ps_check_read(dir, fds, &next)) {
			ps_check_free(l);
			return -1;
		}
		n = build_pairs(l, &next, p);
		for (i = 0; i < n && still(&p[i]); i++)
			;
		ps_check_free(l);
		*l = next;
		if (i == n)
			break;
	}
	return 0;
}

/* Agree: equal within 0.1% of the larger (exactly below 1000). */
static bool agrees(__u64 a, __u64 b)
{
	__u64 d = a > b ? a - b : b - a, m = a > b ? a : b;

	return d <= m / 1000;
}

static bool comparable(const struct pair *p)
{
	return !p->a.na && !p->b.na;
}

static void print_table(const struct pair *p, int n, const struct ps_check_layers *a, double secs)
{
	char av[24], bv[24], verdict[64];
	int i;

	printf("%s (ifindex %u): %d layer pairs over %.1f s\n", a->snap.meta.ifname,
	       a->snap.meta.ifindex, n, secs);
	printf("%-3s %-8s %-11s %12s  %-23s %12s  %s\n", "DIR", "UNIT", "LAYER", "COUNT", "VS",
	       "COUNT", "VERDICT");
	for (i = 0; i < n; i++) {
		snprintf(av, sizeof(av), "%s", p[i].a.na ? "n/a" : "");
		if (!p[i].a.na)
			snprintf(av, sizeof(av), "%llu", (unsigned long long)p[i].a.v);
		snprintf(bv, sizeof(bv), "%s", p[i].b.na ? "n/a" : "");
		if (!p[i].b.na)
			snprintf(bv, sizeof(bv), "%llu", (unsigned long long)p[i].b.v);
		if (!comparable(&p[i]))
			snprintf(verdict, sizeof(verdict), "n/a (%s)",
				 p[i].a.na ? p[i].a.na : p[i].b.na);
		else if (agrees(p[i].a.v, p[i].b.v))
			snprintf(verdict, sizeof(verdict), "agree");
		else
			snprintf(verdict, sizeof(verdict), "DIFFER by %lld",
				 (long long)p[i].b.v - (long long)p[i].a.v);
		printf("%-3s %-8s %-11s %12s  %-23s %12s  %s\n", p[i].dir, p[i].name, p[i].a_name,
		       av, p[i].b_name, bv, verdict);
	}
}

static json_object *value_json(struct value v)
{
	return v.na ? NULL : json_object_new_uint64(v.v);
}

static void print_json(const struct pair *p, int n, const struct ps_check_layers *a, double secs,
		       json_object *latency)
{
	json_object *root = json_object_new_object(), *arr = json_object_new_array(), *o;
	int i;

	json_object_object_add(root, "ifname", json_object_new_string(a->snap.meta.ifname));
	json_object_object_add(root, "ifindex", json_object_new_uint64(a->snap.meta.ifindex));
	json_object_object_add(root, "duration_s", json_object_new_double(secs));
	for (i = 0; i < n; i++) {
		o = json_object_new_object();
		json_object_object_add(o, "direction", json_object_new_string(p[i].dir));
		json_object_object_add(o, "unit", json_object_new_string(p[i].name));
		json_object_object_add(o, "layer", json_object_new_string(p[i].a_name));
		json_object_object_add(o, "count", value_json(p[i].a));
		json_object_object_add(o, "vs_layer", json_object_new_string(p[i].b_name));
		json_object_object_add(o, "vs_count", value_json(p[i].b));
		if (comparable(&p[i])) {
			json_object_object_add(o, "agree",
					       json_object_new_boolean(agrees(p[i].a.v, p[i].b.v)));
			json_object_object_add(
			    o, "difference",
			    json_object_new_int64((long long)p[i].b.v - (long long)p[i].a.v));
			json_object_object_add(o, "na", NULL);
		} else {
			json_object_object_add(o, "agree", NULL);
			json_object_object_add(o, "difference", NULL);
			json_object_object_add(
			    o, "na", json_object_new_string(p[i].a.na ? p[i].a.na : p[i].b.na));
		}
		json_object_array_add(arr, o);
	}
	json_object_object_add(root, "pairs", arr);
	json_object_object_add(root, "latency", latency);
	ps_json_print(stdout, root);
	json_object_put(root);
}

/* ---- latency sanity ------------------------------------------------------- */

/* Where both were sampled during the interval: each queue's median stack to
 * socket latency (sock) and driver to stack latency (d2s). A sock median
 * below the d2s median of its queue is flagged: the stack and the wakeup of
 * a reader take longer than GRO holds a packet, unless gro_flush_timeout
 * holds packets longer than the application takes to read them. */
struct latency_check {
	unsigned int queue;
	__u64 d2s_p50, sock_p50;
	bool ok;
};

static void window_hist(const struct ps_snapshot *b, const struct ps_snapshot *a, unsigned int q,
			ps_latency_fn fn, __u64 *out)
{
	static __u64 h0[PS_LAT_BUCKETS];

	fn(a, q, out);
	fn(b, q, h0);
	ps_u64s_sub(out, out, h0, sizeof(h0));
}

static int latency_checks(const struct ps_check_layers *b, const struct ps_check_layers *a,
			  struct latency_check *out, int max)
{
	static __u64 d2s[PS_LAT_BUCKETS], sock[PS_LAT_BUCKETS];
	unsigned int q;
	int n = 0;

	if (!ps_d2s_on(&a->snap) || !ps_sock_on(&a->snap) || !ps_d2s_on(&b->snap) ||
	    !ps_sock_on(&b->snap))
		return 0;
	for (q = 0; q < a->snap.nslots && n < max; q++) {
		window_hist(&b->snap, &a->snap, q, ps_d2s_latency, d2s);
		window_hist(&b->snap, &a->snap, q, ps_sock_latency, sock);
		if (!ps_hist_count(d2s, PS_LAT_BUCKETS) || !ps_hist_count(sock, PS_LAT_BUCKETS))
			continue;
		out[n].queue = q;
		out[n].d2s_p50 = ps_hist_percentile(d2s, PS_LAT_BUCKETS, 50);
		out[n].sock_p50 = ps_hist_percentile(sock, PS_LAT_BUCKETS, 50);
		out[n].ok = out[n].sock_p50 >= out[n].d2s_p50;
		n++;
	}
	return n;
}

static void print_latency_table(const struct latency_check *l, int n, const struct ps_snapshot *s)
{
	char q[16], d[16], k[16];
	int i;

	for (i = 0; i < n; i++) {
		ps_queue_label(s, l[i].queue, q, sizeof(q));
		ps_fmt_ns(d, sizeof(d), l[i].d2s_p50, 1);
		ps_fmt_ns(k, sizeof(k), l[i].sock_p50, 1);
		printf(
		    "latency RX queue %s: stack to socket p50 %s %s driver to stack p50 %s: %s\n",
		    q, k, l[i].ok ? ">=" : "<", d,
		    l[i].ok ? "ok"
			    : "SUSPECT (a measurement error, or gro_flush_timeout above "
			      "the read time)");
	}
}

static json_object *latency_json(const struct latency_check *l, int n)
{
	json_object *a = json_object_new_array(), *o;
	int i;

	for (i = 0; i < n; i++) {
		o = json_object_new_object();
		json_object_object_add(o, "queue", json_object_new_uint64(l[i].queue));
		json_object_object_add(o, "d2s_p50_ns", json_object_new_uint64(l[i].d2s_p50));
		json_object_object_add(o, "sock_p50_ns", json_object_new_uint64(l[i].sock_p50));
		json_object_object_add(o, "ok", json_object_new_boolean(l[i].ok));
		json_object_array_add(a, o);
	}
	return a;
}

bool ps_check_report(const struct ps_check_layers *before, const struct ps_check_layers *after,
		     double secs, bool json)
{
	struct latency_check lat[PS_MAX_QUEUES + 1];
	struct pair pairs[16];
	bool differ = false;
	int n, nl, i;

	n = build_pairs(before, after, pairs);
	nl = latency_checks(before, after, lat, PS_MAX_QUEUES + 1);
	if (json) {
		print_json(pairs, n, after, secs, latency_json(lat, nl));
	} else {
		print_table(pairs, n, after, secs);
		print_latency_table(lat, nl, &after->snap);
	}
	for (i = 0; i < n; i++)
		differ |= comparable(&pairs[i]) && !agrees(pairs[i].a.v, pairs[i].b.v);
	for (i = 0; i < nl; i++)
		differ |= !lat[i].ok;
	return differ;
}
