// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A heatmap's data from a recording of JSON reports, or from snapshots
 * (heatmap.h). */
#include "stats/analysis/heatmap.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/queues.h"
#include "pathscope/hist.h"
#include "stats/read/snapshot.h"

bool ps_heat_queue_hist(const struct ps_stage *st, json_object *queue, __u64 *out)
{
	json_object *o, *hist, *b, *v;
	bool found = false;
	size_t p, k, i, n;
	uint64_t low, count;

	memset(out, 0, PS_LAT_BUCKETS * sizeof(*out));
	for (p = 0; p < 2 && st->json[p][0]; p++) {
		o = queue;
		for (k = 0; k < 3 && st->json[p][k] && o; k++)
			if (!json_object_object_get_ex(o, st->json[p][k], &o))
				o = NULL;
		if (!o || !json_object_object_get_ex(o, "hist", &hist) ||
		    !json_object_is_type(hist, json_type_array))
			continue;
		found = true;
		n = json_object_array_length(hist);
		for (i = 0; i < n; i++) {
			b = json_object_array_get_idx(hist, i);
			if (!json_object_object_get_ex(b, "low", &v))
				continue;
			low = (uint64_t)json_object_get_int64(v);
			if (!json_object_object_get_ex(b, "count", &v))
				continue;
			count = (uint64_t)json_object_get_int64(v);
			out[ps_hist_bucket(low, PS_LAT_BUCKETS)] += count;
		}
	}
	return found;
}

/* Room for one more panel in every per-panel array; false without memory. */
static bool grow_panels(struct ps_heat *h)
{
	unsigned int cap = h->cap_panels ? 2 * h->cap_panels : 16;
	void *panel, *prev, *cur;

	if (h->npanels < h->cap_panels)
		return true;
	panel = realloc(h->panel, cap * sizeof(*h->panel));
	if (panel)
		h->panel = panel;
	prev = realloc(h->prev, cap * sizeof(*h->prev));
	if (prev)
		h->prev = prev;
	cur = realloc(h->cur, cap * sizeof(*h->cur));
	if (cur)
		h->cur = cur;
	if (!panel || !prev || !cur)
		return false;
	h->cap_panels = cap;
	return true;
}

/* The panel of queue label, added if new; -1 if there are too many (or no
 * memory). */
static int panel_of(struct ps_heat *h, const char *label)
{
	unsigned int i;

	for (i = 0; i < h->npanels; i++)
		if (!strcmp(h->panel[i], label))
			return (int)i;
	if (h->npanels == PS_HEAT_MAX_PANELS || !grow_panels(h))
		return -1;
	snprintf(h->panel[h->npanels], sizeof(h->panel[0]), "%s", label);
	/* A panel first seen now was empty in every earlier report. */
	memset(h->prev[h->npanels], 0, sizeof(h->prev[0]));
	memset(h->cur[h->npanels], 0, sizeof(h->cur[0]));
	return (int)h->npanels++;
}

/* The string (or number, as text) under key, or NULL: absent, null, an
 * object or an array. */
static const char *text_of(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v ||
	    json_object_is_type(v, json_type_object) || json_object_is_type(v, json_type_array))
		return NULL;
	return json_object_get_string(v);
}

/* The interface object of the report, or NULL (with err if it is an error). */
static json_object *find_iface(struct ps_heat *h, json_object *report, char *err, size_t errlen)
{
	json_object *ifaces, *o;
	const char *name;
	size_t i, n;

	if (!json_object_object_get_ex(report, "interfaces", &ifaces) ||
	    !json_object_is_type(ifaces, json_type_array))
		return snprintf(err, errlen, "not a pathscope JSON report (no \"interfaces\")"),
		       NULL;
	n = json_object_array_length(ifaces);
	if (!h->ifname[0]) {
		if (n > 1)
			return snprintf(err, errlen, "the recording has %zu interfaces: name one",
					n),
			       NULL;
		name = n == 1 ? text_of(json_object_array_get_idx(ifaces, 0), "ifname") : NULL;
		if (name)
			snprintf(h->ifname, sizeof(h->ifname), "%s", name);
	}
	for (i = 0; i < n; i++) {
		o = json_object_array_get_idx(ifaces, i);
		name = text_of(o, "ifname");
		if (name && !strcmp(name, h->ifname))
			return o;
	}
	return NULL;
}

static double get_double(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_double(v) : 0;
}

/* This report's cumulative histogram of each panel into cur (all zero for a
 * panel it lacks). -1 with err on a malformed report or too many panels. */
static int read_panels(struct ps_heat *h, json_object *iface, char *err, size_t errlen)
{
	json_object *queues = NULL, *q;
	unsigned int i, nq = 1;
	const char *name;
	char label[16];
	int p;

	if (h->npanels)
		memset(h->cur, 0, h->npanels * sizeof(*h->cur));
	if (!h->whole) {
		if (!json_object_object_get_ex(iface, "queues", &queues) ||
		    !json_object_is_type(queues, json_type_array))
			return snprintf(err, errlen, "a report without \"queues\""), -1;
		nq = (unsigned int)json_object_array_length(queues);
	}
	for (i = 0; i < nq; i++) {
		if (h->whole) {
			if (!json_object_object_get_ex(iface, "totals", &q))
				return snprintf(err, errlen, "a report without \"totals\""), -1;
			snprintf(label, sizeof(label), "all");
		} else {
			q = json_object_array_get_idx(queues, i);
			name = text_of(q, "queue");
			if (!name)
				return snprintf(err, errlen, "a queue without \"queue\""), -1;
			snprintf(label, sizeof(label), "%s", name);
		}
		p = panel_of(h, label);
		if (p < 0)
			return snprintf(err, errlen, "more than %d queues", PS_HEAT_MAX_PANELS), -1;
		ps_heat_queue_hist(h->stage, q, h->cur[p]);
	}
	return 0;
}

/* Room for one more interval; false without memory. */
static bool grow_intervals(struct ps_heat *h)
{
	unsigned int cap = h->cap_t ? 2 * h->cap_t : 64;
	void *iv;

	if (h->nt < h->cap_t)
		return true;
	iv = realloc(h->iv, cap * sizeof(*h->iv));
	if (!iv)
		return false;
	h->iv = iv;
	h->cap_t = cap;
	return true;
}

/* One report, its panels' cumulative histograms in cur: the interval it
 * closes (none for the baseline). attached: its seconds since attach;
 * time NULL, nqueues NULL: not in the report. */
static int take(struct ps_heat *h, double attached, const uint64_t *nqueues, const char *time,
		char *err, size_t errlen)
{
	struct ps_heat_interval *iv;
	unsigned int p, b;
	bool reset;
	double len;
	__u64 d;

	if (nqueues)
		h->nqueues = *nqueues;
	if (time)
		snprintf(h->last_time, sizeof(h->last_time), "%s", time);
	if (!h->have_prev)
		snprintf(h->first_time, sizeof(h->first_time), "%s", h->last_time);

	/* A count that went down, or a shorter time since attach: attached anew. */
	reset = h->have_prev && attached < h->prev_attached_s;
	for (p = 0; p < h->npanels && !reset; p++)
		for (b = 0; b < PS_LAT_BUCKETS; b++)
			if (h->cur[p][b] < h->prev[p][b])
				reset = true;
	if (h->have_prev) {
		if (!grow_intervals(h))
			return snprintf(err, errlen, "out of memory"), -1;
		iv = &h->iv[h->nt];
		iv->n = h->npanels;
		iv->cell = calloc(h->npanels ? h->npanels : 1, sizeof(*iv->cell));
		if (!iv->cell)
			return snprintf(err, errlen, "out of memory"), -1;
		h->nt++; /* from here on ps_heat_free frees it */
		for (p = 0; p < h->npanels; p++)
			for (b = 0; b < PS_LAT_BUCKETS; b++) {
				d = reset ? h->cur[p][b] : h->cur[p][b] - h->prev[p][b];
				if (!d)
					continue;
				if (!iv->cell[p] &&
				    !(iv->cell[p] = calloc(PS_LAT_BUCKETS, sizeof(__u64))))
					return snprintf(err, errlen, "out of memory"), -1;
				iv->cell[p][b] = d;
				h->samples += d;
			}
		/* After a new attach the interval is its time since attach. */
		len = reset ? attached : attached - h->prev_attached_s;
		iv->t0 = h->elapsed_s;
		h->elapsed_s += len > 0 ? len : 0;
		iv->t1 = h->elapsed_s;
		h->reattached += reset;
	}
	if (h->npanels)
		memcpy(h->prev, h->cur, h->npanels * sizeof(*h->cur));
	h->prev_attached_s = attached;
	h->have_prev = true;
	return 0;
}

int ps_heat_add(struct ps_heat *h, json_object *report, char *err, size_t errlen)
{
	json_object *iface, *v;
	uint64_t nqueues;
	bool have_nqueues;
	int schema;

	err[0] = '\0';
	schema = json_object_object_get_ex(report, "schema", &v) ? json_object_get_int(v) : 0;
	if (schema < PS_HEAT_SCHEMA_MIN || schema > PS_HEAT_SCHEMA_MAX)
		return snprintf(err, errlen, "not a pathscope JSON report of schema %d to %d",
				PS_HEAT_SCHEMA_MIN, PS_HEAT_SCHEMA_MAX),
		       -1;
	iface = find_iface(h, report, err, errlen);
	if (!iface)
		return err[0] ? -1 : 0;
	if (h->have_prev && h->nt == PS_HEAT_MAX_INTERVALS)
		return snprintf(err, errlen, "more than %d intervals", PS_HEAT_MAX_INTERVALS), -1;
	if (read_panels(h, iface, err, errlen))
		return -1;
	have_nqueues = json_object_object_get_ex(iface, "nqueues", &v);
	nqueues = have_nqueues ? (uint64_t)json_object_get_int64(v) : 0;
	return take(h, get_double(iface, "attached_for_s"), have_nqueues ? &nqueues : NULL,
		    text_of(report, "time"), err, errlen);
}

/* Queue slot q of the snapshot as panel label: the stage's histogram,
 * zero where the stage has no data (as a report without it). */
static int snapshot_panel(struct ps_heat *h, const struct ps_snapshot *s, unsigned int q,
			  const char *label, char *err, size_t errlen)
{
	int p = panel_of(h, label);

	if (p < 0)
		return snprintf(err, errlen, "more than %d queues", PS_HEAT_MAX_PANELS), -1;
	if (ps_stage_on(h->stage, s))
		h->stage->hist(s, q, h->cur[p]);
	return 0;
}

/* The panels of a snapshot in the JSON report's order: the selected
 * queues, then "other" (when the report lists it); or "all". */
static int snapshot_panels(struct ps_heat *h, const struct ps_snapshot *s, bool other, char *err,
			   size_t errlen)
{
	const struct ps_meta *m = &s->meta;
	char label[16];
	unsigned int q;

	if (h->npanels)
		memset(h->cur, 0, h->npanels * sizeof(*h->cur));
	if (h->whole)
		return snapshot_panel(h, s, s->nslots, "all", err, errlen);
	for (q = 0; q < m->nqueues; q++) {
		if (!m->all_queues && !ps_queue_selected(m->queue_mask, q))
			continue;
		snprintf(label, sizeof(label), "%u", q);
		if (snapshot_panel(h, s, q, label, err, errlen))
			return -1;
	}
	return other ? snapshot_panel(h, s, s->nslots - 1, "other", err, errlen) : 0;
}

int ps_heat_add_snapshot(struct ps_heat *heats, size_t n, const struct ps_snapshot *s, bool other,
			 char *err, size_t errlen)
{
	const struct ps_meta *m = &s->meta;
	uint64_t nqueues = m->nqueues;
	char when[40], ms[32];
	double attached;
	struct tm tm;
	time_t secs;
	size_t k;

	/* The report's figures as its JSON carries them: the time to the
	 * second, the time since attach to the millisecond. */
	secs = (time_t)(s->real_ns / 1000000000ULL);
	gmtime_r(&secs, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(ms, sizeof(ms), "%.3f", (double)(s->mono_ns - m->attach_monotonic_ns) / 1e9);
	attached = strtod(ms, NULL);
	err[0] = '\0';
	for (k = 0; k < n; k++) {
		struct ps_heat *h = &heats[k];

		if (!h->ifname[0])
			snprintf(h->ifname, sizeof(h->ifname), "%s", m->ifname);
		if (h->have_prev && h->nt == PS_HEAT_MAX_INTERVALS)
			return snprintf(err, errlen, "more than %d intervals",
					PS_HEAT_MAX_INTERVALS),
			       -1;
		if (snapshot_panels(h, s, other, err, errlen) ||
		    take(h, attached, &nqueues, when, err, errlen))
			return -1;
	}
	return 0;
}

int ps_heat_add_all(struct ps_heat *heats, size_t n, json_object *report, char *err, size_t errlen)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (ps_heat_add(&heats[k], report, err, errlen))
			return -1;
	return 0;
}

int ps_heat_read(struct ps_heat *heats, size_t n, FILE *in, const char *name, char *err,
		 size_t errlen)
{
	char *line = NULL, why[200];
	size_t cap = 0, lineno = 0;
	json_object *doc;
	ssize_t len;
	int rc = 0;

	while (!rc && (len = getline(&line, &cap, in)) >= 0) {
		lineno++;
		if (len <= 1)
			continue;
		doc = json_tokener_parse(line);
		if (!doc) {
			snprintf(err, errlen,
				 "%s:%zu: not a JSON report (one per line, as 'stats --json "
				 "--interval' writes)",
				 name, lineno);
			rc = -1;
		} else if (ps_heat_add_all(heats, n, doc, why, sizeof(why))) {
			snprintf(err, errlen, "%s:%zu: %s", name, lineno, why);
			rc = -1;
		}
		json_object_put(doc);
	}
	free(line);
	if (!rc && ferror(in))
		snprintf(err, errlen, "%s: read error", name), rc = -1;
	if (!rc && !heats[0].have_prev)
		snprintf(err, errlen, "%s: no report of %s", name,
			 heats[0].ifname[0] ? heats[0].ifname : "any interface"),
		    rc = -1;
	return rc;
}

void ps_heat_free(struct ps_heat *h)
{
	unsigned int t, p;

	for (t = 0; t < h->nt; t++) {
		for (p = 0; p < h->iv[t].n; p++)
			free(h->iv[t].cell[p]);
		free(h->iv[t].cell);
	}
	free(h->iv);
	free(h->panel);
	free(h->prev);
	free(h->cur);
	h->iv = NULL;
	h->panel = NULL;
	h->prev = h->cur = NULL;
	h->nt = h->npanels = h->cap_t = h->cap_panels = 0;
}

bool ps_heat_rows(const struct ps_heat *h, unsigned int *lo, unsigned int *hi)
{
	unsigned int t, p, b;
	bool any = false;

	for (t = 0; t < h->nt; t++)
		for (p = 0; p < h->iv[t].n; p++)
			for (b = 0; h->iv[t].cell[p] && b < PS_LAT_BUCKETS; b++) {
				if (!h->iv[t].cell[p][b])
					continue;
				if (!any || b < *lo)
					*lo = b;
				if (!any || b > *hi)
					*hi = b;
				any = true;
			}
	return any;
}

uint64_t ps_heat_max(const struct ps_heat *h)
{
	unsigned int t, p, b;
	uint64_t m = 0;

	for (t = 0; t < h->nt; t++)
		for (p = 0; p < h->iv[t].n; p++)
			for (b = 0; h->iv[t].cell[p] && b < PS_LAT_BUCKETS; b++)
				if (h->iv[t].cell[p][b] > m)
					m = h->iv[t].cell[p][b];
	return m;
}
