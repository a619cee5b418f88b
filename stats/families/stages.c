// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The latency stages (stages.h), in path order: rx, tx, network, host. */
#include "stats/families/stages.h"

#include <stdio.h>
#include <string.h>

const struct ps_stage ps_stages[] = {
	{
	    .head = "RX d2s",
	    .key = "driver_to_stack",
	    .alias = "d2s",
	    .words = "driver to stack",
	    .where = "XDP to tc ingress",
	    .tx = false,
	    .feature = PS_F_D2S,
	    .on = ps_d2s_on,
	    .hist = ps_d2s_latency,
	    .json = { { "driver_to_stack", "latency_ns" } },
	},
	{
	    .head = "RX sock",
	    .key = "socket_read",
	    .alias = "sock",
	    .words = "socket read",
	    .where = "tc ingress to the application's read",
	    .tx = false,
	    .feature = PS_F_SOCK,
	    .on = ps_sock_on,
	    .hist = ps_sock_latency,
	    .json = { { "socket", "tcp", "latency_ns" }, { "socket", "udp", "latency_ns" } },
	},
	{
	    .head = "TX qdisc",
	    .key = "qdisc_sojourn",
	    .alias = "sojourn",
	    .words = "qdisc sojourn",
	    .where = "net_dev_queue to net_dev_start_xmit",
	    .tx = true,
	    .feature = PS_F_TXLAT,
	    .on = ps_txlat_on,
	    .hist = ps_txlat_sojourn,
	    .json = { { "tx_latency", "sojourn_ns" } },
	},
	{
	    .head = "TX compl",
	    .key = "tx_completion",
	    .alias = "completion",
	    .words = "TX completion",
	    .where = "net_dev_start_xmit to the skb freed",
	    .tx = true,
	    .feature = PS_F_TXLAT,
	    .on = ps_txlat_on,
	    .hist = ps_txlat_completion,
	    .json = { { "tx_latency", "completion_ns" } },
	},
	{
	    .head = "NET icmp",
	    .key = "icmp_rtt",
	    .words = "ICMP echo RTT",
	    .where = "request at tc egress to reply at XDP",
	    .tx = false,
	    .feature = PS_F_ICMP,
	    .on = ps_echo_on,
	    .hist = ps_echo_rtt,
	    .json = { { "icmp_echo", "rtt_ns" } },
	},
	{
	    .head = "NET tcp",
	    .key = "tcp_rtt",
	    .words = "TCP RTT",
	    .where = "segment at tc egress to its echo at tc ingress",
	    .tx = false,
	    .feature = PS_F_TCP,
	    .on = ps_tcp_on,
	    .hist = ps_tcp_rtt,
	    .json = { { "tcp", "rtt_ns" } },
	},
	{
	    .head = "NET hs",
	    .key = "tcp_handshake",
	    .words = "TCP handshake RTT",
	    .where = "SYN or SYN-ACK at tc egress to its answer",
	    .tx = false,
	    .feature = PS_F_TCP,
	    .on = ps_tcp_on,
	    .hist = ps_tcp_handshake,
	    .json = { { "tcp", "handshake_ns" } },
	},
	{
	    .head = "HOST icmp",
	    .key = "icmp_response",
	    .words = "ICMP echo response",
	    .where = "request at XDP to reply at tc egress",
	    .tx = false,
	    .feature = PS_F_ICMP,
	    .on = ps_echo_on,
	    .hist = ps_echo_response,
	    .json = { { "icmp_echo", "response_ns" } },
	},
	{
	    .head = "HOST data",
	    .key = "tcp_response",
	    .words = "TCP data response",
	    .where = "segment in to the data echoing it at tc egress",
	    .tx = false,
	    .feature = PS_F_TCP,
	    .on = ps_tcp_on,
	    .hist = ps_tcp_response,
	    .json = { { "tcp", "response_data_ns" } },
	},
	{
	    .head = "HOST ack",
	    .key = "tcp_ack_delay",
	    .words = "TCP ACK delay",
	    .where = "segment in to the pure ACK echoing it at tc egress",
	    .tx = false,
	    .feature = PS_F_TCP,
	    .on = ps_tcp_on,
	    .hist = ps_tcp_ack_delay,
	    .json = { { "tcp", "ack_delay_ns" } },
	},
};
const size_t ps_nstages = sizeof(ps_stages) / sizeof(ps_stages[0]);

static bool same_name(const char *want, const char *name)
{
	for (; *want && *name; want++, name++)
		if (*want != *name && !(*want == '_' && *name == '-'))
			return false;
	return !*want && !*name;
}

const struct ps_stage *ps_stage_find(const char *name)
{
	size_t k;

	for (k = 0; k < ps_nstages; k++)
		if (same_name(ps_stages[k].key, name) ||
		    (ps_stages[k].alias && same_name(ps_stages[k].alias, name)))
			return &ps_stages[k];
	return NULL;
}

void ps_stage_names(char *buf, size_t len)
{
	size_t k, at = 0;
	int w;

	buf[0] = '\0';
	for (k = 0; k < ps_nstages && at < len; k++) {
		w = snprintf(buf + at, len - at, "%s%s", k ? ", " : "", ps_stages[k].key);
		at += w > 0 ? (size_t)w : 0;
		if (ps_stages[k].alias && at < len) {
			w = snprintf(buf + at, len - at, " (%s)", ps_stages[k].alias);
			at += w > 0 ? (size_t)w : 0;
		}
	}
}

bool ps_stage_on(const struct ps_stage *st, const struct ps_snapshot *s)
{
	if (!(s->meta.features & st->feature) || !st->on(s))
		return false;
	return st->hist != ps_txlat_completion || ps_txlat_has_completion(s);
}
