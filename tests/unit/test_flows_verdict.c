// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The hot-queue verdict of `pathscope flows` (stats/analysis/flows_verdict.c): which
 * queue is hot (more than 2/n of the packets, not 2/n itself), and which cause holds,
 * in the order, with the figures behind it. */
#include <arpa/inet.h>
#include <linux/ethtool.h>

#include "tests/lib/check.h"
#include "stats/analysis/flows_verdict.h"
#include "stats/analysis/hot_queue.h"

/* The verdict's input from the flows and the RSS (hot_queue.c): a queue's
 * main protocol by packets, whether the NIC hashes it on addresses only
 * (its fields, else the RX hash types), its top flow, its table entries. */
static void input(void)
{
	static struct ps_rss rss;
	struct ps_flow_row rows[3] = {};
	struct ps_flows_q qs[2] = {};
	struct ps_hot_queue h[2];
	__u32 entries[2] = { 100, 28 };

	ps_rss_init(&rss);
	rows[0].key.family = 4, rows[0].key.proto = 17, rows[0].packets = 70;
	rows[1].key.family = 6, rows[1].key.proto = 6, rows[1].packets = 50;
	rows[1].key.sport = htons(443), rows[1].key.dport = htons(50000);
	inet_pton(AF_INET6, "2001:db8::2", rows[1].key.saddr);
	inet_pton(AF_INET6, "2001:db8::1", rows[1].key.daddr);
	rows[2].key.family = 6, rows[2].key.proto = 6, rows[2].packets = 40;
	qs[0] = (struct ps_flows_q){
		.packets = 60, .bytes = 6000, .distinct = 3, .nflows = 3, .flows = rows
	};
	qs[1] = (struct ps_flows_q){ .queue = 1, .packets = 10, .rx_hash = true, .rx_hash_l3 = 4 };
	ps_hot_input(qs, 2, &rss, entries, h);
	CHECK_STR("queue 0: tcp6 (90 packets) over udp4 (70)", h[0].proto ? h[0].proto : "-",
		  "tcp6");
	CHECK_EQ_U64("queue 0: its top flow, at most the queue's packets", h[0].top_packets, 60);
	CHECK_EQ_U64("queue 0: its second flow", h[0].second_packets, 50);
	CHECK_STR(
	    "queue 0: the second flow's ntuple match", h[0].steer,
	    "flow-type tcp6 src-ip 2001:db8::2 dst-ip 2001:db8::1 src-port 443 dst-port 50000");
	CHECK_STR("queue 1: no second flow, no match", h[1].steer, "");
	CHECK_TRUE("no table, no fields: entries 0, l3_only unknown",
		   h[0].entries == 0 && h[0].table_entries == 0 && h[0].l3_only == -1);
	CHECK_TRUE("queue 1: no TCP or UDP flow: no protocol, l3_only unknown",
		   !h[1].proto && h[1].l3_only == -1);
	rss.have_table = true;
	rss.table_size = 128;
	rss.have_fields = true;
	rss.fields[PS_RSS_TCP6] = RXH_IP_SRC | RXH_IP_DST;
	ps_hot_input(qs, 2, &rss, entries, h);
	CHECK_TRUE("the table: queue 0's 100 of 128 entries",
		   h[0].entries == 100 && h[0].table_entries == 128);
	CHECK_EQ_U64("tcp6 hashed on addresses: l3_only 1", h[0].l3_only, 1);
	rss.fields[PS_RSS_TCP6] = PS_RSS_FIELDS_NA;
	qs[0].rx_hash = true;
	qs[0].rx_hash_l4 = 9;
	ps_hot_input(qs, 2, &rss, entries, h);
	CHECK_EQ_U64("fields unknown, L4 RX hash types: l3_only 0", h[0].l3_only, 0);
}

/* Four queues, 1000 packets each, 100 flows each, no top flow to speak of,
 * a table of 128 entries spread evenly, ports hashed. */
static void even(struct ps_hot_queue q[4])
{
	unsigned int i;

	for (i = 0; i < 4; i++)
		q[i] = (struct ps_hot_queue){ .queue = i,
					      .packets = 1000,
					      .bytes = 1000 * 100,
					      .top_packets = 20,
					      .distinct = 100,
					      .l3_only = 0,
					      .proto = "udp4",
					      .entries = 32,
					      .table_entries = 128 };
}

static void verdict(struct ps_hot_queue q[4], unsigned int i, const char *want, const char *name)
{
	struct ps_hot_verdict v;
	int rc = ps_hot_verdict(q, 4, i, &v);

	check_report(rc == 1 && !strcmp(ps_hot_cause_name(v.cause), want), name, "%s (rc %d)",
		     rc == 1 ? ps_hot_cause_name(v.cause) : "not hot", rc);
}

/* The causes checked: two flows each over a fair share (collision, with the
 * rule that steers the second apart), one flow alone over 2/n (elephant; not
 * within its sampling error at 1 in 16), the indirection table (more than 1.5/n
 * of its entries, not 1.5/n), hashed fields of addresses only, fewer distinct
 * flows than 4 x the queues, else the bytes. */
int main(void)
{
	struct ps_hot_queue q[4];
	struct ps_hot_verdict v;
	unsigned int i, hot = 0;

	even(q);
	for (i = 0; i < 4; i++)
		hot += ps_hot(q, 4, i);
	check_report(hot == 0, "four even queues: none hot", "%u hot", hot);

	/* 2/n exactly is not hot: 2000 of 4000 on 4 queues is 50%, not > 50%. */
	even(q);
	q[0].packets = 2000;
	q[1].packets = q[2].packets = 500;
	q[3].packets = 1000;
	check_report(!ps_hot(q, 4, 0), "a share of exactly 2/n: not hot", "hot");
	q[0].packets = 2001;
	check_report(ps_hot(q, 4, 0), "a share just above 2/n: hot", "not hot");
	check_report(ps_hot_verdict(q, 4, 1, &v) == 0, "a cold queue: no verdict", "a verdict");

	/* The elephant: one flow alone over 2/n of all (2000.5 of 4001). */
	q[0].top_packets = 2001;
	verdict(q, 0, "elephant", "its top flow alone over 2/n of the interface: elephant");
	ps_hot_verdict(q, 4, 0, &v);
	check_report(strstr(v.why[PS_HOT_ELEPHANT], "alone carries 50% of the interface") != NULL,
		     "... the figure behind it: the top flow's share of the interface", "%s",
		     v.why[PS_HOT_ELEPHANT]);
	q[0].sample = 16; /* 2001 sampled 1 in 16: sd sqrt(2001 x 15) = 173 */
	verdict(q, 0, "bytes",
		"the same at 1 in 16 sampled: within its sampling error, no verdict");
	q[0].sample = 1;
	q[0].top_packets = 2000;
	verdict(q, 0, "bytes", "its top flow just under 2/n of the interface: not an elephant");
	/* The collision: two flows each over a fair share (1000.25 of 4001). */
	q[0].top_packets = 1001;
	q[0].second_packets = 1001;
	snprintf(q[0].steer, sizeof(q[0].steer), "flow-type udp4 src-ip 198.18.0.1");
	verdict(q, 0, "collision", "its top two flows each over 1/n of the interface: collision");
	ps_hot_verdict(q, 4, 0, &v);
	check_report(v.steer_to == 1 && !strcmp(v.steer, q[0].steer) && !v.holds[PS_HOT_ELEPHANT],
		     "... to be steered to the coolest queue (1: 500 packets), not an elephant",
		     "to %u", v.steer_to);
	q[0].second_packets = 1000;
	verdict(q, 0, "bytes", "its second flow just under 1/n: not a collision");
	q[0].second_packets = 0;
	q[0].top_packets = 1000;

	/* The table: 48 of 128 entries is 1.5/4 exactly, 49 above it. */
	q[0].entries = 48;
	verdict(q, 0, "bytes", "the table's 1.5/n exactly: not the table");
	q[0].entries = 49;
	verdict(q, 0, "table", "the table gives it more than 1.5/n: table");
	q[0].top_packets = 2001;
	verdict(q, 0, "elephant", "elephant and table: the elephant first");
	ps_hot_verdict(q, 4, 0, &v);
	check_report(v.holds[PS_HOT_ELEPHANT] && v.holds[PS_HOT_TABLE] && !v.holds[PS_HOT_FIELDS] &&
			 !v.holds[PS_HOT_FEW] && v.holds[PS_HOT_BYTES],
		     "... every cause that holds is listed", "%d %d %d %d", v.holds[0], v.holds[1],
		     v.holds[2], v.holds[3]);
	q[0].top_packets = 20;
	q[0].entries = 32;
	q[0].table_entries = q[1].table_entries = q[2].table_entries = q[3].table_entries = 0;
	verdict(q, 0, "bytes", "no table known: not the table");

	q[0].l3_only = 1;
	verdict(q, 0, "fields", "hashed on addresses only: fields");
	ps_hot_verdict(q, 4, 0, &v);
	check_report(strstr(v.why[PS_HOT_FIELDS], "udp4") != NULL, "... naming the protocol", "%s",
		     v.why[PS_HOT_FIELDS]);
	q[0].l3_only = -1;
	verdict(q, 0, "bytes", "hashed fields unknown: not fields");
	q[0].l3_only = 0;

	/* Few flows: 15 in all on 4 queues (< 16), 16 is enough. */
	for (i = 0; i < 4; i++)
		q[i].distinct = 4;
	q[0].distinct = 3;
	verdict(q, 0, "few", "15 distinct flows on 4 queues: few");
	q[0].distinct = 4;
	verdict(q, 0, "bytes", "16 distinct flows on 4 queues: not few");
	ps_hot_verdict(q, 4, 0, &v);
	check_report(strstr(v.why[PS_HOT_BYTES], "50%") != NULL, "bytes: the shares behind it",
		     "%s", v.why[PS_HOT_BYTES]);
	/* l3_only from the RX hash types seen: L4 seen says ports; L3 alone,
	 * addresses only; neither (no hash, or none typed), unknown. */
	check_report(ps_hot_l3_only_rx_hash(0, 500) == 1, "RX hash types all L3: l3_only 1", "%d",
		     ps_hot_l3_only_rx_hash(0, 500));
	check_report(ps_hot_l3_only_rx_hash(1, 500) == 0, "one L4 type among L3 ones: l3_only 0",
		     "%d", ps_hot_l3_only_rx_hash(1, 500));
	check_report(ps_hot_l3_only_rx_hash(500, 0) == 0, "RX hash types all L4: l3_only 0", "%d",
		     ps_hot_l3_only_rx_hash(500, 0));
	check_report(ps_hot_l3_only_rx_hash(0, 0) == -1, "no typed RX hash: l3_only unknown", "%d",
		     ps_hot_l3_only_rx_hash(0, 0));
	even(q);
	q[0].packets = 2001;
	q[1].packets = q[2].packets = 500;
	q[0].l3_only = ps_hot_l3_only_rx_hash(0, 2001);
	verdict(q, 0, "fields", "a hot queue whose RX hashes are all L3: fields");
	check_report(
	    !strcmp(ps_hot_cause_advice(PS_HOT_TABLE),
		    "an uneven indirection table: spread it with ethtool -X IFACE equal N"),
	    "advice for the table", "%s", ps_hot_cause_advice(PS_HOT_TABLE));
	/* The report prints each advice indented by two: 120 columns in all. */
	for (int c = 0; c < PS_HOT_NCAUSES; c++)
		check_report(strlen(ps_hot_cause_advice((enum ps_hot_cause)c)) <= 118,
			     "advice fits 120 columns", "%s: %zu", ps_hot_cause_name(c),
			     strlen(ps_hot_cause_advice((enum ps_hot_cause)c)));
	input();
	return check_exit_code();
}
