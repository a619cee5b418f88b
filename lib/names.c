// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Names of the ABI's ids, as tables, JSON and --features show them (names.h). */
#include "lib/names.h"

#include <stdio.h>
#include <string.h>

#include "lib/util.h"

const char *const ps_l3_names[PS_L3_COUNT] = {
	[PS_L3_IPV4] = "ipv4",	 [PS_L3_IPV6] = "ipv6",		  [PS_L3_ARP] = "arp",
	[PS_L3_OTHER] = "other", [PS_L3_MALFORMED] = "malformed",
};

const char *const ps_l4_names[PS_L4_COUNT] = {
	[PS_L4_TCP] = "tcp",
	[PS_L4_UDP] = "udp",
	[PS_L4_ICMP] = "icmp",
	[PS_L4_ICMPV6] = "icmpv6",
	[PS_L4_FRAGMENT] = "fragment",
	[PS_L4_OTHER] = "other",
	[PS_L4_MALFORMED] = "malformed",
};

const char *const ps_err_names[PS_ERR_COUNT] = {
	[PS_ERR_L2_TRUNC] = "l2_truncated",   [PS_ERR_VLAN_DEPTH] = "vlan_depth",
	[PS_ERR_L3_TRUNC] = "l3_truncated",   [PS_ERR_BAD_VERSION] = "bad_version",
	[PS_ERR_BAD_IHL] = "bad_ihl",	      [PS_ERR_BAD_LEN] = "bad_length",
	[PS_ERR_EXT_TRUNC] = "ext_truncated", [PS_ERR_EXT_DEPTH] = "ext_depth",
	[PS_ERR_L4_TRUNC] = "l4_truncated",
};

const char *const ps_ecn_names[PS_ECN_COUNT] = {
	[PS_ECN_NOT_ECT] = "not_ect",
	[PS_ECN_ECT1] = "ect1",
	[PS_ECN_ECT0] = "ect0",
	[PS_ECN_CE] = "ce",
};

const char *const ps_ipver_names[PS_IPVER_COUNT] = { [PS_IPV4] = "ipv4", [PS_IPV6] = "ipv6" };

const char *const ps_hook_names[PS_HOOK_COUNT] = {
	[PS_HOOK_XDP] = "xdp",
	[PS_HOOK_TC_INGRESS] = "tc_ingress",
	[PS_HOOK_TC_EGRESS] = "tc_egress",
};

const char *const ps_hook_dirs[PS_HOOK_COUNT] = {
	[PS_HOOK_XDP] = "rx",
	[PS_HOOK_TC_INGRESS] = "rx",
	[PS_HOOK_TC_EGRESS] = "tx",
};

const char *ps_xdp_mode_name(__u32 mode)
{
	switch (mode) {
	case PS_XDP_NATIVE:
		return "native";
	case PS_XDP_SKB:
		return "skb";
	case PS_XDP_CHAIN:
		return "chain";
	case PS_XDP_JOIN:
		return "join";
	}
	return "none";
}

const char *ps_tc_mode_name(__u32 mode)
{
	return mode == PS_TC_TCX ? "tcx" : mode == PS_TC_CLSACT ? "clsact" : "none";
}

/* Feature bit i is named feature_names[i]. */
static const char *const feature_names[] = {
	"class", "ecn",	   "sizes", "gro",  "icmp",  "txlat",
	"d2s",	 "kernel", "tcp",   "sock", "flows", "firsthop"
};
#define NFEATURES (sizeof(feature_names) / sizeof(feature_names[0]))

int ps_features_parse(const char *list, __u32 *out)
{
	char buf[256], *tok, *save = NULL;
	unsigned int i;

	size_t len = strlen(list);
	bool none = false, others = false;

	if (len >= sizeof(buf))
		return ps_error("bad feature list: too long");
	if (len == 0 || list[0] == ',' || list[len - 1] == ',' || strstr(list, ",,"))
		return ps_error("bad feature list '%s': an empty name (none: packets and bytes "
				"only)",
				list);
	snprintf(buf, sizeof(buf), "%s", list);
	*out = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "none") == 0)
			none = true;
		else
			others = true;
		if (none && others)
			return ps_error("bad feature list '%s': none stands alone", list);
		if (strcmp(tok, "default") == 0) {
			*out |= PS_F_DEFAULT;
			continue;
		}
		if (strcmp(tok, "all") == 0) {
			*out |= PS_F_ALL;
			continue;
		}
		if (strcmp(tok, "none") == 0)
			continue;
		for (i = 0; i < NFEATURES; i++)
			if (strcmp(tok, feature_names[i]) == 0)
				break;
		if (i == NFEATURES)
			return ps_error(
			    "unknown feature '%s' (known: class, ecn, sizes, gro, icmp, "
			    "txlat, d2s, kernel, tcp, sock, flows, firsthop, default, all, none)",
			    tok);
		*out |= 1U << i;
	}
	return 0;
}

void ps_features_format(__u32 features, char *buf, size_t len)
{
	const char *const *names = feature_names;
	size_t used = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < NFEATURES; i++) {
		if (!(features & (1U << i)))
			continue;
		used += snprintf(buf + used, used < len ? len - used : 0, "%s%s", used ? "," : "",
				 names[i]);
	}
	if (!used)
		snprintf(buf, len, "none");
}

const char *ps_probe_mode_name(const struct ps_meta *m)
{
	if (!(m->features & (PS_F_TXLAT | PS_F_KERNEL | PS_F_SOCK)))
		return "none";
	return (m->flags & PS_META_TRACEPOINTS) ? "tracepoint" : "tp_btf";
}
