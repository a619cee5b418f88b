// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* pathscope stats: the per-queue report of attached interfaces, once or every interval. */

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "stats/render/render.h"
#include "stats/families/stages.h"
#include "loader/pins.h"
#include "lib/output.h"
#include "lib/util.h"

#define MAX_IFACES 64

static const char stats_help[] =
    "usage: pathscope stats [IFACE...] [options]\n"
    "Per-queue report of attached interfaces (default: every attached interface of\n"
    "this network namespace). Without --interval: one report, rates since attach.\n";

enum { HIST = PS_OPT_LONG, ALL, ECN, LATENCY, HEATMAP };

static const struct ps_opt stats_opts[] = {
	{ "interval", 'i', "S",
	  "report every S seconds (rates over the interval;\n"
	  "0 < S <= 86400)" },
	{ "count", 'c', "N",
	  "stop after N reports (default: 1 without --interval, else\n"
	  "until Ctrl-C; with --count alone the interval is 1 s)" },
	{ "json", 'j', NULL, "one JSON object per report (schema: pathscope-json(7))" },
	{ "hist", HIST, NULL, "also print the size and segment histograms" },
	{ "all", ALL, NULL,
	  "also the rows without packets or samples (left out by\n"
	  "default, with a count of them)" },
	{ "ecn", ECN, NULL, "also the NOT_ECT, ECT0 and ECT1 columns beside CE" },
	{ "latency", LATENCY, NULL,
	  "the latency budget instead: a row per stage (d2s,\n"
	  "socket, qdisc, completion, ICMP/TCP RTT, handshake,\n"
	  "responses), a column per queue, p50/p99 in each" },
	{ "heatmap", HEATMAP, "STAGE",
	  "the heat strip of one latency stage instead: a row per\n"
	  "queue, a column per bucket, shaded by count (STAGE as\n"
	  "'pathscope heatmap' takes it: d2s, tcp_rtt, ...)" },
	{},
};

static const char stats_examples[] =
    "examples:\n"
    "  pathscope stats eth1\n"
    "  pathscope stats eth1 --interval 1 --count 5 --hist\n"
    "  pathscope stats eth1 --latency\n"
    "  pathscope stats eth1 --interval 1 --heatmap tcp_rtt\n"
    "  pathscope stats --json | jq '.interfaces[].totals.xdp.rate.pps'\n";

struct collect {
	char (*dirs)[256];
	int n;
	uint64_t netns;
};

static int collect_dir(const char *dir, void *ctx)
{
	struct collect *c = ctx;
	struct ps_meta m;

	if (c->n < MAX_IFACES && ps_meta_read(dir, &m) == 0 && m.netns_ino == c->netns)
		snprintf(c->dirs[c->n++], 256, "%s", dir);
	return 0;
}

static int read_all(char (*dirs)[256], int n, struct ps_snapshot *snaps)
{
	int i, err;

	for (i = 0; i < n; i++) {
		err = ps_snapshot_read(dirs[i], &snaps[i]);
		if (!err)
			ps_snapshot_read_placement(&snaps[i]);
		if (err) {
			ps_error("cannot read %s: %s", dirs[i],
				 err == -EPROTO	   ? "written by another pathscope version"
				 : err == -EBADMSG ? "its meta map is not one pathscope writes "
						     "(see 'pathscope status'; detach removes it)"
				 : err == -ENOENT  ? "gone (detached meanwhile?)"
						   : strerror(-err));
			while (i-- > 0)
				ps_snapshot_free(&snaps[i]);
			return -1;
		}
	}
	return 0;
}

/* What one report prints. */
struct view {
	bool json, hist, latency;
	unsigned int show;	     /* PS_SHOW_* */
	const struct ps_stage *heat; /* --heatmap STAGE */
};

static void render(const struct ps_snapshot *cur, const struct ps_snapshot *prev, int n,
		   const struct view *v)
{
	struct ps_report r[MAX_IFACES];
	int i;

	for (i = 0; i < n; i++) {
		ps_report_init(&r[i], &cur[i], prev ? &prev[i] : NULL);
		r[i].show = v->show;
	}
	if (v->json) {
		ps_render_json(stdout, r, n);
		return;
	}
	if (v->heat)
		ps_render_heat(stdout, r, n, v->heat);
	else if (v->latency)
		ps_render_latency(stdout, r, n);
	else
		ps_render_table(stdout, r, n);
	if (v->hist)
		ps_render_hist(stdout, r, n);
	fflush(stdout);
}

int ps_cmd_stats(int argc, char **argv)
{
	static const struct ps_command cmd = {
		.about = stats_help,
		.groups = { { .opts = stats_opts, .col = 20 } },
		.examples = stats_examples,
	};
	static char dirs[MAX_IFACES][256];
	struct ps_snapshot prev[MAX_IFACES], cur[MAX_IFACES];
	struct collect col = { .dirs = dirs, .netns = ps_netns_ino() };
	double interval = 0;
	uint64_t count = 0, done;
	struct view view = {};
	bool have_prev = false;
	int c, i, err, n = 0;

	while ((c = ps_opt_next(&cmd, argc, argv, &err)) != PS_OPT_END) {
		switch (c) {
		case PS_OPT_EXIT:
			return err;
		case 'i':
			if (ps_opt_seconds("interval", optarg, &interval))
				return 2;
			break;
		case 'c':
			if (ps_opt_count(optarg, &count))
				return 2;
			break;
		case 'j':
			view.json = true;
			break;
		case HIST:
			view.hist = true;
			break;
		case LATENCY:
			view.latency = true;
			break;
		case ALL:
			view.show |= PS_SHOW_ALL;
			break;
		case ECN:
			view.show |= PS_SHOW_ECN;
			break;
		case HEATMAP:
			view.heat = ps_stage_find(optarg);
			if (!view.heat) {
				char names[400];

				ps_stage_names(names, sizeof(names));
				return ps_error("bad --heatmap '%s' (a stage: %s)", optarg, names),
				       2;
			}
			break;
		}
	}
	if (view.heat && (view.json || view.latency))
		return ps_error("--heatmap prints a table: not with --json or --latency"), 2;
	if (ps_require_privileges())
		return 1;
	for (i = optind; i < argc; i++) {
		if (n == MAX_IFACES)
			return ps_error("at most %d interfaces", MAX_IFACES), 2;
		err = ps_snapshot_dir(argv[i], dirs[n], sizeof(dirs[n]));
		if (err == -ENODEV)
			return ps_cmd_unknown_iface(argv[i]);
		if (err == -ENOENT)
			return ps_cmd_not_attached(argv[i]);
		if (err)
			return ps_error("cannot read interface '%s': %s", argv[i], strerror(-err)),
			       1;
		n++;
	}
	if (optind == argc) {
		ps_pin_foreach(collect_dir, &col);
		n = col.n;
		if (!n)
			return ps_error("nothing is attached in this network namespace"), 1;
	}
	if (count && !interval)
		interval = 1;
	if (!count)
		count = interval ? UINT64_MAX : 1;

	ps_stop_on_signals();
	if (!interval) {
		if (read_all(dirs, n, cur))
			return 1;
		render(cur, NULL, n, &view);
		for (i = 0; i < n; i++)
			ps_snapshot_free(&cur[i]);
		return 0;
	}
	if (read_all(dirs, n, prev))
		return 1;
	have_prev = true;
	for (done = 0; done < count && !ps_stop; done++) {
		ps_sleep_s(interval);
		if (ps_stop)
			break;
		if (read_all(dirs, n, cur)) {
			err = 1;
			goto out;
		}
		render(cur, prev, n, &view);
		for (i = 0; i < n; i++) {
			ps_snapshot_free(&prev[i]);
			prev[i] = cur[i];
		}
		err = ps_out_stdout(); /* a reader gone, a full disk: stop */
		if (err)
			goto out;
	}
	err = 0;
out:
	if (have_prev)
		for (i = 0; i < n; i++)
			ps_snapshot_free(&prev[i]);
	return err;
}
