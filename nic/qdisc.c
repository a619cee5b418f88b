// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The qdiscs of one interface over rtnetlink, and the TX queue each serves (qdisc.h). */
#include "nic/qdisc.h"

#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>

#include "nic/netlink.h"

static int stats2_cb(const struct nlattr *attr, void *data)
{
	struct ps_qdisc *q = data;
	struct gnet_stats_queue sq;
	struct gnet_stats_basic sb = {};

	/* Netlink attributes are only 4-byte aligned: copy before reading. */
	switch (mnl_attr_get_type(attr)) {
	case TCA_STATS_BASIC:
		/* 12 bytes of data (the struct's 16 with padding). */
		if (mnl_attr_get_payload_len(attr) < 12)
			break;
		memcpy(&sb, mnl_attr_get_payload(attr), 12);
		q->bytes = sb.bytes;
		q->packets = sb.packets;
		q->has_stats = true;
		break;
	case TCA_STATS_QUEUE:
		if (mnl_attr_get_payload_len(attr) < sizeof(sq))
			break;
		memcpy(&sq, mnl_attr_get_payload(attr), sizeof(sq));
		q->qlen = sq.qlen;
		q->backlog = sq.backlog;
		q->drops = sq.drops;
		q->requeues = sq.requeues;
		q->overlimits = sq.overlimits;
		q->has_stats = true;
		break;
	}
	return MNL_CB_OK;
}

static int qdisc_attr_cb(const struct nlattr *attr, void *data)
{
	struct ps_qdisc *q = data;

	switch (mnl_attr_get_type(attr)) {
	case TCA_KIND:
		if (mnl_attr_validate(attr, MNL_TYPE_STRING) == 0)
			snprintf(
			    q->kind, sizeof(q->kind), "%.*s",
			    (int)strnlen(mnl_attr_get_str(attr), mnl_attr_get_payload_len(attr)),
			    mnl_attr_get_str(attr));
		break;
	case TCA_STATS2:
		if (mnl_attr_validate(attr, MNL_TYPE_NESTED) == 0)
			mnl_attr_parse_nested(attr, stats2_cb, q);
		break;
	}
	return MNL_CB_OK;
}

static int qdisc_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct ps_qdiscs *qs = data;
	const struct tcmsg *tcm;
	struct ps_qdisc q = { .txq = -1 }, *grown;

	if (nlh->nlmsg_type != RTM_NEWQDISC)
		return MNL_CB_OK;
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*tcm)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	tcm = mnl_nlmsg_get_payload(nlh);
	if (tcm->tcm_ifindex != qs->ifindex)
		return MNL_CB_OK; /* the dump lists every interface */
	q.handle = tcm->tcm_handle;
	q.parent = tcm->tcm_parent;
	if (mnl_attr_parse(nlh, sizeof(*tcm), qdisc_attr_cb, &q) < 0) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (qs->n == qs->cap) {
		grown = realloc(qs->q, (qs->cap ? qs->cap * 2 : 8) * sizeof(*qs->q));
		if (!grown) {
			errno = ENOMEM;
			return MNL_CB_ERROR;
		}
		qs->q = grown;
		qs->cap = qs->cap ? qs->cap * 2 : 8;
	}
	qs->q[qs->n++] = q;
	return MNL_CB_OK;
}

int ps_qdisc_parse(const void *buf, size_t len, struct ps_qdiscs *qs)
{
	return ps_nl_run(buf, len, qdisc_msg_cb, qs);
}

void ps_qdisc_link(struct ps_qdiscs *qs)
{
	unsigned int i;
	const struct ps_qdisc *root;
	bool mq;

	qs->root = -1;
	for (i = 0; i < qs->n; i++)
		if (qs->q[i].parent == TC_H_ROOT)
			qs->root = (int)i;
	if (qs->root < 0)
		return;
	root = &qs->q[qs->root];
	mq = strcmp(root->kind, "mq") == 0 || strcmp(root->kind, "mqprio") == 0;
	for (i = 0; mq && i < qs->n; i++)
		if (TC_H_MAJ(qs->q[i].parent) == TC_H_MAJ(root->handle) &&
		    TC_H_MIN(qs->q[i].parent) > 0 && (int)i != qs->root)
			qs->q[i].txq = (int)TC_H_MIN(qs->q[i].parent) - 1;
}

static int parse_cb(const void *buf, size_t len, void *data)
{
	return ps_qdisc_parse(buf, len, data);
}

int ps_qdisc_read(int ifindex, struct ps_qdiscs *qs)
{
	struct nlmsghdr *nlh;
	struct tcmsg *tcm;
	struct ps_nl nl;
	int err;

	memset(qs, 0, sizeof(*qs));
	qs->ifindex = ifindex;
	qs->root = -1;
	err = ps_nl_open(&nl, NETLINK_ROUTE);
	if (err)
		return err;
	nlh = ps_nl_req(&nl, RTM_GETQDISC, NLM_F_DUMP);
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = ifindex;
	err = ps_nl_talk(&nl, nlh, parse_cb, qs);
	ps_nl_close(&nl);
	if (err) {
		ps_qdisc_free(qs);
		return err;
	}
	ps_qdisc_link(qs);
	return 0;
}

void ps_qdisc_free(struct ps_qdiscs *qs)
{
	free(qs->q);
	qs->q = NULL;
	qs->n = qs->cap = 0;
}

const struct ps_qdisc *ps_qdisc_of_txq(const struct ps_qdiscs *qs, unsigned int txq)
{
	unsigned int i;
	bool mq = false;

	if (!qs || qs->root < 0)
		return NULL;
	for (i = 0; i < qs->n; i++) {
		if (qs->q[i].txq == (int)txq)
			return &qs->q[i];
		mq |= qs->q[i].txq >= 0;
	}
	mq |=
	    strcmp(qs->q[qs->root].kind, "mq") == 0 || strcmp(qs->q[qs->root].kind, "mqprio") == 0;
	return mq ? NULL : &qs->q[qs->root];
}

json_object *ps_qdisc_json(const struct ps_qdisc *q)
{
	json_object *o = json_object_new_object();
	char h[24];

	json_object_object_add(o, "kind", json_object_new_string(q->kind));
	snprintf(h, sizeof(h), "%x:%x", TC_H_MAJ(q->handle) >> 16, TC_H_MIN(q->handle));
	json_object_object_add(o, "handle", json_object_new_string(h));
	if (q->parent == TC_H_ROOT)
		snprintf(h, sizeof(h), "root");
	else
		snprintf(h, sizeof(h), "%x:%x", TC_H_MAJ(q->parent) >> 16, TC_H_MIN(q->parent));
	json_object_object_add(o, "parent", json_object_new_string(h));
	if (!q->has_stats) {
		json_object_object_add(o, "stats", NULL);
		return o;
	}
	json_object_object_add(o, "packets", json_object_new_uint64(q->packets));
	json_object_object_add(o, "bytes", json_object_new_uint64(q->bytes));
	json_object_object_add(o, "drops", json_object_new_uint64(q->drops));
	json_object_object_add(o, "requeues", json_object_new_uint64(q->requeues));
	json_object_object_add(o, "overlimits", json_object_new_uint64(q->overlimits));
	json_object_object_add(o, "qlen", json_object_new_uint64(q->qlen));
	json_object_object_add(o, "backlog_bytes", json_object_new_uint64(q->backlog));
	return o;
}
