// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The qdisc dump parser (stats/qdisc.c) on messages built as the kernel
 * builds them: an mq root with two children, another interface's qdisc, a
 * message without stats, unknown attributes, and a message cut short. */
#include <libmnl/libmnl.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "tests/lib/check.h"
#include "nic/qdisc.h"

static char buf[8192];
static size_t used;

static void add_qdisc(int ifindex, __u32 handle, __u32 parent, const char *kind, int with_stats)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf + used);
	struct tcmsg *tcm;
	struct nlattr *nest;
	struct gnet_stats_basic basic = { .bytes = 1000 * (handle >> 16), .packets = handle >> 16 };
	struct gnet_stats_queue q = { .qlen = 1,
				      .backlog = 1500,
				      .drops = 7 * (handle >> 16),
				      .requeues = 2,
				      .overlimits = 3 };

	nlh->nlmsg_type = RTM_NEWQDISC;
	nlh->nlmsg_flags = NLM_F_MULTI;
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_handle = handle;
	tcm->tcm_parent = parent;
	mnl_attr_put_strz(nlh, TCA_KIND, kind);
	mnl_attr_put_u32(nlh, 250, 42); /* an attribute from the future */
	if (with_stats) {
		nest = mnl_attr_nest_start(nlh, TCA_STATS2);
		mnl_attr_put(nlh, TCA_STATS_BASIC, sizeof(basic), &basic);
		mnl_attr_put(nlh, TCA_STATS_QUEUE, sizeof(q), &q);
		mnl_attr_nest_end(nlh, nest);
	}
	used += nlh->nlmsg_len;
}

int main(void)
{
	struct ps_qdiscs qs = { .ifindex = 5 };
	const struct ps_qdisc *q;
	int rc;

	add_qdisc(5, 0x10000, TC_H_ROOT, "mq", 1);
	add_qdisc(5, 0x100000, 0x10001, "tbf", 1);
	add_qdisc(5, 0x200000, 0x10002, "tbf", 0);
	add_qdisc(9, 0x300000, TC_H_ROOT, "noqueue", 1); /* another interface */
	rc = ps_qdisc_parse(buf, used, &qs);
	CHECK_EQ_U64("a dump datagram parses", rc > 0, 1);
	CHECK_EQ_U64("only the interface's qdiscs", qs.n, 3);
	ps_qdisc_link(&qs);
	CHECK_EQ_U64("the root is found", qs.root, 0);
	q = ps_qdisc_of_txq(&qs, 0);
	CHECK_TRUE("tx queue 0 is served by the first tbf", q && q->handle == 0x100000);
	CHECK_TRUE("its kind", q && strcmp(q->kind, "tbf") == 0);
	CHECK_EQ_U64("its packets", q ? q->packets : 0, 0x10);
	CHECK_EQ_U64("its bytes", q ? q->bytes : 0, 16000);
	CHECK_EQ_U64("its drops", q ? q->drops : 0, 7 * 0x10);
	CHECK_EQ_U64("its backlog", q ? q->backlog : 0, 1500);
	q = ps_qdisc_of_txq(&qs, 1);
	CHECK_TRUE("tx queue 1: the second tbf, without stats", q && q->txq == 1 && !q->has_stats);
	CHECK_TRUE("tx queue 2: no qdisc under mq", ps_qdisc_of_txq(&qs, 2) == NULL);
	ps_qdisc_free(&qs);

	/* A single-queue root serves every queue. */
	used = 0;
	qs = (struct ps_qdiscs){ .ifindex = 5 };
	add_qdisc(5, 0x10000, TC_H_ROOT, "tbf", 1);
	ps_qdisc_parse(buf, used, &qs);
	ps_qdisc_link(&qs);
	q = ps_qdisc_of_txq(&qs, 3);
	CHECK_TRUE("a plain root serves queue 3", q && q->parent == TC_H_ROOT);

	/* Cut short: refused, nothing appended. */
	ps_qdisc_free(&qs);
	qs = (struct ps_qdiscs){ .ifindex = 5 };
	rc = ps_qdisc_parse(buf, used - 8, &qs);
	CHECK_TRUE("a message cut short is an error", rc < 0);
	CHECK_EQ_U64("and adds no qdisc", qs.n, 0);
	ps_qdisc_free(&qs);
	return check_exit_code();
}
