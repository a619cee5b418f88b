// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer: every netlink reply parser (link stats, ethtool channels, rings
 * and features, netdev queues and qstats, qdiscs) on any datagram. The first
 * byte picks the parser; the rest is the datagram as received. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nic/read.h"
#include "nic/parse.h"
#include "nic/qdisc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_nic_facts f;
	struct ps_qdiscs qs = { .ifindex = 2, .root = -1 };
	void *buf;

	if (size < 1)
		return 0;
	/* A copy of exactly the datagram's size, aligned as the kernel's are,
	 * so a read past its end is caught. */
	buf = malloc(size - 1 ? size - 1 : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	ps_nic_init(&f, 2);
	switch (data[0] % 7) {
	case 0:
		ps_nic_parse_link(buf, size - 1, &f);
		break;
	case 1:
		ps_nic_parse_channels(buf, size - 1, &f.channels);
		break;
	case 2:
		ps_nic_parse_rings(buf, size - 1, &f.rings);
		break;
	case 3:
		ps_nic_parse_features(buf, size - 1, &f.features);
		break;
	case 4:
		ps_nic_parse_queues(buf, size - 1, 2, &f.queues);
		break;
	case 5:
		ps_nic_parse_qstats(buf, size - 1, 2, &f.queues);
		break;
	case 6:
		ps_qdisc_parse(buf, size - 1, &qs);
		ps_qdisc_link(&qs);
		ps_qdisc_of_txq(&qs, 0);
		break;
	}
	ps_nic_free(&f);
	ps_qdisc_free(&qs);
	free(buf);
	return 0;
}
