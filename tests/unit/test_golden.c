// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Golden outputs: the table, --hist, JSON and Prometheus renderings of a fixed pair of
 * snapshots (snapshot_fixture.h) equal the files in tests/golden/ byte for byte.
 * PS_GOLDEN_UPDATE=1 rewrites the files (then review the diff before committing it). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/check.h"
#include "tests/lib/golden.h"
#include "stats/render/render.h"
#include "stats/families/families.h"
#include "stats/families/stages.h"
#include "tests/unit/snapshot_fixture.h"

/* text without the lines of the per-peer families (their HELP, TYPE and
 * samples): what serve --no-peer-metrics must export. The number of lines
 * dropped in *dropped. */
static char *without_peers(const char *text, size_t len, size_t *out_len, int *dropped)
{
	char *out = malloc(len + 1), *o = out;
	const char *s = text, *e, *name;

	*dropped = 0;
	for (; out && s < text + len; s = e) {
		e = memchr(s, '\n', (size_t)(text + len - s));
		e = e ? e + 1 : text + len;
		name = s;
		if (strncmp(s, "# HELP ", 7) == 0 || strncmp(s, "# TYPE ", 7) == 0)
			name = s + 7;
		if (strncmp(name, "pathscope_icmp_peer_", 20) == 0 ||
		    strncmp(name, "pathscope_tcp_peer_", 19) == 0) {
			(*dropped)++;
			continue;
		}
		memcpy(o, s, (size_t)(e - s));
		o += e - s;
	}
	*out_len = out ? (size_t)(o - out) : 0;
	return out;
}

typedef void (*render_fn)(FILE *out, const struct ps_report *r, int n);

/* The widest line of text: the tables a terminal shows by default fit 120
 * columns (every column of these goldens is one byte: ASCII). */
static size_t widest(const char *text, size_t len)
{
	size_t w = 0, at = 0, i;

	for (i = 0; i <= len; i++)
		if (i == len || text[i] == '\n') {
			if (i - at > w)
				w = i - at;
			at = i + 1;
		}
	return w;
}

/* Render into the golden NAME; with max_width, also check the widest line. */
static void render_reports(const char *name, render_fn fn, const struct ps_report *r, int n,
			   size_t max_width)
{
	char *text = NULL, what[96];
	size_t len = 0, w;
	FILE *f = open_memstream(&text, &len);

	fn(f, r, n);
	fclose(f);
	golden(name, text, len);
	if (max_width) {
		w = widest(text, len);
		snprintf(what, sizeof(what), "%s fits %zu columns", name, max_width);
		check_report(w <= max_width, what, "its widest line is %zu", w);
	}
	free(text);
}

/* stats --heatmap STAGE, for two stages the fixture has samples of. */
static void heat_d2s(FILE *out, const struct ps_report *r, int n)
{
	ps_render_heat(out, r, n, ps_stage_find("d2s"));
}

static void heat_tcp_rtt(FILE *out, const struct ps_report *r, int n)
{
	ps_render_heat(out, r, n, ps_stage_find("tcp_rtt"));
}

/* The first hop over the placement verdict's window: the window's deltas, the
 * counts since attach without a previous snapshot, nothing where it is off. */
static void firsthop_window(const struct ps_report *first, const struct ps_report *window)
{
	struct ps_fh_qstats w;

	CHECK_TRUE("firsthop window: on for veth0", ps_firsthop_window(&window[0], 0, &w));
	CHECK_EQ_U64("firsthop window: queue 0's polls by its IRQ, 90 - 30", w.polls[PS_FH_IRQ],
		     60);
	CHECK_EQ_U64("firsthop window: queue 0's timed waits of 3 us, 108 - 36",
		     w.wait_hist[ps_hist_bucket(3000, PS_LAT_BUCKETS)], 72);
	CHECK_TRUE("firsthop window: since attach", ps_firsthop_window(&first[0], 1, &w));
	CHECK_EQ_U64("firsthop window: queue 1's thread waits since attach", w.thread_waited, 24);
	CHECK_TRUE("firsthop window: off for lb\"1", !ps_firsthop_window(&window[1], 0, &w));
}

/* A change to what pathscope prints shows up here as a diff; a refactor must
 * leave the files alone. Prometheus at serve's two detail levels:
 * metrics.prom is the default detail, metrics-queue.prom --detail queue; the
 * table, the window, --hist, --latency and --heatmap (d2s of the window, TCP
 * RTT since attach) each within 120 columns; --all --ecn in stats-all.txt. */
int main(void)
{
	static struct ps_snapshot snaps[2][2];
	static const struct ps_prom_prog progs[] = {
		{ "veth0", "xdp_prog", 123456789, 1000 },
		{ "veth0", "tci_link", 5000, 10 },
	};
	static const struct ps_prom_iface ifaces[] = { { "veth0", true }, { "lb\"1", false } };
	/* serve's default detail (per interface), and --detail queue */
	struct ps_prom_extra extra = { "9.9.9-test", PS_ABI_VERSION, 1, progs, 2, ifaces, 2, 0,
				       false,	     false };
	struct ps_snapshot cur[2];
	struct ps_report first[2], window[2], all[2];
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int i;

	fx_fill(snaps);
	for (i = 0; i < 2; i++) {
		cur[i] = snaps[i][1];
		ps_report_init(&first[i], &snaps[i][1], NULL);
		ps_report_init(&window[i], &snaps[i][1], &snaps[i][0]);
		all[i] = window[i];
		all[i].show = PS_SHOW_ALL | PS_SHOW_ECN;
	}
	render_reports("stats.txt", ps_render_table, first, 2, 120);
	render_reports("stats-window.txt", ps_render_table, window, 2, 120);
	render_reports("stats-all.txt", ps_render_table, all, 2, 0); /* --all --ecn: wider */
	render_reports("stats-hist.txt", ps_render_hist, window, 2, 120);
	render_reports("stats.json", ps_render_json, window, 2, 0);
	render_reports("stats-latency.txt", ps_render_latency, window, 2, 120);
	render_reports("stats-heat-d2s.txt", heat_d2s, window, 2, 120);
	render_reports("stats-heat-tcp_rtt.txt", heat_tcp_rtt, first, 2, 120);

	firsthop_window(first, window);

	f = open_memstream(&text, &len);
	ps_render_prom(f, cur, 2, &extra);
	fclose(f);
	golden("metrics.prom", text, len);
	free(text);
	extra.queue_detail = PS_F_ALL;
	f = open_memstream(&text, &len);
	ps_render_prom(f, cur, 2, &extra);
	fclose(f);
	golden("metrics-queue.prom", text, len);

	/* --no-peer-metrics: the same exposition, less the peer families'
	 * lines, every one of them (the fixture has ICMP peers and TCP subnets) */
	{
		char *peerless = NULL, *want;
		size_t plen = 0, wlen;
		int dropped;

		want = without_peers(text, len, &wlen, &dropped);
		extra.no_peers = true;
		f = open_memstream(&peerless, &plen);
		ps_render_prom(f, cur, 2, &extra);
		fclose(f);
		CHECK_TRUE("the fixture exports peer families", dropped >= 6 * 2);
		CHECK_TRUE("--no-peer-metrics: no pathscope_*_peer_ line",
			   !strstr(peerless, "_peer_"));
		check_report(want && plen == wlen && memcmp(peerless, want, wlen) == 0,
			     "--no-peer-metrics: the rest unchanged",
			     "differs from the full exposition less its %d peer lines at line %d",
			     dropped, want ? first_diff_line(peerless, plen, want, wlen) : 0);
		free(want);
		free(peerless);
	}
	free(text);
	return check_exit_code();
}
