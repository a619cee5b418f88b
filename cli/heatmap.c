// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* pathscope heatmap: one latency stage per queue over time, as SVG, from a
 * recording of JSON reports or recorded live from snapshots
 * (stats/analysis/heatmap.h); live with --record it writes stats --json's reports too. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "lib/output.h"
#include "lib/util.h"
#include "loader/pins.h"
#include "stats/analysis/heatmap.h"
#include "stats/render/heatmap_svg.h"
#include "stats/render/render.h"

static const char heatmap_help[] =
    "usage: pathscope heatmap STAGE [IFACE] --from FILE [options]\n"
    "       pathscope heatmap STAGE IFACE [--duration S] [--interval S] [options]\n"
    "Draw one latency stage as a heatmap in one self-contained SVG file: a panel per\n"
    "queue, time on x, latency on a log scale on y, the colour of a cell its count\n"
    "of samples; the panels share the axes and the colours. From a recording (the\n"
    "JSON lines of 'stats --interval S --json' or 'serve --jsonl': the first line\n"
    "is the baseline, each later line one interval), or recorded live.\n";
/* After the registry's stage names (heatmap_about). */
static const char heatmap_budget_help[] =
    "budget: per queue, the p50 of every stage as bars, the stages of one path\n"
    "end to end, each p99 marked.";

/* The help's head, then "STAGE: " and every stage the registry holds, in path
 * order, wrapped at 80 columns: a new family's stages list themselves. */
static const char *heatmap_about(void)
{
	static char about[2048];
	char names[600], *word, *save = NULL;
	size_t at, col;

	ps_stage_names(names, sizeof(names));
	at = (size_t)snprintf(about, sizeof(about), "%sSTAGE:", heatmap_help);
	col = strlen("STAGE:");
	strncat(names, "; or ", sizeof(names) - strlen(names) - 1);
	strncat(names, heatmap_budget_help, sizeof(names) - strlen(names) - 1);
	for (word = strtok_r(names, " \n", &save); word && at < sizeof(about);
	     word = strtok_r(NULL, " \n", &save)) {
		if (col + 1 + strlen(word) > 79) {
			at += (size_t)snprintf(about + at, sizeof(about) - at, "\n ");
			col = 1;
		}
		at += (size_t)snprintf(about + at, sizeof(about) - at, " %s", word);
		col += 1 + strlen(word);
	}
	if (at < sizeof(about) - 1)
		strcat(about, "\n");
	return about;
}

static const struct ps_opt heatmap_opts[] = {
	{ "from", 'f', "FILE",
	  "read the recording FILE ('-': standard input); IFACE\n"
	  "picks an interface when it holds several" },
	{ "duration", 'd', "S", "live: record IFACE for S seconds (default 10)" },
	{ "interval", 'i', "S", "live: an interval every S seconds (default 1)" },
	{ "record", 'r', "FILE", "live: also write the recording to FILE" },
	{ "output", 'o', "FILE", "write the SVG to FILE (default: standard output)" },
	{ "whole", 'w', NULL, "one panel of all queues, not one per queue" },
	{},
};

static const char heatmap_examples[] =
    "examples:\n"
    "  pathscope stats eth1 --interval 1 --count 61 --json > run.jsonl\n"
    "  pathscope heatmap tcp_rtt --from run.jsonl -o tcp_rtt.svg\n"
    "  pathscope heatmap d2s eth1 --duration 30 -o d2s.svg\n"
    "  pathscope heatmap budget --from run.jsonl -o budget.svg\n";

#define MAX_LIVE_INTERVALS PS_HEAT_MAX_INTERVALS

struct heatmap_args {
	const char *stage, *ifname, *from, *record, *output;
	double duration, interval;
	bool whole, live_opts;
};

static int read_recording(struct ps_heat *heats, size_t n, const char *from)
{
	FILE *in = strcmp(from, "-") ? fopen(from, "r") : stdin;
	char err[512];
	int rc;

	if (!in)
		return ps_error("cannot read %s: %s", from, strerror(errno)), 1;
	rc = ps_heat_read(heats, n, in, from, err, sizeof(err));
	if (in != stdin)
		fclose(in);
	return rc ? (ps_error("%s", err), 1) : 0;
}

/* The snapshot cur into every heat, with the queues its JSON report lists;
 * and that report (cur over prev) to the recording file if there is one. */
static int live_report(struct ps_heat *heats, size_t n, const struct ps_snapshot *cur,
		       const struct ps_snapshot *prev, FILE *record)
{
	struct ps_report r;
	char err[256];

	if (record) {
		ps_report_init(&r, cur, prev);
		ps_render_json(record, &r, 1);
	}
	if (ps_heat_add_snapshot(heats, n, cur, ps_render_json_other(cur), err, sizeof(err)))
		return ps_error("%s", err), 1;
	return 0;
}

static int record_live(struct ps_heat *heats, size_t n, const struct heatmap_args *a)
{
	struct ps_snapshot prev, cur;
	struct ps_out_lines rec = {};
	FILE *record = NULL;
	char dir[256];
	double left;
	int err, rc = 0;

	if (ps_require_privileges())
		return 1;
	err = ps_snapshot_dir(a->ifname, dir, sizeof(dir));
	if (err == -ENODEV)
		return ps_cmd_unknown_iface(a->ifname);
	if (err == -ENOENT)
		return ps_cmd_not_attached(a->ifname);
	if (err)
		return ps_error("cannot read interface '%s': %s", a->ifname, strerror(-err)), 1;
	/* Read while written (tail -f), and on complete lines only. */
	if (a->record) {
		if (ps_out_lines_open(&rec, a->record, false))
			return ps_error("cannot write %s: %s", a->record, strerror(errno)), 1;
		record = rec.f;
	}
	err = ps_snapshot_read(dir, &prev);
	if (err) {
		ps_out_lines_close(&rec);
		return ps_error("cannot read %s: %s", dir, strerror(-err)), 1;
	}
	rc = live_report(heats, n, &prev, NULL, record); /* the baseline */
	if (!rc && record && ps_out_lines_end(&rec))
		rc = 1;
	ps_stop_on_signals();
	for (left = a->duration; !rc && left > 1e-9 && !ps_stop; left -= a->interval) {
		ps_sleep_s(left < a->interval ? left : a->interval);
		if (ps_stop)
			break;
		err = ps_snapshot_read(dir, &cur);
		if (err) {
			rc = (ps_error("cannot read %s: %s", dir,
				       err == -ENOENT ? "gone (detached meanwhile?)"
						      : strerror(-err)),
			      1);
			break;
		}
		rc = live_report(heats, n, &cur, &prev, record);
		ps_snapshot_free(&prev);
		prev = cur;
		if (record && ps_out_lines_end(&rec))
			rc = 1; /* a full disk */
	}
	ps_snapshot_free(&prev);
	ps_out_lines_close(&rec);
	return rc;
}

static int parse_args(int argc, char **argv, struct heatmap_args *a)
{
	const struct ps_command cmd = {
		.about = heatmap_about(),
		.groups = { { .opts = heatmap_opts, .col = 22 } },
		.examples = heatmap_examples,
	};
	int c, err;

	a->duration = 10;
	a->interval = 1;
	while ((c = ps_opt_next(&cmd, argc, argv, &err)) != PS_OPT_END) {
		switch (c) {
		case PS_OPT_EXIT:
			return err ? err : -1;
		case 'f':
			a->from = optarg;
			break;
		case 'd':
			if (ps_opt_seconds("duration", optarg, &a->duration))
				return 2;
			a->live_opts = true;
			break;
		case 'i':
			if (ps_opt_seconds("interval", optarg, &a->interval))
				return 2;
			a->live_opts = true;
			break;
		case 'r':
			a->record = optarg;
			a->live_opts = true;
			break;
		case 'o':
			a->output = optarg;
			break;
		case 'w':
			a->whole = true;
			break;
		}
	}
	if (optind >= argc)
		return ps_error("heatmap: expected a STAGE (see 'pathscope heatmap --help')"), 2;
	a->stage = argv[optind++];
	if (optind < argc)
		a->ifname = argv[optind++];
	if (ps_operand_none(argc, argv))
		return 2;
	if (a->from && a->live_opts)
		return ps_error("heatmap: --duration, --interval and --record are for a live "
				"recording, not with --from"),
		       2;
	if (!a->from && !a->ifname)
		return ps_error("heatmap: name an IFACE to record live, or a recording with "
				"--from FILE"),
		       2;
	if (!a->from && a->duration / a->interval > MAX_LIVE_INTERVALS)
		return ps_error("heatmap: at most %d intervals (--duration / --interval)",
				MAX_LIVE_INTERVALS),
		       2;
	if (strcmp(a->stage, "budget") && !ps_stage_find(a->stage)) {
		char names[400];

		ps_stage_names(names, sizeof(names));
		return ps_error("heatmap: unknown stage '%s' (%s; or budget)", a->stage, names), 2;
	}
	if (!strcmp(a->stage, "budget") && a->whole)
		return ps_error("heatmap: --whole draws a heatmap, not the budget"), 2;
	return 0;
}

int ps_cmd_heatmap(int argc, char **argv)
{
	struct heatmap_args a = {};
	struct ps_heat *heats;
	bool budget;
	size_t n, k;
	struct ps_out_file svg = {};
	FILE *out;
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	budget = !strcmp(a.stage, "budget");
	n = budget ? ps_nstages : 1;
	heats = calloc(n, sizeof(*heats));
	if (!heats)
		return ps_error("out of memory"), 1;
	for (k = 0; k < n; k++) {
		heats[k].stage = budget ? &ps_stages[k] : ps_stage_find(a.stage);
		heats[k].whole = a.whole;
		if (a.ifname)
			snprintf(heats[k].ifname, sizeof(heats[k].ifname), "%s", a.ifname);
	}
	rc = a.from ? read_recording(heats, n, a.from) : record_live(heats, n, &a);
	/* The SVG whole or not at all: to --output through a temporary name,
	 * or to standard output (checked in main). */
	if (!rc && !(a.output && ps_out_file_open(&svg, a.output))) {
		out = a.output ? svg.f : stdout;
		if (budget)
			ps_budget_svg(out, heats);
		else
			ps_heat_svg(out, heats);
		if (a.output && ps_out_file_commit(&svg))
			rc = 1;
	} else if (!rc) {
		rc = 1;
	}
	for (k = 0; k < n; k++)
		ps_heat_free(&heats[k]);
	free(heats);
	return rc;
}
