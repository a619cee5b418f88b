// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* RSS facts as JSON and as the lines of `pathscope nic`'s table. */
#include <linux/ethtool.h>
#include <stdlib.h>
#include <string.h>

#include "stats/render/rss_report.h"

/* RXH_* bits by short name, in ethtool -n's order. */
static const struct {
	__u32 bit;
	const char *name;
} field_names[] = {
	{ RXH_L2DA, "l2da" },	   { RXH_VLAN, "vlan" },	  { RXH_L3_PROTO, "l3proto" },
	{ RXH_IP_SRC, "src" },	   { RXH_IP_DST, "dst" },	  { RXH_L4_B_0_1, "sport" },
	{ RXH_L4_B_2_3, "dport" }, { PS_RXH_DISCARD, "discard" },
};

static void key_hex(const struct ps_rss *r, char *hex)
{
	__u32 i;

	for (i = 0; i < r->key_size; i++)
		sprintf(hex + 2 * i, "%02x", r->key[i]);
	hex[2 * r->key_size] = '\0';
}

/* The queues to show: nqueues, or the table's own count when higher. */
static __u32 queues_of(const struct ps_rss *r, __u32 nqueues)
{
	__u32 n = ps_rss_nqueues(r);

	return n > nqueues ? n : nqueues;
}

static json_object *fields_json(__u32 fields)
{
	json_object *a;
	size_t i;

	if (fields == PS_RSS_FIELDS_NA)
		return NULL;
	a = json_object_new_array();
	for (i = 0; i < sizeof(field_names) / sizeof(field_names[0]); i++)
		if (fields & field_names[i].bit)
			json_object_array_add(a, json_object_new_string(field_names[i].name));
	return a;
}

json_object *ps_rss_json(const struct ps_rss *r, __u32 nqueues)
{
	json_object *o = json_object_new_object(), *t, *q, *f;
	char hex[2 * PS_RSS_MAX_KEY + 1];
	__u32 i, n, *per;
	int k;

	json_object_object_add(o, "available", json_object_new_boolean(r->have_table));
	if (!r->have_table) {
		json_object_object_add(o, "why", json_object_new_string(r->why));
		return o;
	}
	json_object_object_add(o, "source", json_object_new_string(r->source));
	json_object_object_add(o, "hfunc", json_object_new_string(ps_rss_hfunc_name(r->hfunc)));
	key_hex(r, hex);
	json_object_object_add(o, "key", r->key_size ? json_object_new_string(hex) : NULL);
	json_object_object_add(o, "input_xfrm", json_object_new_int64(r->input_xfrm));
	t = json_object_new_array();
	for (i = 0; i < r->table_size; i++)
		json_object_array_add(t, json_object_new_int64(r->table[i]));
	json_object_object_add(o, "table", t);
	n = queues_of(r, nqueues);
	per = calloc(n ? n : 1, sizeof(*per));
	q = json_object_new_array();
	if (per) {
		ps_rss_entries_per_queue(r, per, n);
		for (i = 0; i < n; i++)
			json_object_array_add(q, json_object_new_int64(per[i]));
		free(per);
	}
	json_object_object_add(o, "entries_per_queue", q);
	f = json_object_new_object();
	for (k = 0; k < PS_RSS_NFLOW; k++)
		json_object_object_add(f, ps_rss_flow_names[k], fields_json(r->fields[k]));
	json_object_object_add(o, "fields", r->have_fields ? f : NULL);
	if (!r->have_fields)
		json_object_put(f);
	json_object_object_add(o, "fields_na",
			       r->have_fields ? NULL : json_object_new_string(r->fields_why));
	json_object_object_add(o, "ntuple_rules",
			       r->ntuple_rules >= 0 ? json_object_new_int(r->ntuple_rules) : NULL);
	json_object_object_add(o, "ntuple_na",
			       r->ntuple_rules >= 0 ? NULL : json_object_new_string(r->ntuple_why));
	return o;
}

static void print_fields(FILE *out, __u32 fields)
{
	size_t i;

	if (fields == PS_RSS_FIELDS_NA) {
		fprintf(out, " n/a");
		return;
	}
	if (!fields) {
		fprintf(out, " none");
		return;
	}
	for (i = 0; i < sizeof(field_names) / sizeof(field_names[0]); i++)
		if (fields & field_names[i].bit)
			fprintf(out, " %s", field_names[i].name);
}

void ps_rss_print(FILE *out, const struct ps_rss *r, __u32 nqueues)
{
	char hex[2 * PS_RSS_MAX_KEY + 1];
	__u32 i, n, *per;
	int k;

	if (!r->have_table) {
		fprintf(out, "RSS:      not available (%s)\n", r->why);
		return;
	}
	n = queues_of(r, nqueues);
	fprintf(out, "RSS:      %s hash, %u-entry table over %u queues (%s)\n",
		ps_rss_hfunc_name(r->hfunc), r->table_size, n, r->source);
	key_hex(r, hex);
	fprintf(out, "  key:    %s\n", r->key_size ? hex : "n/a");
	if (r->input_xfrm)
		fprintf(out, "  input:  transformed before hashing (input_xfrm 0x%x)\n",
			r->input_xfrm);
	per = calloc(n ? n : 1, sizeof(*per));
	if (per) {
		ps_rss_entries_per_queue(r, per, n);
		for (i = 0; i < n; i++)
			fprintf(out, "  %-7s queue %u: %u of %u entries (%.0f%%)\n",
				i ? "" : "table:", i, per[i], r->table_size,
				100.0 * per[i] / r->table_size);
		free(per);
	}
	if (!r->have_fields) {
		fprintf(out, "  fields: n/a (%s)\n", r->fields_why);
	} else {
		for (k = 0; k < PS_RSS_NFLOW; k++) {
			fprintf(out, "  %-7s %s:", k ? "" : "fields:", ps_rss_flow_names[k]);
			print_fields(out, r->fields[k]);
			fprintf(out, "\n");
		}
	}
	if (r->ntuple_rules >= 0)
		fprintf(out, "  ntuple: %d rule%s\n", r->ntuple_rules,
			r->ntuple_rules == 1 ? "" : "s");
	else
		fprintf(out, "  ntuple: n/a (%s)\n", r->ntuple_why);
}
