// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* netdev generic netlink: QUEUE_GET (queues, NAPI ids), QSTATS_GET (per-queue counters)
 * and NAPI_GET (each NAPI instance's IRQ, thread and deferral). */
#include <errno.h>
#include <limits.h>
#include <linux/genetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nic/netdev.h"
#include "lib/compat.h"

_Static_assert(PS_NIC_QSTATS_COUNT ==
		   PS_NETDEV_A_QSTATS_TX_WAKE - PS_NETDEV_A_QSTATS_RX_PACKETS + 1,
	       "one slot per netdev qstats counter");

/* netlink "uint": u32 or u64 by the value's size. false for any other length. */
static bool get_uint(const struct nlattr *attr, uint64_t *v)
{
	if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
		*v = mnl_attr_get_u32(attr);
	else if (mnl_attr_validate(attr, MNL_TYPE_U64) == 0)
		*v = mnl_attr_get_u64(attr);
	else
		return false;
	return true;
}

static bool get_u32(const struct nlattr *attr, uint32_t *v)
{
	if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
		return false;
	*v = mnl_attr_get_u32(attr);
	return true;
}

/* The entry of queue (type, id), added on first sight; NULL with errno
 * ENOMEM. Queue and qstats messages may come in any order. */
static struct ps_nic_queue *queue_get(struct ps_nic_queues *q, enum ps_nic_qtype type, uint32_t id)
{
	struct ps_nic_queue *e;
	unsigned int i;

	for (i = 0; i < q->n; i++)
		if (q->q[i].type == type && q->q[i].id == id)
			return &q->q[i];
	if (q->n == q->cap) {
		unsigned int cap = q->cap ? 2 * q->cap : 16;

		e = reallocarray(q->q, cap, sizeof(*e));
		if (!e) {
			errno = ENOMEM;
			return NULL;
		}
		q->q = e;
		q->cap = cap;
	}
	e = &q->q[q->n++];
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->id = id;
	for (i = 0; i < PS_NIC_QSTATS_COUNT; i++)
		e->qstats[i] = PS_NA;
	return e;
}

/* The identity of a queue in one message: type and id are both required. */
struct qmsg {
	int ifindex;
	bool has_ifindex, has_type, has_id, has_napi;
	uint32_t type, id, napi_id;
	bool has[PS_NIC_QSTATS_COUNT];
	uint64_t v[PS_NIC_QSTATS_COUNT];
};

struct qctx {
	int ifindex;
	struct ps_nic_queues *q;
};

static bool qmsg_ours(const struct qmsg *m, const struct qctx *c)
{
	return m->has_ifindex && m->ifindex == c->ifindex && m->has_type && m->has_id &&
	       (m->type == PS_NETDEV_QUEUE_TYPE_RX || m->type == PS_NETDEV_QUEUE_TYPE_TX);
}

static int queue_attr_cb(const struct nlattr *attr, void *data)
{
	struct qmsg *m = data;
	uint32_t v;

	switch (mnl_attr_get_type(attr)) {
	case PS_NETDEV_A_QUEUE_IFINDEX:
		if ((m->has_ifindex = get_u32(attr, &v)))
			m->ifindex = (int)v;
		break;
	case PS_NETDEV_A_QUEUE_TYPE:
		m->has_type = get_u32(attr, &m->type);
		break;
	case PS_NETDEV_A_QUEUE_ID:
		m->has_id = get_u32(attr, &m->id);
		break;
	case PS_NETDEV_A_QUEUE_NAPI_ID:
		m->has_napi = get_u32(attr, &m->napi_id);
		break;
	}
	return MNL_CB_OK;
}

/* One netdev reply of cmd, parsed by attr_cb into m: the entry of the queue
 * it is about, or NULL with *ret what the callback returns (MNL_CB_OK for a
 * message about another interface, an error otherwise). */
static struct ps_nic_queue *queue_msg(const struct nlmsghdr *nlh, struct qctx *c, int cmd,
				      mnl_attr_cb_t attr_cb, struct qmsg *m, int *ret)
{
	struct ps_nic_queue *e;

	*ret = ps_nl_genl_expect(nlh, cmd);
	if (*ret != MNL_CB_OK)
		return NULL;
	*ret = mnl_attr_parse(nlh, GENL_HDRLEN, attr_cb, m);
	if (*ret != MNL_CB_OK || !qmsg_ours(m, c))
		return NULL;
	e = queue_get(c->q, (enum ps_nic_qtype)m->type, m->id);
	if (!e)
		*ret = MNL_CB_ERROR;
	return e;
}

static int queue_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct qctx *c = data;
	struct ps_nic_queue *e;
	struct qmsg m = { 0 };
	int ret;

	e = queue_msg(nlh, c, PS_NETDEV_CMD_QUEUE_GET, queue_attr_cb, &m, &ret);
	if (!e)
		return ret;
	if (m.has_napi)
		e->napi_id = m.napi_id;
	c->q->valid = true;
	return MNL_CB_OK;
}

int ps_nic_parse_queues(const void *buf, size_t len, int ifindex, struct ps_nic_queues *q)
{
	struct qctx c = { .ifindex = ifindex, .q = q };

	return ps_nl_run(buf, len, queue_msg_cb, &c);
}

static int qstats_attr_cb(const struct nlattr *attr, void *data)
{
	struct qmsg *m = data;
	unsigned int type = mnl_attr_get_type(attr), i;
	uint32_t v;

	switch (type) {
	case PS_NETDEV_A_QSTATS_IFINDEX:
		if ((m->has_ifindex = get_u32(attr, &v)))
			m->ifindex = (int)v;
		return MNL_CB_OK;
	case PS_NETDEV_A_QSTATS_QUEUE_TYPE:
		m->has_type = get_u32(attr, &m->type);
		return MNL_CB_OK;
	case PS_NETDEV_A_QSTATS_QUEUE_ID:
		m->has_id = get_u32(attr, &m->id);
		return MNL_CB_OK;
	}
	if (type < PS_NETDEV_A_QSTATS_RX_PACKETS || type > PS_NETDEV_A_QSTATS_TX_WAKE)
		return MNL_CB_OK;
	i = type - PS_NETDEV_A_QSTATS_RX_PACKETS;
	m->has[i] = get_uint(attr, &m->v[i]);
	return MNL_CB_OK;
}

static int qstats_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct qctx *c = data;
	struct ps_nic_queue *e;
	struct qmsg m = { 0 };
	unsigned int i;
	int ret;

	e = queue_msg(nlh, c, PS_NETDEV_CMD_QSTATS_GET, qstats_attr_cb, &m, &ret);
	if (!e)
		return ret;
	for (i = 0; i < PS_NIC_QSTATS_COUNT; i++) {
		if (!m.has[i])
			continue;
		e->qstats[i] = m.v[i];
		e->has_qstats = true;
		c->q->qstats_valid = true;
	}
	return MNL_CB_OK;
}

int ps_nic_parse_qstats(const void *buf, size_t len, int ifindex, struct ps_nic_queues *q)
{
	struct qctx c = { .ifindex = ifindex, .q = q };

	return ps_nl_run(buf, len, qstats_msg_cb, &c);
}

/* One NAPI_GET message: the instance, and the interface it belongs to. */
struct napimsg {
	bool has_ifindex, has_id;
	uint32_t ifindex;
	struct ps_nic_napi e;
};

static int napi_attr_cb(const struct nlattr *attr, void *data)
{
	struct napimsg *m = data;
	uint64_t v64;
	uint32_t v;

	switch (mnl_attr_get_type(attr)) {
	case PS_NETDEV_A_NAPI_IFINDEX:
		m->has_ifindex = get_u32(attr, &m->ifindex);
		break;
	case PS_NETDEV_A_NAPI_ID:
		m->has_id = get_u32(attr, &m->e.id);
		break;
	case PS_NETDEV_A_NAPI_IRQ:
		if (get_u32(attr, &v))
			m->e.irq = (long)v;
		break;
	case PS_NETDEV_A_NAPI_PID:
		if (get_u32(attr, &v))
			m->e.pid = (long)v;
		break;
	case PS_NETDEV_A_NAPI_DEFER_HARD_IRQS: /* s32, never negative */
		if (get_u32(attr, &v) && (int32_t)v >= 0)
			m->e.defer_hard_irqs = (int32_t)v;
		break;
	case PS_NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT:
		if (get_uint(attr, &v64) && v64 <= (uint64_t)LONG_MAX)
			m->e.gro_flush_timeout = (long)v64;
		break;
	}
	return MNL_CB_OK;
}

struct napictx {
	int ifindex;
	struct ps_nic_napis *n;
};

static int napi_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct napictx *c = data;
	struct napimsg m = {
		.e = { .irq = -1, .pid = -1, .defer_hard_irqs = -1, .gro_flush_timeout = -1 }
	};
	int ret = ps_nl_genl_expect(nlh, PS_NETDEV_CMD_NAPI_GET);

	if (ret != MNL_CB_OK)
		return ret;
	ret = mnl_attr_parse(nlh, GENL_HDRLEN, napi_attr_cb, &m);
	if (ret != MNL_CB_OK || !m.has_id || !m.has_ifindex || (int)m.ifindex != c->ifindex)
		return ret;
	c->n->valid = true;
	if (c->n->n < PS_NIC_NAPI_MAX)
		c->n->napi[c->n->n++] = m.e;
	return MNL_CB_OK;
}

int ps_nic_parse_napis(const void *buf, size_t len, int ifindex, struct ps_nic_napis *n)
{
	struct napictx c = { .ifindex = ifindex, .n = n };

	return ps_nl_run(buf, len, napi_msg_cb, &c);
}

static int queue_cmp(const void *a, const void *b)
{
	const struct ps_nic_queue *x = a, *y = b;

	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

void ps_nic_queues_sort(struct ps_nic_queues *q)
{
	if (q->n > 1)
		qsort(q->q, q->n, sizeof(q->q[0]), queue_cmp);
}

/* ---- requests ------------------------------------------------------------- */

static int queues_parse(const void *buf, size_t len, void *data)
{
	struct qctx *c = data;

	return ps_nic_parse_queues(buf, len, c->ifindex, c->q);
}

static int qstats_parse(const void *buf, size_t len, void *data)
{
	struct qctx *c = data;

	return ps_nic_parse_qstats(buf, len, c->ifindex, c->q);
}

void ps_nic_read_netdev(struct ps_nl *gn, struct ps_nic_facts *f)
{
	struct ps_nic_queues *q = &f->queues;
	struct qctx c = { .ifindex = f->ifindex, .q = q };
	struct nlmsghdr *nlh;
	uint16_t family;
	int err;

	err = ps_nl_genl_family(gn, PS_NETDEV_FAMILY_NAME, &family);
	if (err) {
		const char *why = err == -ENOENT
				      ? "kernel has no netdev netlink family (Linux < 6.3)"
				      : "cannot resolve the netdev netlink family";

		snprintf(q->why, sizeof(q->why), "%s", why);
		snprintf(q->qstats_why, sizeof(q->qstats_why), "%s", why);
		return;
	}

	nlh = ps_nl_genl_req(gn, family, PS_NETDEV_CMD_QUEUE_GET, PS_NETDEV_FAMILY_VERSION,
			     NLM_F_DUMP);
	mnl_attr_put_u32(nlh, PS_NETDEV_A_QUEUE_IFINDEX, (uint32_t)f->ifindex);
	err = ps_nl_talk(gn, nlh, queues_parse, &c);
	if (err == -EOPNOTSUPP)
		snprintf(q->why, sizeof(q->why), "kernel has no netdev queue-get (Linux < 6.8)");
	else if (err)
		ps_nic_why(q->why, sizeof(q->why), "netdev queue-get", err);
	else if (!q->n)
		/* The kernel lists the queues of up interfaces only. */
		snprintf(q->why, sizeof(q->why), "%s",
			 f->link.up ? "the kernel listed no queues" : "interface is down");
	q->valid = !err && q->n;

	nlh = ps_nl_genl_req(gn, family, PS_NETDEV_CMD_QSTATS_GET, PS_NETDEV_FAMILY_VERSION,
			     NLM_F_DUMP);
	mnl_attr_put_u32(nlh, PS_NETDEV_A_QSTATS_IFINDEX, (uint32_t)f->ifindex);
	mnl_attr_put_u32(nlh, PS_NETDEV_A_QSTATS_SCOPE, PS_NETDEV_QSTATS_SCOPE_QUEUE);
	err = ps_nl_talk(gn, nlh, qstats_parse, &c);
	if (err == -EOPNOTSUPP)
		snprintf(q->qstats_why, sizeof(q->qstats_why),
			 "kernel has no netdev qstats-get (Linux < 6.9)");
	else if (err)
		ps_nic_why(q->qstats_why, sizeof(q->qstats_why), "netdev qstats-get", err);
	else if (!q->qstats_valid)
		snprintf(q->qstats_why, sizeof(q->qstats_why), "%s",
			 f->link.up ? "the driver reports no per-queue counters"
				    : "interface is down");
	q->qstats_valid = q->qstats_valid && !err;
	ps_nic_queues_sort(q);
}

static int napis_parse(const void *buf, size_t len, void *data)
{
	struct napictx *c = data;

	return ps_nic_parse_napis(buf, len, c->ifindex, c->n);
}

void ps_nic_read_napis(struct ps_nl *gn, int ifindex, struct ps_nic_queues *q,
		       struct ps_nic_napis *n)
{
	struct qctx qc = { .ifindex = ifindex, .q = q };
	struct napictx nc = { .ifindex = ifindex, .n = n };
	struct nlmsghdr *nlh;
	uint16_t family;
	int err;

	memset(q, 0, sizeof(*q));
	n->valid = false;
	n->n = 0;
	err = ps_nl_genl_family(gn, PS_NETDEV_FAMILY_NAME, &family);
	if (err) {
		snprintf(n->why, sizeof(n->why), "%s",
			 err == -ENOENT ? "kernel has no netdev netlink family (Linux < 6.3)"
					: "cannot resolve the netdev netlink family");
		return;
	}
	nlh = ps_nl_genl_req(gn, family, PS_NETDEV_CMD_NAPI_GET, PS_NETDEV_FAMILY_VERSION,
			     NLM_F_DUMP);
	mnl_attr_put_u32(nlh, PS_NETDEV_A_NAPI_IFINDEX, (uint32_t)ifindex);
	err = ps_nl_talk(gn, nlh, napis_parse, &nc);
	if (err == -EOPNOTSUPP)
		snprintf(n->why, sizeof(n->why), "kernel has no netdev napi-get (Linux < 6.8)");
	else if (err)
		ps_nic_why(n->why, sizeof(n->why), "netdev napi-get", err);
	else if (!n->n)
		snprintf(n->why, sizeof(n->why), "no NAPI instance listed (down, or none yet)");
	n->valid = !err && n->n;
	if (!n->valid)
		return;
	nlh = ps_nl_genl_req(gn, family, PS_NETDEV_CMD_QUEUE_GET, PS_NETDEV_FAMILY_VERSION,
			     NLM_F_DUMP);
	mnl_attr_put_u32(nlh, PS_NETDEV_A_QUEUE_IFINDEX, (uint32_t)ifindex);
	if (ps_nl_talk(gn, nlh, queues_parse, &qc))
		q->n = 0;
}
