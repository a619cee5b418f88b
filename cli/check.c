// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `pathscope check IFACE`: count every layer over an interval and compare
 * (stats/check.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "lib/util.h"
#include "loader/pins.h"
#include "loader/tracepoints.h"
#include "stats/analysis/check.h"

static const char check_help[] =
    "usage: pathscope check IFACE [--duration S] [--json] [--probe-mode M]\n"
    "Count for S seconds (default 5) what each layer saw on an attached interface and\n"
    "compare the layers that must agree:\n"
    "  RX: XDP frames vs frames into GRO (net:napi_gro_receive_entry), packets into\n"
    "      the stack (net:netif_receive_skb, GRO'd skbs counted by segment), tc\n"
    "      ingress packets, the link's rx_packets and the driver's per-queue stats\n"
    "  TX: tc egress skbs vs net:net_dev_xmit, tc egress packets vs tx_packets\n"
    "A pair agrees when it differs by at most 0.1% (exactly, below 1000 packets).\n"
    "With features d2s and sock, each RX queue's median stack to socket latency over\n"
    "the interval must not be below its median driver to stack latency.\n"
    "The kernel probes are started for the interval unless the attachment has them\n"
    "(feature kernel). Exit status: 0 all agree, 3 some pair differs or a latency\n"
    "is suspect, 1 error.\n"
    "When the interval begins it prints 'pathscope: counting IFACE for S s' on\n"
    "stderr, so a script can start its workload then.\n";

enum { PROBE_MODE = PS_OPT_LONG };

static const struct ps_opt check_opts[] = {
	{ "duration", 'd', "S", "seconds to count (default 5; 0 < S <= 3600)" },
	{ "json", 'j', NULL, "one JSON object" },
	{ "probe-mode", PROBE_MODE, "tp_btf|tracepoint", "   probes started for the interval" },
	{},
};

static const char check_examples[] =
    "examples:\n"
    "  pathscope check eth1\n"
    "  pathscope check eth1 --duration 10 --json | jq '.pairs[] | select(.agree == "
    "false)'\n";

int ps_cmd_check(int argc, char **argv)
{
	static const struct ps_command cmd = {
		.about = check_help,
		.groups = { { .opts = check_opts, .col = 24 } },
		.examples = check_examples,
	};
	enum ps_probe_request mode = PS_PROBE_REQ_AUTO;
	struct ps_kernel_probes *kp = NULL;
	struct ps_check_layers before, after;
	struct ps_kern_fds fds;
	double secs = 5, t0 = 0, t1 = 0;
	bool json = false, classic, differ;
	const char *ifname;
	char dir[256];
	int c, err;

	while ((c = ps_opt_next(&cmd, argc, argv, &err)) != PS_OPT_END) {
		switch (c) {
		case PS_OPT_EXIT:
			return err;
		case 'd':
			if (!ps_parse_seconds(optarg, &secs) || secs <= 0 || secs > 3600)
				return ps_error("bad --duration '%s' (seconds, 0 < S <= 3600)",
						optarg),
				       2;
			break;
		case 'j':
			json = true;
			break;
		case PROBE_MODE:
			if (ps_opt_probe_mode(optarg, &mode))
				return 2;
			break;
		}
	}
	if (ps_operand_iface(argc, argv, &ifname))
		return 2;
	err = ps_snapshot_dir(ifname, dir, sizeof(dir));
	if (err == -ENODEV)
		return ps_cmd_unknown_iface(ifname);
	if (err)
		return ps_cmd_not_attached(ifname);
	if (ps_require_load_privileges())
		return 1;
	if (ps_kern_fds_open(dir, &fds)) {
		struct ps_meta m;

		if (ps_meta_read(dir, &m))
			return ps_error("cannot read the attachment of '%s'", ifname), 1;
		if (ps_tp_choose_mode(mode, &classic))
			return 1;
		kp = ps_kernel_probes_start(&m, classic, NULL);
		if (!kp)
			return 1;
		ps_kernel_probes_fds(kp, &fds);
	}
	ps_stop_on_signals();
	err = ps_check_read_settled(dir, &fds, &before);
	if (!err) {
		/* On stderr, so stdout stays the report (or JSON). */
		fprintf(stderr, "pathscope: counting %s for %.1f s\n", ifname, secs);
		t0 = (double)ps_now_ns(CLOCK_MONOTONIC) / 1e9;
		ps_sleep_s(secs);
		t1 = (double)ps_now_ns(CLOCK_MONOTONIC) / 1e9;
		err = ps_check_read_settled(dir, &fds, &after);
		if (err)
			ps_check_free(&before);
	}
	if (kp)
		ps_kernel_probes_stop(kp);
	else
		ps_kern_fds_close(&fds);
	if (err)
		return 1;
	differ = ps_check_report(&before, &after, t1 - t0, json);
	ps_check_free(&before);
	ps_check_free(&after);
	return differ ? 3 : 0;
}
