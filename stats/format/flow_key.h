/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* One flow as text and as JSON: the one encoding that stats (table and
 * JSON), serve --jsonl and `pathscope flows` share; the JSON object is
 * FLOW in pathscope-json(7). */
#ifndef PATHSCOPE_STATS_FORMAT_FLOW_KEY_H
#define PATHSCOPE_STATS_FORMAT_FLOW_KEY_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "pathscope/abi.h"
#include "stats/read/flow_table.h"

/* "tcp", "udp", "icmp", "icmpv6", "frag" (an IPv6 fragment after the
 * first), else "ip" and the number ("ip47"), written into buf. */
const char *ps_flow_proto_name(__u8 proto, char *buf, size_t len);

/* The key has ports: TCP or UDP, and not an IPv4 fragment after the first
 * (whose ports are not in the frame: both 0). */
bool ps_flow_has_ports(const struct ps_flow_key *k);

/* "udp 10.0.0.2:40000 > 10.0.0.1:4789", "tcp [2001:db8::2]:443 >
 * [2001:db8::1]:50000", "ip47 10.0.0.2 > 10.0.0.1", "ethertype 0x0806". */
void ps_flow_text(const struct ps_flow_key *k, char *buf, size_t len);

/* {"src", "dst", "proto", "sport", "dport", "ethertype", "packets", "bytes"}:
 * addresses and proto null without an IP header, ports null where
 * ps_flow_has_ports is false, ethertype "0x0800", "0x86dd" or the frame's
 * (e.g. "0x0806"). */
json_object *ps_flow_json(const struct ps_flow_row *f);

#endif /* PATHSCOPE_STATS_FORMAT_FLOW_KEY_H */
