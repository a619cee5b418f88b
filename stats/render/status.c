// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The words of `pathscope status`, kept apart from the kernel queries so the
 * fuzzer (tests/fuzz/fuzz_meta.c) can feed them any meta that passes the
 * check. */
#include "stats/render/status.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/queues.h"
#include "lib/names.h"

struct status_words {
	char feats[128], queues[128], since[32];
};

static void words(const struct ps_meta *m, struct status_words *w)
{
	time_t t = (time_t)(m->attach_realtime_ns / 1000000000ULL);
	struct tm tm;

	ps_features_format(m->features, w->feats, sizeof(w->feats));
	if (m->all_queues)
		snprintf(w->queues, sizeof(w->queues), "all");
	else
		ps_queues_format(m->queue_mask, w->queues, sizeof(w->queues));
	if (!gmtime_r(&t, &tm) || !strftime(w->since, sizeof(w->since), "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(w->since, sizeof(w->since), "?");
}

static const char *const status_heads[PS_STATUS_COLS] = {
	"IFACE", "IFINDEX", "NETNS", "XDP", "TC", "QUEUES", "ATTACHED", "MAPMEM", "STATE",
};

/* A new row, or NULL when memory ran out (the row is then left out). */
static struct ps_status_row *new_row(struct ps_status_table *t)
{
	struct ps_status_row *rows = realloc(t->rows, (t->n + 1) * sizeof(*rows));

	if (!rows)
		return NULL;
	t->rows = rows;
	memset(&rows[t->n], 0, sizeof(rows[t->n]));
	return &rows[t->n++];
}

void ps_status_table_row(struct ps_status_table *t, const struct ps_meta *m, const char *state,
			 const struct ps_map_memory *mem)
{
	struct ps_status_row *r = new_row(t);
	struct status_words w;
	const char *detail;

	if (!r)
		return;
	words(m, &w);
	r->has_cells = true;
	snprintf(r->cell[0], sizeof(r->cell[0]), "%s", m->ifname);
	snprintf(r->cell[1], sizeof(r->cell[1]), "%u", m->ifindex);
	snprintf(r->cell[2], sizeof(r->cell[2]), "%llu", (unsigned long long)m->netns_ino);
	snprintf(r->cell[3], sizeof(r->cell[3]), "%s", ps_xdp_mode_name(m->xdp_mode));
	snprintf(r->cell[4], sizeof(r->cell[4]), "%s", ps_tc_mode_name(m->tc_mode));
	snprintf(r->cell[5], sizeof(r->cell[5]), "%s", w.queues);
	snprintf(r->cell[6], sizeof(r->cell[6]), "%s", w.since);
	snprintf(r->cell[7], sizeof(r->cell[7]), "%.1f MiB", (double)mem->bytes / (1 << 20));
	/* The state's first words in its column, the whole of it on a line of
	 * its own when it says more in parentheses: "ok (xdp in libxdp's
	 * dispatcher, id 45, alone)" would take a row past 120 columns. */
	detail = strstr(state, " (");
	snprintf(r->cell[8], sizeof(r->cell[8]), "%.*s",
		 (int)(detail ? (size_t)(detail - state) : strlen(state)), state);
	snprintf(r->note, sizeof(r->note), "features %s", w.feats);
	if (detail)
		snprintf(r->state_line, sizeof(r->state_line), "state %s", state);
}

void ps_status_table_note(struct ps_status_table *t, const char *text)
{
	struct ps_status_row *r = t->n ? &t->rows[t->n - 1] : NULL;

	if (!r || !r->has_cells)
		ps_status_table_line(t, text);
	else
		snprintf(r->note2, sizeof(r->note2), "%s", text);
}

void ps_status_table_line(struct ps_status_table *t, const char *text)
{
	struct ps_status_row *r = new_row(t);

	if (r)
		snprintf(r->note, sizeof(r->note), "%s", text);
}

/* Column k of a row: padded to its width and two spaces, the last one ended. */
static void cell(FILE *out, const char *text, size_t k, const size_t *w)
{
	if (k + 1 < PS_STATUS_COLS)
		fprintf(out, "%-*s  ", (int)w[k], text);
	else
		fprintf(out, "%s\n", text);
}

/* Columns as wide as their widest cell (or head), two spaces apart; the
 * features and notes of a row on lines of their own below it, indented to
 * the second column, so that the rows stay within 120 columns. */
void ps_status_table_print(FILE *out, struct ps_status_table *t)
{
	size_t w[PS_STATUS_COLS], i, k, len;

	for (k = 0; k < PS_STATUS_COLS; k++) {
		w[k] = strlen(status_heads[k]);
		for (i = 0; i < t->n; i++)
			if (t->rows[i].has_cells && (len = strlen(t->rows[i].cell[k])) > w[k])
				w[k] = len;
	}
	for (k = 0; k < PS_STATUS_COLS; k++)
		cell(out, status_heads[k], k, w);
	for (i = 0; i < t->n; i++) {
		const struct ps_status_row *r = &t->rows[i];

		if (!r->has_cells) {
			fprintf(out, "%s\n", r->note);
			continue;
		}
		for (k = 0; k < PS_STATUS_COLS; k++)
			cell(out, r->cell[k], k, w);
		fprintf(out, "%*s%s\n", (int)(w[0] + 2), "", r->note);
		if (r->state_line[0])
			fprintf(out, "%*s%s\n", (int)(w[0] + 2), "", r->state_line);
		if (r->note2[0])
			fprintf(out, "%*s%s\n", (int)(w[0] + 2), "", r->note2);
	}
	free(t->rows);
	t->rows = NULL;
	t->n = 0;
}

json_object *ps_status_json(const char *dir, const struct ps_meta *m, const char *state,
			    const struct ps_map_memory *mem, uint64_t current_netns)
{
	json_object *o = json_object_new_object();
	struct status_words w;

	words(m, &w);
	json_object_object_add(o, "ifname", json_object_new_string(m->ifname));
	json_object_object_add(o, "ifindex", json_object_new_int64(m->ifindex));
	json_object_object_add(o, "netns", json_object_new_uint64(m->netns_ino));
	json_object_object_add(o, "current_netns",
			       json_object_new_boolean(m->netns_ino == current_netns));
	json_object_object_add(o, "xdp_mode",
			       json_object_new_string(ps_xdp_mode_name(m->xdp_mode)));
	json_object_object_add(o, "xdp_prog_id", json_object_new_int64(m->xdp_prog_id));
	json_object_object_add(o, "tc_mode", json_object_new_string(ps_tc_mode_name(m->tc_mode)));
	json_object_object_add(o, "features", json_object_new_string(w.feats));
	/* where arriving TCP segments are matched; null without feature tcp */
	json_object_object_add(o, "tcp_rx",
			       !(m->features & PS_F_TCP) ? NULL
			       : (m->flags & PS_META_TCP_RX_XDP) && m->xdp_mode != PS_XDP_NONE
				   ? json_object_new_string("xdp")
				   : json_object_new_string("tc"));
	json_object_object_add(o, "queues", json_object_new_string(w.queues));
	json_object_object_add(o, "nqueues", json_object_new_int64(m->nqueues));
	/* null: the driver reports no channels */
	json_object_object_add(
	    o, "rx_queues_at_attach",
	    m->rx_queues_at_attach ? json_object_new_int64(m->rx_queues_at_attach) : NULL);
	json_object_object_add(
	    o, "tx_queues_at_attach",
	    m->tx_queues_at_attach ? json_object_new_int64(m->tx_queues_at_attach) : NULL);
	json_object_object_add(o, "attached_at", json_object_new_string(w.since));
	json_object_object_add(o, "state", json_object_new_string(state));
	json_object_object_add(o, "map_memory_bytes", json_object_new_uint64(mem->bytes));
	json_object_object_add(o, "maps", json_object_new_uint64(mem->nmaps));
	json_object_object_add(o, "maps_not_readable", json_object_new_uint64(mem->nmissed));
	json_object_object_add(o, "pin_dir", json_object_new_string(dir));
	return o;
}

void ps_status_chain_text(char *buf, size_t len, const struct ps_xdp_peer *p)
{
	snprintf(buf, len, "chained in front of XDP program %u '%s'; loaded by: %s; pinned at: %s",
		 p->id, p->name[0] ? p->name : "?", p->tool[0] ? p->tool : "not known",
		 p->pin[0] ? p->pin : "none found");
}

void ps_status_chain_json(json_object *o, const struct ps_xdp_peer *p)
{
	json_object *c;

	if (!p) {
		json_object_object_add(o, "chained", NULL);
		return;
	}
	c = json_object_new_object();
	json_object_object_add(c, "prog_id", json_object_new_int64(p->id));
	json_object_object_add(c, "name", p->name[0] ? json_object_new_string(p->name) : NULL);
	json_object_object_add(c, "loaded_by", p->tool[0] ? json_object_new_string(p->tool) : NULL);
	json_object_object_add(c, "pinned_at", p->pin[0] ? json_object_new_string(p->pin) : NULL);
	json_object_object_add(c, "libxdp", json_object_new_boolean(p->libxdp));
	json_object_object_add(o, "chained", c);
}

void ps_status_incomplete_text(char *buf, size_t len, const char *dir, const char *reason)
{
	snprintf(buf, len, "? %s: incomplete (no meta: %s); 'pathscope detach --gone' removes it",
		 dir, reason);
}

/* The namespace of a pin directory <root>/<netns inode>/<ifindex>, 0 if the
 * path has no such form. */
static uint64_t pin_dir_netns(const char *dir)
{
	const char *end = strrchr(dir, '/'), *p;
	unsigned long long ino = 0;

	if (!end || end == dir)
		return 0;
	for (p = end - 1; p > dir && *p != '/'; p--)
		;
	if (*p == '/' && sscanf(p + 1, "%llu/", &ino) != 1)
		return 0;
	return ino;
}

json_object *ps_status_incomplete_json(const char *dir, const char *reason, uint64_t current_netns)
{
	json_object *o = json_object_new_object();
	uint64_t netns = pin_dir_netns(dir);

	json_object_object_add(o, "pin_dir", json_object_new_string(dir));
	json_object_object_add(o, "netns", json_object_new_uint64(netns));
	json_object_object_add(o, "current_netns",
			       json_object_new_boolean(netns && netns == current_netns));
	json_object_object_add(o, "state", json_object_new_string("incomplete"));
	json_object_object_add(o, "reason", json_object_new_string(reason));
	return o;
}

void ps_status_orphan_text(char *buf, size_t len, const char *ifname, const char *what)
{
	snprintf(buf, len, "? %s: orphan: %s; 'pathscope detach %s' removes it", ifname, what,
		 ifname);
}

json_object *ps_status_orphan_json(const char *ifname, int ifindex, __u32 xdp_id,
				   const unsigned int *tc_id, const char *what,
				   uint64_t current_netns)
{
	json_object *o = json_object_new_object(), *tc = json_object_new_array();
	int i;

	for (i = 0; i < 2; i++)
		json_object_array_add(tc, tc_id[i] ? json_object_new_int64(tc_id[i]) : NULL);
	json_object_object_add(o, "ifname", json_object_new_string(ifname));
	json_object_object_add(o, "ifindex", json_object_new_int64(ifindex));
	json_object_object_add(o, "netns", json_object_new_uint64(current_netns));
	json_object_object_add(o, "current_netns", json_object_new_boolean(true));
	/* null where that program is not left */
	json_object_object_add(o, "xdp_prog_id", xdp_id ? json_object_new_int64(xdp_id) : NULL);
	json_object_object_add(o, "tc_prog_ids", tc);
	json_object_object_add(o, "state", json_object_new_string("orphan"));
	json_object_object_add(o, "reason", json_object_new_string(what));
	return o;
}
