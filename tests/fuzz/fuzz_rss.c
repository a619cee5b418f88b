// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer: the RSS reply parsers of nic/rss.c on any input, then the JSON and the
 * table of what was parsed, and a prediction for a TCP and a UDP flow. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nic/rss.h"
#include "stats/render/rss_report.h"

/* The first byte's low bit picks ETHTOOL_MSG_RSS_GET's reply datagram (0) or
 * ETHTOOL_GRSSH's struct ethtool_rxfh (1); the rest is the reply. Then the JSON
 * and the table of what was parsed, and a prediction for a TCP and a UDP flow
 * under the fields the next 16 bytes give (4 x RXH_* bits). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ps_rss r;
	struct ps_tuple t = { .family = 4, .src = { 198, 18, 0, 1 }, .dst = { 198, 18, 0, 2 } };
	const char *why;
	__u32 q, h;
	void *buf;
	FILE *null;
	int i;

	if (size < 1)
		return 0;
	/* exactly the reply's size, so a read past its end is caught */
	buf = malloc(size - 1 ? size - 1 : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	ps_rss_init(&r);
	if (data[0] & 1)
		ps_rss_parse_rxfh(buf, size - 1, &r);
	else
		ps_rss_parse_netlink(buf, size - 1, &r);
	for (i = 0; i < PS_RSS_NFLOW; i++)
		r.fields[i] = PS_RSS_FIELDS_NA;
	if (size >= 1 + sizeof(r.fields))
		memcpy(r.fields, data + 1, sizeof(r.fields));
	r.have_fields = true;
	r.ntuple_rules = (data[0] >> 1) % 3 - 1;
	json_object_put(ps_rss_json(&r, data[0] >> 4));
	null = fopen("/dev/null", "w");
	if (null) {
		ps_rss_print(null, &r, data[0] >> 4);
		fclose(null);
	}
	for (t.proto = 6; t.proto <= 17; t.proto += 11)
		if (ps_rss_predict(&r, &t, &q, &h, &why) == 0 && q > PS_RSS_MAX_QUEUE)
			abort(); /* a queue that no table entry can be */
	free(buf);
	return 0;
}
