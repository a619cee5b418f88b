// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Netlink plumbing of the NIC facts: sockets, request/reply loop, message checks. */
#include "nic/netlink.h"

#include <errno.h>
#include <linux/genetlink.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* mnl_nlmsg_ok() compares (int)nlmsg_len, so it accepts a length of 2 GiB or
 * more (negative as an int): check the unsigned length as well. */
static bool msg_ok(const struct nlmsghdr *nlh, int rem)
{
	return mnl_nlmsg_ok(nlh, rem) && nlh->nlmsg_len <= (uint32_t)rem;
}

int ps_nl_run(const void *buf, size_t len, mnl_cb_t cb, void *data)
{
	const struct nlmsghdr *nlh = buf;
	int rem = (int)len, ret;

	if (!len)
		return -EBADMSG; /* netlink never sends an empty datagram */
	if (len > INT32_MAX)
		return -EMSGSIZE;
	/* mnl_cb_run stops quietly at a message cut short: refuse it instead. */
	while (rem > 0) {
		if (!msg_ok(nlh, rem))
			return -EBADMSG;
		nlh = mnl_nlmsg_next(nlh, &rem);
	}
	errno = 0;
	ret = mnl_cb_run(buf, len, 0, 0, cb, data);
	if (ret < 0)
		return errno ? -errno : -EBADMSG;
	return ret;
}

int ps_nl_genl_expect(const struct nlmsghdr *nlh, uint8_t cmd)
{
	const struct genlmsghdr *g;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*g)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	g = mnl_nlmsg_get_payload(nlh);
	if (g->cmd != cmd) {
		errno = EPROTO;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

static int family_attr_cb(const struct nlattr *attr, void *data)
{
	uint16_t *id = data;

	if (mnl_attr_get_type(attr) == CTRL_ATTR_FAMILY_ID &&
	    mnl_attr_validate(attr, MNL_TYPE_U16) == 0)
		*id = mnl_attr_get_u16(attr);
	return MNL_CB_OK;
}

static int family_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	int ret = ps_nl_genl_expect(nlh, CTRL_CMD_NEWFAMILY);

	if (ret != MNL_CB_OK)
		return ret;
	return mnl_attr_parse(nlh, GENL_HDRLEN, family_attr_cb, data);
}

int ps_nl_parse_family(const void *buf, size_t len, uint16_t *id)
{
	uint16_t got = 0;
	int ret = ps_nl_run(buf, len, family_msg_cb, &got);

	if (ret < 0)
		return ret;
	if (!got)
		return -EBADMSG;
	*id = got;
	return ret;
}

int ps_nl_open(struct ps_nl *nl, int bus)
{
	memset(nl, 0, sizeof(*nl));
	nl->buf = malloc(PS_NL_BUF_SIZE);
	if (!nl->buf)
		return -ENOMEM;
	nl->sock = mnl_socket_open(bus);
	if (!nl->sock || mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		int err = -errno;

		ps_nl_close(nl);
		return err;
	}
	nl->portid = mnl_socket_get_portid(nl->sock);
	nl->seq = (unsigned int)time(NULL);
	return 0;
}

void ps_nl_close(struct ps_nl *nl)
{
	if (nl->sock)
		mnl_socket_close(nl->sock);
	free(nl->buf);
	nl->sock = NULL;
	nl->buf = NULL;
}

struct nlmsghdr *ps_nl_req(struct ps_nl *nl, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh;

	memset(nl->req, 0, sizeof(nl->req));
	nlh = mnl_nlmsg_put_header(nl->req);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	return nlh;
}

struct nlmsghdr *ps_nl_genl_req(struct ps_nl *nl, uint16_t family, uint8_t cmd, uint8_t version,
				uint16_t flags)
{
	struct nlmsghdr *nlh = ps_nl_req(nl, family, flags);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));

	g->cmd = cmd;
	g->version = version;
	return nlh;
}

/* Replies to an earlier request on this socket cannot happen (one request at
 * a time, each read to its end), but a stray one must not be parsed as ours. */
static bool from_us(const void *buf, size_t len, unsigned int seq, unsigned int portid)
{
	const struct nlmsghdr *nlh = buf;
	int rem = (int)len;

	while (msg_ok(nlh, rem)) {
		if (!mnl_nlmsg_seq_ok(nlh, seq) || !mnl_nlmsg_portid_ok(nlh, portid))
			return false;
		nlh = mnl_nlmsg_next(nlh, &rem);
	}
	return true;
}

int ps_nl_talk(struct ps_nl *nl, struct nlmsghdr *req, ps_nl_parse_fn parse, void *data)
{
	bool dump = req->nlmsg_flags & NLM_F_DUMP;
	ssize_t n;
	int ret;

	req->nlmsg_seq = ++nl->seq;
	if (mnl_socket_sendto(nl->sock, req, req->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		n = mnl_socket_recvfrom(nl->sock, nl->buf, PS_NL_BUF_SIZE);
		if (n < 0)
			return -errno;
		if (!from_us(nl->buf, (size_t)n, nl->seq, nl->portid))
			continue;
		ret = parse(nl->buf, (size_t)n, data);
		if (ret <= 0 || !dump)
			return ret < 0 ? ret : 0;
	}
}

static int family_parse(const void *buf, size_t len, void *data)
{
	return ps_nl_parse_family(buf, len, data);
}

int ps_nl_genl_family(struct ps_nl *nl, const char *name, uint16_t *id)
{
	struct nlmsghdr *nlh = ps_nl_genl_req(nl, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, 0);

	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	return ps_nl_talk(nl, nlh, family_parse, id);
}
