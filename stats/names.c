// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "names.h"

#include <stdio.h>

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
	return mode == PS_XDP_NATIVE ? "native" : mode == PS_XDP_SKB ? "skb" : "none";
}

const char *ps_tc_mode_name(__u32 mode)
{
	return mode == PS_TC_TCX ? "tcx" : mode == PS_TC_CLSACT ? "clsact" : "none";
}

void ps_features_format(__u32 features, char *buf, size_t len)
{
	static const char *const names[] = { "class", "ecn",   "sizes", "gro",
					     "icmp",  "txlat", "d2s",	"kernel" };
	size_t used = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(features & (1U << i)))
			continue;
		used += snprintf(buf + used, used < len ? len - used : 0, "%s%s", used ? "," : "",
				 names[i]);
	}
	if (!used)
		snprintf(buf, len, "none");
}
