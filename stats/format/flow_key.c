// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* One flow as text and as JSON (flow_key.h). */
#include "stats/format/flow_key.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>

#include "stats/format/json.h"

const char *ps_flow_proto_name(__u8 proto, char *buf, size_t len)
{
	switch (proto) {
	case IPPROTO_TCP:
		return "tcp";
	case IPPROTO_UDP:
		return "udp";
	case IPPROTO_ICMP:
		return "icmp";
	case IPPROTO_ICMPV6:
		return "icmpv6";
	case IPPROTO_FRAGMENT:
		return "frag";
	}
	snprintf(buf, len, "ip%u", proto);
	return buf;
}

static bool is_ip(const struct ps_flow_key *k)
{
	return k->family == 4 || k->family == 6;
}

bool ps_flow_has_ports(const struct ps_flow_key *k)
{
	return is_ip(k) && (k->proto == IPPROTO_TCP || k->proto == IPPROTO_UDP) &&
	       (k->sport || k->dport);
}

static void addr_text(const struct ps_flow_key *k, const __u8 *a, char *buf, size_t len)
{
	if (!inet_ntop(k->family == 6 ? AF_INET6 : AF_INET, a, buf, (socklen_t)len))
		snprintf(buf, len, "?");
}

static __u16 ethertype(const struct ps_flow_key *k)
{
	if (k->family == 4)
		return 0x0800;
	if (k->family == 6)
		return 0x86dd;
	return ntohs(k->ethertype);
}

void ps_flow_text(const struct ps_flow_key *k, char *buf, size_t len)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN], p[8];
	const char *pn;

	if (!is_ip(k)) {
		snprintf(buf, len, "ethertype 0x%04x", ethertype(k));
		return;
	}
	addr_text(k, k->saddr, s, sizeof(s));
	addr_text(k, k->daddr, d, sizeof(d));
	pn = ps_flow_proto_name(k->proto, p, sizeof(p));
	if (ps_flow_has_ports(k))
		snprintf(buf, len, k->family == 6 ? "%s [%s]:%u > [%s]:%u" : "%s %s:%u > %s:%u", pn,
			 s, ntohs(k->sport), d, ntohs(k->dport));
	else
		snprintf(buf, len, "%s %s > %s", pn, s, d);
}

json_object *ps_flow_json(const struct ps_flow_row *f)
{
	const struct ps_flow_key *k = &f->key;
	json_object *o = json_object_new_object();
	char a[INET6_ADDRSTRLEN], p[8];
	bool ip = is_ip(k), ports = ps_flow_has_ports(k);

	addr_text(k, k->saddr, a, sizeof(a));
	json_object_object_add(o, "src", ip ? json_object_new_string(a) : NULL);
	addr_text(k, k->daddr, a, sizeof(a));
	json_object_object_add(o, "dst", ip ? json_object_new_string(a) : NULL);
	json_object_object_add(
	    o, "proto",
	    ip ? json_object_new_string(ps_flow_proto_name(k->proto, p, sizeof(p))) : NULL);
	json_object_object_add(o, "sport", ports ? json_object_new_int(ntohs(k->sport)) : NULL);
	json_object_object_add(o, "dport", ports ? json_object_new_int(ntohs(k->dport)) : NULL);
	snprintf(p, sizeof(p), "0x%04x", ethertype(k));
	json_object_object_add(o, "ethertype", json_object_new_string(p));
	ps_json_add_u64(o, "packets", f->packets);
	ps_json_add_u64(o, "bytes", f->bytes);
	return o;
}
