// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `pathscope flows IFACE`: its options and its loop of reports; the report
 * (the flows behind each RX queue, the NIC's RSS, why a hot queue is hot, and
 * with --flow where RSS puts one flow) is stats/render/flows_report.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "lib/toeplitz.h"
#include "lib/util.h"
#include "nic/rss.h"
#include "stats/read/flow_table.h"
#include "stats/read/snapshot.h"
#include "stats/render/flows_report.h"

static const char flows_help[] =
    "usage: pathscope flows IFACE [--interval S] [--count N] [--top K] [--json]\n"
    "                       [--flow SRC DST PROTO SPORT DPORT]\n"
    "The flows behind each RX queue of IFACE (attached with --features ...,flows),\n"
    "its RSS, and a verdict for each hot queue (more than 2/n of the packets):\n"
    "  elephant  one flow carries more than half of the queue: nothing to tune\n"
    "  table     the indirection table gives it more than 1.5/n of its entries\n"
    "  fields    the NIC hashes its protocol on addresses only, not ports\n"
    "  few       fewer distinct flows than 4 x the queues\n"
    "  bytes     none of these: the flows spread and their bytes do not\n"
    "and a queue the indirection table gives no entry is named: RSS sends it nothing.\n"
    "Per queue: packets and bytes (exact) and their share, the distinct flows it\n"
    "saw since attach (HyperLogLog, +-6.5%), the flows of the interval and the\n"
    "top K with their share of the queue (sampled 1 in N frames, scaled by N:\n"
    "attach --flow-sample). Without --interval: since attach.\n";

static const struct ps_opt flows_opts[] = {
	{ "interval", 'i', "S", "over S seconds" },
	{ "count", 'c', "N", "N reports (default 1; with --count alone the interval is 1 s)" },
	{ "top", 't', "K", "flows shown per queue (default 5, at most 100)" },
	{ "json", 'j', NULL, "one JSON object per report" },
	/* Taken out of argv by take_flow, with its five values. */
	{ "flow", PS_OPT_TAKEN, "SRC DST PROTO SPORT DPORT",
	  "the queue this NIC's Toeplitz key and table predict for\n"
	  "that flow (PROTO tcp or udp), and where pathscope saw it;\n"
	  "no prediction where the hash is not Toeplitz or ntuple\n"
	  "rules steer flows" },
	{},
};

static const char flows_examples[] =
    "examples:\n"
    "  pathscope attach eth1 --features default,flows\n"
    "  pathscope flows eth1 --interval 10\n"
    "  pathscope flows eth1 --interval 5 --top 3 --json | jq '.hot'\n"
    "  pathscope flows eth1 --flow 198.18.0.1 198.18.0.2 udp 40000 9\n";

#define MAX_TOP 100

struct flow_arg {
	bool given;
	struct ps_tuple t;
	char text[160];
};

/* SRC DST PROTO SPORT DPORT of --flow into f. */
static int parse_flow(char **a, struct flow_arg *f)
{
	struct ps_tuple *t = &f->t;
	uint64_t sp, dp;
	int fam;

	memset(f, 0, sizeof(*f));
	fam = strchr(a[0], ':') ? AF_INET6 : AF_INET;
	if (inet_pton(fam, a[0], t->src) != 1 || inet_pton(fam, a[1], t->dst) != 1)
		return ps_error("bad --flow addresses '%s' '%s' (two IPv4 or two IPv6 addresses)",
				a[0], a[1]),
		       -1;
	t->family = fam == AF_INET6 ? 6 : 4;
	if (!strcmp(a[2], "tcp"))
		t->proto = IPPROTO_TCP;
	else if (!strcmp(a[2], "udp"))
		t->proto = IPPROTO_UDP;
	else
		return ps_error("bad --flow protocol '%s' (tcp or udp)", a[2]), -1;
	if (!ps_parse_u64(a[3], 65535, &sp) || !ps_parse_u64(a[4], 65535, &dp))
		return ps_error("bad --flow ports '%s' '%s' (0 to 65535)", a[3], a[4]), -1;
	t->sport = (__u16)sp;
	t->dport = (__u16)dp;
	f->given = true;
	snprintf(f->text, sizeof(f->text), "%s %s%s%s:%s > %s%s%s:%s", a[2],
		 fam == AF_INET6 ? "[" : "", a[0], fam == AF_INET6 ? "]" : "", a[3],
		 fam == AF_INET6 ? "[" : "", a[1], fam == AF_INET6 ? "]" : "", a[4]);
	return 0;
}

/* The report of cur over prev (NULL: since attach); 0 or 1. */
static int report_of(const struct ps_flows_opts *o, const struct ps_snapshot *cur,
		     const struct ps_snapshot *prev)
{
	int err = ps_flows_report(stdout, cur, prev, o);

	if (err)
		return ps_error("%s: cannot read the flows: %s", o->ifname, strerror(-err)), 1;
	return 0;
}

static int read_report(const struct ps_flows_opts *o, const char *dir,
		       const struct ps_snapshot *prev, struct ps_snapshot *cur)
{
	int err = ps_snapshot_read(dir, cur);

	if (err)
		return ps_error("%s: cannot read the attachment: %s", o->ifname, strerror(-err)), 1;
	if (report_of(o, cur, prev)) {
		ps_snapshot_free(cur);
		return 1;
	}
	return 0;
}

/* --flow takes five arguments: take them out of argv before getopt sees it. */
static int take_flow(int *argc, char **argv, struct flow_arg *f)
{
	int i, j;

	for (i = 1; i < *argc; i++) {
		if (strcmp(argv[i], "--flow") != 0)
			continue;
		if (*argc - i - 1 < 5)
			return ps_error("--flow needs SRC DST PROTO SPORT DPORT"), -1;
		if (f->given)
			return ps_error("--flow given twice"), -1;
		if (parse_flow(&argv[i + 1], f))
			return -1;
		for (j = i; j + 6 <= *argc; j++)
			argv[j] = argv[j + 6];
		*argc -= 6;
		i--;
	}
	return 0;
}

int ps_cmd_flows(int argc, char **argv)
{
	static const struct ps_command cmd = {
		.about = flows_help,
		.groups = { { .opts = flows_opts, .col = 20 } },
		.examples = flows_examples,
	};
	struct ps_flows_opts v = { .top = 5 };
	struct flow_arg flow = {};
	struct ps_snapshot prev, cur;
	struct ps_rss *rss = NULL;
	char dir[256];
	uint64_t count = 0, done, top;
	int c, rc = 0, err;

	if (take_flow(&argc, argv, &flow))
		return 2;
	while ((c = ps_opt_next(&cmd, argc, argv, &err)) != PS_OPT_END) {
		switch (c) {
		case PS_OPT_EXIT:
			return err;
		case 'i':
			if (ps_opt_seconds("interval", optarg, &v.interval_s))
				return 2;
			break;
		case 'c':
			if (ps_opt_count(optarg, &count))
				return 2;
			break;
		case 't':
			if (!ps_parse_u64(optarg, MAX_TOP, &top) || !top)
				return ps_error("bad --top '%s' (1 to %d)", optarg, MAX_TOP), 2;
			v.top = (unsigned int)top;
			break;
		case 'j':
			v.json = true;
			break;
		}
	}
	if (ps_operand_iface(argc, argv, &v.ifname))
		return 2;
	if (ps_require_privileges())
		return 1;
	err = ps_snapshot_dir(v.ifname, dir, sizeof(dir));
	if (err == -ENODEV)
		return ps_cmd_unknown_iface(v.ifname);
	if (err == -ENOENT)
		return ps_cmd_not_attached(v.ifname);
	if (err)
		return ps_error("cannot read interface '%s': %s", v.ifname, strerror(-err)), 1;
	if (count && !v.interval_s)
		v.interval_s = 1;
	if (!count)
		count = 1;
	rss = malloc(sizeof(*rss));
	if (!rss)
		return ps_error("out of memory"), 1;
	err = ps_rss_read(v.ifname, rss);
	if (err) {
		ps_rss_init(rss);
		snprintf(rss->why, sizeof(rss->why), "cannot ask: %s", strerror(-err));
	}
	v.rss = rss;
	v.flow = flow.given ? &flow.t : NULL;
	v.flow_text = flow.text;
	err = ps_snapshot_read(dir, &prev);
	if (err) {
		free(rss);
		return ps_error("%s: cannot read the attachment: %s", v.ifname, strerror(-err)), 1;
	}
	if (!ps_flows_on(&prev)) {
		ps_snapshot_free(&prev);
		free(rss);
		return ps_error("%s: feature flows is not attached (pathscope attach %s --features "
				"default,flows)",
				v.ifname, v.ifname),
		       1;
	}
	ps_stop_on_signals();
	if (!v.interval_s) {
		rc = report_of(&v, &prev, NULL);
		goto out;
	}
	for (done = 0; done < count && !ps_stop; done++) {
		ps_sleep_s(v.interval_s);
		if (ps_stop)
			break;
		if (read_report(&v, dir, &prev, &cur)) {
			rc = 1;
			break;
		}
		ps_snapshot_free(&prev);
		prev = cur;
	}
out:
	ps_snapshot_free(&prev);
	free(rss);
	return rc;
}
