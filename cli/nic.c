// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `pathscope nic IFACE`: NIC, queue and CPU facts, read-only (no attach needed). */

#include <json-c/json.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "nic/read.h"
#include "stats/render/nic_report.h"
#include "nic/rss.h"
#include "stats/render/rss_report.h"
#include "stats/render/placement_report.h"
#include "nic/softnet.h"
#include "lib/util.h"
#include "stats/format/json.h"

static const char nic_help[] =
    "usage: pathscope nic IFACE [--json]\n"
    "What the kernel knows about IFACE in this network namespace, read-only: link\n"
    "counters (stats64), channels, rings, offloads (GRO, LRO, GSO, TSO, rx-hashing),\n"
    "queues with NAPI ids and per-queue counters (netdev netlink), the driver's own\n"
    "per-queue counters of ethtool -S (packets, bytes, XDP packets, drops), RSS (hash\n"
    "function and key, indirection table per queue, hashed fields, ntuple rules), and\n"
    "where each queue runs (IRQs, affinity, RPS, XPS, NAPI, coalescing) and\n"
    "the per-CPU softnet counters. What the driver or kernel does not report is n/a (JSON\n"
    "null), with the reason. The interface need not be attached.\n";

static const struct ps_opt nic_opts[] = { { "json", 'j', NULL, "one JSON object" }, {} };

static const char nic_examples[] = "examples:\n"
				   "  pathscope nic eth0\n"
				   "  pathscope nic eth1 --json | jq '.channels, .features.gro'\n"
				   "  nsenter --net=/var/run/netns/NAME pathscope nic veth0\n";

/* The RX queues in use (channels), for RSS's entries per queue; 0: unknown. */
static __u32 rx_queues(const struct ps_nic_facts *f)
{
	const struct ps_nic_channels *c = &f->channels;

	if (!c->valid)
		return 0;
	return (__u32)((c->rx == PS_NA ? 0 : c->rx) + (c->combined == PS_NA ? 0 : c->combined));
}

static void print_json(const struct ps_nic_facts *f, const struct ps_rss *rss,
		       const struct ps_nic_placement *place, const struct ps_softnet_cpu *cpus,
		       int ncpus)
{
	json_object *o = ps_nic_json(f);

	json_object_object_add(o, "rss", ps_rss_json(rss, rx_queues(f)));
	json_object_object_add(o, "placement", place ? ps_placement_json(place) : NULL);

	json_object_object_add(o, "softnet", ncpus >= 0 ? ps_softnet_json(cpus, ncpus) : NULL);
	json_object_object_add(o, "softnet_na",
			       ncpus >= 0 ? NULL : json_object_new_string(strerror(-ncpus)));
	ps_json_print(stdout, o);
	json_object_put(o);
}

int ps_cmd_nic(int argc, char **argv)
{
	static const struct ps_command cmd = {
		.about = nic_help,
		.groups = { { .opts = nic_opts, .col = 15 } },
		.examples = nic_examples,
	};
	struct ps_softnet_cpu *cpus = NULL;
	struct ps_nic_facts f;
	struct ps_nic_placement *place;
	struct ps_rss *rss;
	bool json = false;
	const char *name;
	unsigned int ifindex;
	int c, rc, ncpus;

	while ((c = ps_opt_next(&cmd, argc, argv, &rc)) != PS_OPT_END) {
		if (c == PS_OPT_EXIT)
			return rc;
		json = true; /* 'j' */
	}
	if (ps_operand_iface(argc, argv, &name))
		return 2;
	ifindex = strlen(name) < IF_NAMESIZE ? if_nametoindex(name) : 0;
	if (!ifindex)
		return ps_error_unknown_iface(name), 1;
	if (ps_nic_read((int)ifindex, &f))
		return 1;

	rss = malloc(sizeof(*rss));
	if (!rss) {
		ps_nic_free(&f);
		return ps_error("out of memory"), 1;
	}
	rc = ps_rss_read(name, rss);
	if (rc < 0) /* the interface went away, or no socket */
		snprintf(rss->why, sizeof(rss->why), "%s", strerror(-rc));
	ncpus = ps_softnet_read(&cpus);
	place = malloc(sizeof(*place));
	if (place && ps_nic_read_placement("", name, place)) {
		free(place);
		place = NULL;
	}
	if (place)
		ps_nic_read_placement_nl((int)ifindex, PS_NIC_PLACE_COALESCE | PS_NIC_PLACE_NAPI,
					 place);
	if (json) {
		print_json(&f, rss, place, cpus, ncpus);
	} else {
		ps_nic_print(stdout, &f);
		ps_rss_print(stdout, rss, rx_queues(&f));
		if (place)
			ps_placement_print(stdout, place);
		if (ncpus >= 0)
			ps_softnet_print(stdout, cpus, ncpus);
		else
			printf("softnet:  n/a (/proc/net/softnet_stat: %s)\n", strerror(-ncpus));
	}
	free(cpus);
	free(place);
	free(rss);
	ps_nic_free(&f);
	return 0;
}
