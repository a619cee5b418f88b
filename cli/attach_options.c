// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The options of `pathscope attach`, which `pathscope serve` takes too: their
 * table with their help, their values and their combinations, checked before
 * anything is touched. */
#include <stdio.h>
#include <string.h>

#include "cli/attach_options.h"
#include "cli/options.h"
#include "lib/names.h"
#include "lib/queues.h"
#include "lib/util.h"
#include "loader/xdp_chain.h"

_Static_assert(PS_FLOW_SAMPLE_MAX == 65536, "bad --flow-sample's message says 65536");
_Static_assert(PS_FH_SIRQ_MAX == 65536, "bad --softirq-sample's message says 65536");

#define PS_STR_(x) #x
#define PS_STR(x)  PS_STR_(x)

/* clang-format off: it would break the strings' lines */
const struct ps_opt ps_attach_opts[] = {
	{ "queues", 'q', "LIST", "measure only these queues, e.g. 0-3,7 (default: all)" },
	{ "features", 'f', "LIST",
	  "class,ecn,sizes,gro,icmp,d2s,tcp,sock,txlat,kernel,\n"
	  "flows,firsthop | default | all | none (default: all\n"
	  "but tcp and flows, for their cost per packet and\n"
	  "their maps, and sock, txlat, kernel and firsthop,\n"
	  "which run on tracepoints of every packet, socket\n"
	  "read, IRQ or softirq of the host); none:\n"
	  "packets and bytes only, which are always counted" },
	{ "xdp-mode", PS_ATTACH_XDP_MODE, "native|skb",
	  "default: native where the driver has it, else skb" },
	{ "tc-mode", PS_ATTACH_TC_MODE, "tcx|clsact",
	  "default: tcx where the kernel has it, else clsact" },
	{ "tc-prio", PS_ATTACH_TC_PRIO, "N",
	  "clsact filter priority, 1..65535 (default " PS_STR(PS_TC_DEFAULT_PRIO) ")" },
	{ "sample", PS_ATTACH_SAMPLE, "N",
	  "txlat: time 1 in N transmitted skbs, 1..1048576\n"
	  "(default 1: all)" },
	{ "peer-prefix", PS_ATTACH_PEER_PREFIX, "V4,V6",
	  "tcp: peers are counted by subnet, the remote address's\n"
	  "first V4 (0..32) or V6 (0..128) bits (default 24,48)" },
	{ "tcp-rx", PS_ATTACH_TCP_RX, "tc|xdp",
	  "tcp: match arriving segments at tc ingress after GRO,\n"
	  "once per skb (default), or at XDP, every frame: the\n"
	  "driver's arrival time, at a higher cost per packet" },
	{ "flow-sample", PS_ATTACH_FLOW_SAMPLE, "N",
	  "flows: sample 1 in N frames at XDP, 1..65536; counts\n"
	  "are scaled by N (default " PS_STR(
	      PS_FLOW_SAMPLE_DEFAULT) "; 1: every frame, exact\n"
				      "while the flows fit the table of 16384)" },
	{ "softirq-sample", PS_ATTACH_SOFTIRQ_SAMPLE, "N",
	  "firsthop: time the NET_RX softirq wait of 1 in N\n"
	  "runs per CPU, 1..65536 (default " PS_STR(
	      PS_FH_SIRQ_DEFAULT) "; 1: every\n"
				  "run); runs and polls are all counted" },
	{ "probe-mode", PS_ATTACH_PROBE_MODE, "tp_btf|tracepoint",
	  "  tracepoint programs of txlat, kernel, sock and\n"
	  "firsthop (default: tp_btf where the kernel has\n"
	  "it, else classic tracepoints)" },
	{ "no-xdp", PS_ATTACH_NO_XDP, NULL, "leave out the driver-ingress or the tc programs" },
	{ "no-tc", PS_ATTACH_NO_TC, NULL, "" },
	{ "xdp-chain", PS_ATTACH_XDP_CHAIN, NULL,
	  "another XDP program runs on the interface: put\n"
	  "pathscope in front of it and tail-call it (its\n"
	  "verdicts unchanged; detach puts it back)" },
	{ "xdp-join", PS_ATTACH_XDP_JOIN, "ARRAY:SLOT",
	  "join the pinned root program array of a balancer at an\n"
	  "empty SLOT; pathscope tail-calls the slots after it" },
	{},
};
/* clang-format on */

int ps_attach_opt(int c, const char *arg, struct ps_attach_opts *o)
{
	uint64_t num;

	switch (c) {
	case 'q':
		o->queues = arg;
		return 0;
	case 'f':
		return ps_features_parse(arg, &o->features) ? 2 : 0;
	case PS_ATTACH_XDP_MODE:
		if (strcmp(arg, "native") == 0)
			o->xdp_mode = PS_XDP_REQ_NATIVE;
		else if (strcmp(arg, "skb") == 0 || strcmp(arg, "generic") == 0)
			o->xdp_mode = PS_XDP_REQ_SKB;
		else
			return ps_error("bad --xdp-mode '%s' (native or skb)", arg), 2;
		return 0;
	case PS_ATTACH_TC_MODE:
		if (strcmp(arg, "tcx") == 0)
			o->tc_mode = PS_TC_REQ_TCX;
		else if (strcmp(arg, "clsact") == 0)
			o->tc_mode = PS_TC_REQ_CLSACT;
		else
			return ps_error("bad --tc-mode '%s' (tcx or clsact)", arg), 2;
		return 0;
	case PS_ATTACH_TC_PRIO:
		if (!ps_parse_u64(arg, 0xffff, &num) || num == 0)
			return ps_error("bad --tc-prio '%s' (1..65535)", arg), 2;
		o->tc_prio = (unsigned int)num;
		return 0;
	case PS_ATTACH_PROBE_MODE:
		return ps_opt_probe_mode(arg, &o->probe_mode);
	case PS_ATTACH_SAMPLE:
		if (!ps_parse_u64(arg, 1U << 20, &num) || num == 0)
			return ps_error("bad --sample '%s' (1..1048576)", arg), 2;
		o->tx_sample_every = (unsigned int)num;
		return 0;
	case PS_ATTACH_NO_XDP:
		o->no_xdp = true;
		return 0;
	case PS_ATTACH_NO_TC:
		o->no_tc = true;
		return 0;
	case PS_ATTACH_XDP_CHAIN:
		o->xdp_chain = true;
		return 0;
	case PS_ATTACH_XDP_JOIN:
		o->xdp_join = arg;
		return 0;
	case PS_ATTACH_TCP_RX:
		if (strcmp(arg, "xdp") == 0)
			o->tcp_rx_xdp = true;
		else if (strcmp(arg, "tc") == 0)
			o->tcp_rx_xdp = false;
		else
			return ps_error("bad --tcp-rx '%s' (tc or xdp)", arg), 2;
		return 0;
	case PS_ATTACH_FLOW_SAMPLE:
		if (!ps_parse_u64(arg, PS_FLOW_SAMPLE_MAX, &num) || num == 0)
			return ps_error("bad --flow-sample '%s' (1..65536)", arg), 2;
		o->flow_sample = (unsigned int)num;
		return 0;
	case PS_ATTACH_SOFTIRQ_SAMPLE:
		if (!ps_parse_u64(arg, PS_FH_SIRQ_MAX, &num) || num == 0)
			return ps_error("bad --softirq-sample '%s' (1..65536)", arg), 2;
		o->softirq_sample = (unsigned int)num;
		return 0;
	case PS_ATTACH_PEER_PREFIX:
		if (!ps_parse_prefixes(arg, &o->peer_prefix4, &o->peer_prefix6))
			return ps_error("bad --peer-prefix '%s' (V4,V6: 0..32,0..128, e.g. 24,48)",
					arg),
			       2;
		o->peer_prefix_set = true;
		return 0;
	}
	return 1;
}

int ps_attach_opts_check(const char *cmd, const struct ps_attach_opts *o)
{
	__u64 mask[PS_QMASK_WORDS];
	struct ps_meta scratch;
	char err[160];

	/* The list's form now; its queues against the interface's at attach. */
	if (o->queues && ps_queues_parse(o->queues, PS_MAX_QUEUES, mask, err, sizeof(err)))
		return ps_error("%s", err), 2;
	if (o->xdp_join && ps_xdp_join_parse(o->xdp_join, &scratch))
		return 2;
	if (o->no_xdp && o->no_tc)
		return ps_error("%s: --no-xdp and --no-tc leave nothing to attach", cmd), 2;
	if (o->no_tc && (o->features & PS_F_SOCK))
		return ps_error("%s: feature sock samples at tc ingress: not with --no-tc", cmd), 2;
	if (o->no_tc && (o->features & PS_F_TCP))
		return ps_error("%s: feature tcp samples at tc egress: not with --no-tc", cmd), 2;
	if (o->tcp_rx_xdp && (o->no_xdp || !(o->features & PS_F_TCP)))
		return ps_error("%s: --tcp-rx xdp needs feature tcp and the XDP program", cmd), 2;
	if (o->flow_sample && !(o->features & PS_F_FLOWS))
		return ps_error("%s: --flow-sample needs feature flows", cmd), 2;
	if (o->softirq_sample && !(o->features & PS_F_FIRSTHOP))
		return ps_error("%s: --softirq-sample needs feature firsthop", cmd), 2;
	if ((o->features & PS_F_FLOWS) && o->no_xdp)
		return ps_error("%s: feature flows counts at XDP: not with --no-xdp", cmd), 2;
	if ((o->xdp_chain || o->xdp_join) && (o->no_xdp || o->xdp_mode != PS_XDP_REQ_AUTO))
		return ps_error("%s: --xdp-chain and --xdp-join take the XDP mode of the program "
				"they chain to; no --no-xdp or --xdp-mode with them",
				cmd),
		       2;
	if (o->xdp_chain && o->xdp_join)
		return ps_error("%s: --xdp-chain or --xdp-join, not both", cmd), 2;
	return 0;
}
