// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Sanity of a pinned struct ps_meta: strings terminated, enums, bits and
 * counts within what the loader writes (see loader/attach.c). */
#include "loader/meta_check.h"

#include <string.h>

#include "pathscope/abi.h"

#define PS_META_FLAGS_KNOWN                                                                    \
	(PS_META_CREATED_CLSACT | PS_META_NO_COMPLETION | PS_META_TRACEPOINTS |                \
	 PS_META_ATTACHING | PS_META_TCP_RX_XDP | PS_META_MADE_LIBXDP_DIR | PS_META_BY_SERVE | \
	 PS_META_RX_HASH)

static int terminated(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

const char *ps_meta_problem(const struct ps_meta *m)
{
	if (m->abi_version != PS_ABI_VERSION)
		return "written by another pathscope version";
	if (!terminated(m->ifname, sizeof(m->ifname)) || !m->ifname[0])
		return "interface name missing or not terminated";
	if (!terminated(m->join_path, sizeof(m->join_path)))
		return "join path not terminated";
	if ((int)m->ifindex <= 0)
		return "ifindex out of range";
	if (m->nqueues < 1 || m->nqueues > PS_MAX_QUEUES)
		return "queue count out of range";
	if (m->features & ~(__u32)PS_F_ALL)
		return "unknown feature bits";
	if (m->flags & ~(__u32)PS_META_FLAGS_KNOWN)
		return "unknown flag bits";
	if (m->xdp_mode > PS_XDP_JOIN || m->tc_mode > PS_TC_CLSACT)
		return "unknown attach mode";
	if (m->all_queues > 1)
		return "all_queues is not 0 or 1";
	if (m->rx_queue_base > PS_MAX_QUEUES)
		return "rx queue base out of range";
	if (m->rx_queues_at_attach > m->nqueues || m->tx_queues_at_attach > m->nqueues)
		return "queues in use beyond the queue count";
	if (m->tx_sample_every < 1)
		return "tx sample rate 0";
	if (m->softirq_sample > PS_FH_SIRQ_MAX) /* 0: the readers take 1 */
		return "softirq sample rate out of range";
	if (m->tcp_prefix4 > 32 || m->tcp_prefix6 > 128)
		return "peer prefix length out of range";
	return NULL;
}
