// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer: the ethtool -S name mapping (nic/ethtool_stats.c) on any names and values,
 * then the driver's view of every queue found, and the JSON and table of the facts. */
#include <linux/ethtool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nic/read.h"
#include "stats/render/nic_report.h"
#include "nic/parse.h"

/* The first byte's low bit says whether there is one value per name or one
 * fewer (a set that changed between the reads); the rest is N names of
 * ETH_GSTRING_LEN bytes, then their N 64-bit values. Then the driver's view of
 * every queue found, and the JSON and table of the facts. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_nic_driver_queue d;
	struct ps_nic_facts f;
	size_t n, nvals, i;
	char *names;
	__u64 *vals;
	FILE *null;

	if (size < 1)
		return 0;
	n = (size - 1) / (ETH_GSTRING_LEN + sizeof(__u64));
	nvals = (data[0] & 1) || !n ? n : n - 1;
	/* exactly their sizes, so a read past either end is caught */
	names = malloc(n ? n * ETH_GSTRING_LEN : 1);
	vals = malloc(n ? n * sizeof(__u64) : 1);
	if (!names || !vals)
		goto out;
	memcpy(names, data + 1, n * ETH_GSTRING_LEN);
	memcpy(vals, data + 1 + n * ETH_GSTRING_LEN, n * sizeof(__u64));
	ps_nic_init(&f, 2);
	ps_nic_parse_estats(names, n, vals, nvals, &f.estats);
	for (i = 0; i < f.estats.n; i++)
		ps_nic_driver_queue(&f, f.estats.q[i].type, f.estats.q[i].id, &d);
	json_object_put(ps_nic_json(&f));
	null = fopen("/dev/null", "w");
	if (null) {
		ps_nic_print(null, &f);
		fclose(null);
	}
	ps_nic_free(&f);
out:
	free(names);
	free(vals);
	return 0;
}
