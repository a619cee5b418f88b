// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Prometheus text format pieces (see prom.h). */
#include "stats/format/prom.h"

#include <string.h>

#include "lib/names.h"
#include "lib/queues.h"
#include "pathscope/hist.h"
#include "stats/format/prom_common.h"
#include "stats/format/prom_pb.h"

const struct ps_prom_edges ps_prom_lat_edges = { 10, PS_LAT_BITS - 1, true }; /* ~1 us .. ~34 s */

const char *ps_prom_fmt_u128(char *buf, size_t len, ps_u128 v)
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

const char *ps_prom_fmt_seconds(char *buf, size_t len, ps_u128 ns)
{
	char ip[48];
	unsigned long long frac = (unsigned long long)(ns % 1000000000U);
	size_t n;

	ps_prom_fmt_u128(ip, sizeof(ip), ns / 1000000000U);
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

void ps_lbl_iface(struct ps_lbl *l, const struct ps_snapshot *s)
{
	char name[sizeof(s->meta.ifname) + 1];

	snprintf(name, sizeof(name), "%.*s", (int)sizeof(s->meta.ifname), s->meta.ifname);
	ps_lbl_reset(l);
	ps_lbl_add(l, "iface", name);
}

void ps_lbl_queue(struct ps_lbl *l, const struct ps_snapshot *s, unsigned int q)
{
	ps_lbl_iface(l, s);
	if (q == s->nslots - 1)
		ps_lbl_add(l, "queue", "other");
	else
		ps_lbl_addu(l, "queue", q);
}

void ps_prom_family(struct ps_prom *p, const char *name, const char *type, const char *help)
{
	p->name = name;
	p->type = type;
	p->help = help;
	p->header_done = false;
	if (p->pb)
		ps_prom_pb_family(p->pb, name, type, help);
}

static void header(struct ps_prom *p)
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

void ps_prom_sample(struct ps_prom *p, const char *suffix, const struct ps_lbl *l,
		    const char *value)
{
	if (p->pb) {
		ps_prom_pb_sample(p->pb, suffix, l, value);
		return;
	}
	header(p);
	fprintf(p->out, "%s%s", p->name, suffix);
	if (l && l->n)
		fprintf(p->out, "{%s}", l->s);
	fprintf(p->out, " %s\n", value);
}

void ps_prom_sample_u(struct ps_prom *p, const struct ps_lbl *l, ps_u128 v)
{
	char buf[48];

	ps_prom_sample(p, "", l, ps_prom_fmt_u128(buf, sizeof(buf), v));
}

void ps_prom_sample_seconds(struct ps_prom *p, const struct ps_lbl *l, ps_u128 ns)
{
	char buf[64];

	ps_prom_sample(p, "", l, ps_prom_fmt_seconds(buf, sizeof(buf), ns));
}

void ps_prom_sample_u1(struct ps_prom *p, const struct ps_lbl *base, const char *key,
		       const char *val, ps_u128 v)
{
	struct ps_lbl l = *base;

	ps_lbl_add(&l, key, val);
	ps_prom_sample_u(p, &l, v);
}

/* The midpoint of bucket b, as the percentiles use it (exact below 16). */
static ps_u128 bucket_mid(unsigned int b)
{
	unsigned long long lo = ps_hist_bucket_low(b), hi = ps_hist_bucket_high(b);

	return lo + (hi - lo - 1) / 2;
}

ps_u128 ps_prom_est_sum(const __u64 *b, unsigned int n)
{
	ps_u128 sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		sum += (ps_u128)b[i] * bucket_mid(i);
	return sum;
}

void ps_prom_hist(struct ps_prom *p, const struct ps_lbl *base, const __u64 *b, unsigned int n,
		  const struct ps_prom_edges *e, ps_u128 sum)
{
	ps_u128 cum[PS_PROM_MAX_BUCKETS];
	char le[48], v[48];
	struct ps_lbl l;
	unsigned int j, nb;

	if (p->pb) {
		ps_prom_pb_hist(p->pb, base, b, n, e, sum);
		return;
	}
	nb = ps_prom_cumulative(b, n, e, cum);
	for (j = 0; j < nb; j++) {
		ps_u128 edge = ((ps_u128)1 << (e->k0 + j)) - 1;

		if (j == nb - 1)
			snprintf(le, sizeof(le), "+Inf");
		else if (e->ns)
			ps_prom_fmt_seconds(le, sizeof(le), edge);
		else
			ps_prom_fmt_u128(le, sizeof(le), edge);
		l = *base;
		ps_lbl_add(&l, "le", le);
		ps_prom_sample(p, "_bucket", &l, ps_prom_fmt_u128(v, sizeof(v), cum[j]));
	}
	if (e->ns)
		ps_prom_fmt_seconds(v, sizeof(v), sum);
	else
		ps_prom_fmt_u128(v, sizeof(v), sum);
	ps_prom_sample(p, "_sum", base, v);
	ps_prom_sample(p, "_count", base, ps_prom_fmt_u128(v, sizeof(v), cum[nb - 1]));
}

void ps_prom_lat_hist(struct ps_prom *p, const struct ps_lbl *base, const __u64 *b)
{
	ps_prom_hist(p, base, b, PS_LAT_BUCKETS, &ps_prom_lat_edges,
		     ps_prom_est_sum(b, PS_LAT_BUCKETS));
}

bool ps_prom_slot_measured(const struct ps_snapshot *s, unsigned int q)
{
	if (s->meta.all_queues)
		return true;
	return q < s->meta.nqueues && ps_queue_selected(s->meta.queue_mask, q);
}

bool ps_prom_per_queue(const struct ps_prom *p, __u32 feature)
{
	return feature && (p->queue_detail & feature) == feature;
}

static bool split(const struct ps_prom *p, __u32 feature, unsigned int flags)
{
	return (flags & PS_PROM_PER_QUEUE) || ps_prom_per_queue(p, feature);
}

void ps_prom_each_slot(struct ps_prom *p, const struct ps_snapshot *snaps, int n,
		       const struct ps_prom_slots *k, unsigned int flags, ps_prom_slot_fn fn)
{
	bool per_queue = split(p, k->feature, flags);
	struct ps_lbl l;
	unsigned int q;
	int i;

	for (i = 0; i < n; i++) {
		if (!k->on(&snaps[i]))
			continue;
		if (!per_queue) {
			ps_lbl_iface(&l, &snaps[i]);
			fn(p, &l, &snaps[i], snaps[i].nslots);
			continue;
		}
		for (q = 0; q < snaps[i].nslots; q++) {
			if (k->selected_only && !ps_prom_slot_measured(&snaps[i], q))
				continue;
			ps_lbl_queue(&l, &snaps[i], q);
			fn(p, &l, &snaps[i], q);
		}
	}
}

void ps_prom_slot_counters(struct ps_prom *p, const struct ps_snapshot *snaps, int n,
			   const struct ps_prom_slots *k, const struct ps_prom_counter *c,
			   size_t nc)
{
	struct ps_lbl l;
	unsigned int q;
	ps_u128 sum;
	bool per_queue;
	size_t j;
	int i;

	for (j = 0; j < nc; j++) {
		per_queue = split(p, k->feature, c[j].per_queue ? PS_PROM_PER_QUEUE : 0);
		ps_prom_family(p, c[j].name, "counter", c[j].help);
		for (i = 0; i < n; i++) {
			const char *base;

			if (!k->on(&snaps[i]))
				continue;
			base = k->base(&snaps[i]);
			sum = 0;
			for (q = 0; q < snaps[i].nslots; q++) {
				__u64 v = *(const __u64 *)(base + q * k->size + c[j].off);

				if (!per_queue) {
					sum += v;
					continue;
				}
				if (k->selected_only && !ps_prom_slot_measured(&snaps[i], q))
					continue;
				ps_lbl_queue(&l, &snaps[i], q);
				ps_prom_sample_u(p, &l, v);
			}
			if (!per_queue) {
				ps_lbl_iface(&l, &snaps[i]);
				ps_prom_sample_u(p, &l, sum);
			}
		}
	}
}

static void hook_labels(struct ps_lbl *l, int h)
{
	ps_lbl_add(l, "hook", ps_hook_names[h]);
	ps_lbl_add(l, "direction", ps_hook_dirs[h]);
}

void ps_prom_each_hook(struct ps_prom *p, const struct ps_snapshot *snaps, int n, __u32 feature,
		       unsigned int flags, ps_prom_hook_fn fn)
{
	bool per_queue = split(p, feature, flags);
	struct ps_qstats all;
	struct ps_lbl l;
	unsigned int q;
	int i, h;

	for (i = 0; i < n; i++) {
		const struct ps_snapshot *s = &snaps[i];

		if (feature && !(s->meta.features & feature))
			continue;
		for (h = 0; h < PS_HOOK_COUNT; h++) {
			if (!s->hook[h] || ((flags & PS_PROM_TC_ONLY) && h == PS_HOOK_XDP))
				continue;
			if (!per_queue) {
				ps_snapshot_total(s, h, &all);
				ps_lbl_iface(&l, s);
				hook_labels(&l, h);
				fn(p, &l, &all);
				continue;
			}
			for (q = 0; q < s->nslots; q++) {
				if (!ps_prom_slot_measured(s, q))
					continue;
				ps_lbl_queue(&l, s, q);
				hook_labels(&l, h);
				fn(p, &l, &s->hook[h][q]);
			}
		}
	}
}

void ps_prom_each_iface(struct ps_prom *p, const struct ps_snapshot *snaps, int n,
			bool (*on)(const struct ps_snapshot *s),
			__u64 (*fn)(const struct ps_snapshot *s))
{
	struct ps_lbl l;
	int i;

	for (i = 0; i < n; i++) {
		if (!on(&snaps[i]))
			continue;
		ps_lbl_iface(&l, &snaps[i]);
		ps_prom_sample_u(p, &l, fn(&snaps[i]));
	}
}
