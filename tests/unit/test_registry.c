// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The family registry (stats/families/registry.c): every feature bit has a family,
 * names and JSON keys are unique, and each family's part is found in every rendering
 * that walks the registry. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/families/families.h"
#include "stats/families/stages.h"
#include "tests/lib/check.h"
#include "tests/unit/snapshot_fixture.h"

typedef void (*section_fn)(FILE *out, const struct ps_report *r);

/* What fn writes for report r, malloc'd ("" when nothing). */
static char *capture(section_fn fn, const struct ps_report *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	fn(f, r);
	fclose(f);
	return text;
}

static char *capture_render(void (*fn)(FILE *, const struct ps_report *, int),
			    const struct ps_report *r, int n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	fn(f, r, n);
	fclose(f);
	return text;
}

static char *capture_prom(const struct ps_family *fam, const struct ps_snapshot *s, int n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct ps_prom p = { .out = f };

	if (fam)
		fam->prom(&p, s, n);
	else
		ps_render_prom(f, s, n, NULL);
	fclose(f);
	return text;
}

/* ---- the descriptors ------------------------------------------------------ */

static void test_features(void)
{
	char what[96];
	__u32 all = 0, bit;
	size_t k;

	for (k = 0; k < ps_nfamilies; k++) {
		all |= ps_families[k]->features;
		snprintf(what, sizeof(what), "family %s: its features are PS_F_* bits",
			 ps_families[k]->name);
		check_report(!(ps_families[k]->features & ~(__u32)PS_F_ALL), what,
			     "features 0x%x outside PS_F_ALL 0x%x", ps_families[k]->features,
			     (unsigned int)PS_F_ALL);
	}
	for (bit = 1; bit && bit <= PS_F_ALL; bit <<= 1) {
		if (!(PS_F_ALL & bit))
			continue;
		snprintf(what, sizeof(what), "feature bit 0x%x has a family", bit);
		check_report((all & bit) != 0, what, "no family in ps_families[] has it");
	}
}

static void test_unique(void)
{
	const struct ps_family *a, *b;
	bool names = true, keys = true;
	size_t i, j;

	for (i = 0; i < ps_nfamilies; i++)
		for (j = i + 1; j < ps_nfamilies; j++) {
			a = ps_families[i];
			b = ps_families[j];
			if (!strcmp(a->name, b->name)) {
				names = false;
				printf("# two families named %s\n", a->name);
			}
			if (a->json_key && b->json_key && !strcmp(a->json_key, b->json_key)) {
				keys = false;
				printf("# families %s and %s share the JSON key %s\n", a->name,
				       b->name, a->json_key);
			}
		}
	CHECK_TRUE("registry: no two families share a name", names);
	CHECK_TRUE("registry: no two families share a JSON key", keys);
}

/* One rule of what a family must have, checked on every family. */
static void rule(const struct ps_family *f, bool ok, const char *rule)
{
	char what[160];

	snprintf(what, sizeof(what), "family %s: %s", f->name ? f->name : "(unnamed)", rule);
	check_report(ok, what, "its descriptor (ps_family_%s) breaks it", f->name);
}

static void test_outputs(void)
{
	const struct ps_family *f;
	bool texts, paths, tx;
	size_t k, s;

	CHECK_TRUE("registry: has families", ps_nfamilies > 0);
	for (k = 0; k < ps_nfamilies; k++) {
		f = ps_families[k];
		rule(f, f->name && *f->name, "has a name");
		rule(f, !f->json_key == !f->queue_json,
		     "a JSON key has its queue_json, and queue_json its key");
		rule(f, f->prom != NULL, "has Prometheus families");
		rule(f, !f->features || f->table || f->prom,
		     "a feature has a table section or Prometheus families");
		if (f->slot_active) {
			rule(f, f->table != NULL, "per-queue data: has a table section");
			rule(f, f->queue_json || f->queue_json_into,
			     "per-queue data: has its part of each queue's JSON");
		}
		rule(f, !f->nstages == !f->stages, "nstages counts its stages");
		if (!f->nstages)
			continue;
		rule(f, f->features && f->on, "latency stages: has a feature and on()");
		rule(f, f->hist != NULL, "latency stages: has --hist");
		rule(f, f->json_key != NULL, "latency stages: has a JSON key");
		if (!f->json_key)
			continue;
		texts = paths = tx = true;
		for (s = 0; s < f->nstages; s++) {
			const struct ps_stage *st = &f->stages[s];

			texts &= st->key && st->head && st->words && st->where && st->hist;
			paths &= st->json[0][0] && !strcmp(st->json[0][0], f->json_key);
			tx &= st->tx == (st->path == PS_PATH_TX);
		}
		rule(f, texts, "each stage has a key, texts and a histogram");
		rule(f, paths, "each stage's JSON path begins with the family's key");
		rule(f, tx, "its TX stages, and only they, are per TX queue");
	}
}

static void test_stages(void)
{
	size_t k, j, n = 0;
	bool order = true, found = true, filled = true, unique = true;

	for (k = 0; k < ps_nfamilies; k++)
		n += ps_families[k]->nstages;
	CHECK_EQ_U64("stages: ps_stages holds every family's stages", ps_nstages, n);
	for (k = 0; k < ps_nstages; k++) {
		const struct ps_stage *st = &ps_stages[k];

		if (k && st->path < ps_stages[k - 1].path)
			order = false;
		if (ps_stage_find(st->key) != st || (st->alias && ps_stage_find(st->alias) != st))
			found = false;
		if (!st->feature || !st->on)
			filled = false;
		for (j = k + 1; j < ps_nstages; j++)
			if (!strcmp(st->key, ps_stages[j].key) ||
			    (st->alias && ps_stages[j].alias &&
			     !strcmp(st->alias, ps_stages[j].alias)))
				unique = false;
	}
	CHECK_TRUE("stages: in path order (rx, tx, net, host)", order);
	CHECK_TRUE("stages: each found by its key and alias", found);
	CHECK_TRUE("stages: each has its family's feature and on()", filled);
	CHECK_TRUE("stages: no two share a key or alias", unique);
	/* The budget's rows in path order: the first hop first. */
	CHECK_STR("stages: the first is wire_to_xdp", ps_nstages ? ps_stages[0].key : "",
		  "wire_to_xdp");
	CHECK_STR("stages: the last is tcp_ack_delay",
		  ps_nstages ? ps_stages[ps_nstages - 1].key : "", "tcp_ack_delay");
}

/* ---- the renderings of the snapshot fixture ------------------------------- */

static bool has_key(json_object *o, const char *key)
{
	return o && json_object_object_get_ex(o, key, NULL);
}

/* Every key of part is in whole. */
static bool keys_in(json_object *part, json_object *whole, const char **missing)
{
	json_object_object_foreach(part, key, val)
	{
		(void)val;
		if (!has_key(whole, key)) {
			*missing = key;
			return false;
		}
	}
	return true;
}

static void test_json(const struct ps_report *r)
{
	char *text = capture_render(ps_render_json, r, 2), what[128];
	json_object *root = json_tokener_parse(text), *iface = NULL, *totals = NULL, *q0 = NULL,
		    *part;
	const char *missing;
	size_t k;

	if (root && json_object_object_get_ex(root, "interfaces", &iface))
		iface = json_object_array_get_idx(iface, 0);
	if (iface && json_object_object_get_ex(iface, "queues", &q0))
		q0 = json_object_array_get_idx(q0, 0);
	if (iface)
		json_object_object_get_ex(iface, "totals", &totals);
	CHECK_TRUE("json: the fixture's report has totals and queue 0", totals && q0);
	for (k = 0; k < ps_nfamilies; k++) {
		const struct ps_family *f = ps_families[k];

		if (f->json_key) {
			snprintf(what, sizeof(what),
				 "json: family %s's key %s in totals and queue 0", f->name,
				 f->json_key);
			check_report(has_key(totals, f->json_key) && has_key(q0, f->json_key), what,
				     "missing from the JSON report");
		}
		if (f->queue_json_into) {
			part = json_object_new_object();
			f->queue_json_into(part, &r[0], 0);
			missing = "";
			snprintf(what, sizeof(what), "json: family %s's own keys in queue 0",
				 f->name);
			check_report(json_object_object_length(part) && keys_in(part, q0, &missing),
				     what, "'%s' missing (or it adds none)", missing);
			json_object_put(part);
		}
		if (f->iface_json) {
			part = json_object_new_object();
			f->iface_json(part, r[0].cur);
			missing = "";
			snprintf(what, sizeof(what), "json: family %s's keys in the interface",
				 f->name);
			check_report(json_object_object_length(part) &&
					 keys_in(part, iface, &missing),
				     what, "'%s' missing (or it adds none)", missing);
			json_object_put(part);
		}
	}
	json_object_put(root);
	free(text);
}

/* Each family's output of one kind, alone, is non-empty and found as it is
 * in the whole rendering. */
static section_fn table_of(const struct ps_family *f)
{
	return f->table;
}

static section_fn note_of(const struct ps_family *f)
{
	return f->table_note;
}

static section_fn hist_of(const struct ps_family *f)
{
	return f->hist;
}

static void test_text(const char *kind, const char *whole, const struct ps_report *r,
		      section_fn (*of)(const struct ps_family *f))
{
	char what[128], *part;
	section_fn fn;
	size_t k;

	for (k = 0; k < ps_nfamilies; k++) {
		fn = of(ps_families[k]);
		if (!fn)
			continue;
		part = capture(fn, &r[0]);
		snprintf(what, sizeof(what), "%s: family %s's section is in it", kind,
			 ps_families[k]->name);
		check_report(*part && strstr(whole, part), what, "%s",
			     *part ? "not found in the whole rendering" : "it printed nothing");
		free(part);
	}
}

static void test_prom(const struct ps_snapshot *cur)
{
	char *whole = capture_prom(NULL, cur, 2), *part, what[128];
	size_t k;

	for (k = 0; k < ps_nfamilies; k++) {
		part = capture_prom(ps_families[k], cur, 2);
		snprintf(what, sizeof(what), "prom: family %s's metric families are in it",
			 ps_families[k]->name);
		check_report(*part && strstr(whole, part), what, "%s",
			     *part ? "not found in the exposition" : "it wrote nothing");
		free(part);
	}
	free(whole);
}

/* Also: a family with per-queue data has every output, the stages are gathered
 * in path order; and on the snapshot fixture, each family's part is found in
 * the table, --hist, JSON and Prometheus renderings, which walk the registry. */
int main(void)
{
	static struct ps_snapshot snaps[2][2];
	struct ps_snapshot cur[2];
	struct ps_report window[2];
	char *table, *hist;
	int i;

	test_features();
	test_unique();
	test_outputs();
	test_stages();

	fx_fill(snaps);
	for (i = 0; i < 2; i++) {
		cur[i] = snaps[i][1];
		ps_report_init(&window[i], &snaps[i][1], &snaps[i][0]);
	}
	test_json(window);
	table = capture_render(ps_render_table, window, 2);
	test_text("table", table, window, table_of);
	test_text("table note", table, window, note_of);
	hist = capture_render(ps_render_hist, window, 2);
	test_text("hist", hist, window, hist_of);
	test_prom(cur);
	free(table);
	free(hist);
	return check_exit_code();
}
