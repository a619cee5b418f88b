/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Netlink socket I/O for nic/'s readers: one request, then its reply or
 * dump, and the checks every parser of a reply makes (nic/parse.h). */
#ifndef PATHSCOPE_NIC_NETLINK_H
#define PATHSCOPE_NIC_NETLINK_H

#include <libmnl/libmnl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ps_nl {
	struct mnl_socket *sock;
	unsigned int portid, seq;
	char *buf; /* receive buffer, PS_NL_BUF_SIZE */
	char req[1024];
};

/* Large enough for a verbose FEATURES_GET reply and a dump datagram. */
#define PS_NL_BUF_SIZE 65536

/* Parses one datagram (one or more complete netlink messages), as every parser
 * of nic/parse.h does, and returns:
 *   < 0  -errno: the kernel's error reply (e.g. -EOPNOTSUPP), -EBADMSG for a
 *        message cut short or malformed, -EPROTO for an unexpected message;
 *     0  a dump ended (NLMSG_DONE) or the kernel acknowledged;
 *     1  parsed; in a dump more may follow.
 * Attributes are validated with mnl_attr_validate: one with a wrong length is
 * ignored (its value stays n/a), unknown ones are skipped. */
typedef int (*ps_nl_parse_fn)(const void *buf, size_t len, void *data);

/* Open and bind a socket of bus (NETLINK_ROUTE, NETLINK_GENERIC): -errno on failure. */
int ps_nl_open(struct ps_nl *nl, int bus);
void ps_nl_close(struct ps_nl *nl);

/* Start a request in nl->req. */
struct nlmsghdr *ps_nl_req(struct ps_nl *nl, uint16_t type, uint16_t flags);
struct nlmsghdr *ps_nl_genl_req(struct ps_nl *nl, uint16_t family, uint8_t cmd, uint8_t version,
				uint16_t flags);

/* Send req and feed every reply datagram to parse: until the first one for a
 * plain request, until NLMSG_DONE for NLM_F_DUMP. 0 or -errno. */
int ps_nl_talk(struct ps_nl *nl, struct nlmsghdr *req, ps_nl_parse_fn parse, void *data);

/* Resolve a generic netlink family id: 0, -ENOENT when the kernel has none. */
int ps_nl_genl_family(struct ps_nl *nl, const char *name, uint16_t *id);

/* mnl_cb_run over buf after checking that every message in it is complete. */
int ps_nl_run(const void *buf, size_t len, mnl_cb_t cb, void *data);

/* For message callbacks: MNL_CB_OK when nlh carries a genlmsghdr of cmd, else
 * MNL_CB_ERROR with errno EBADMSG (too short) or EPROTO (another command). */
int ps_nl_genl_expect(const struct nlmsghdr *nlh, uint8_t cmd);

/* CTRL_CMD_GETFAMILY reply: the family id. */
int ps_nl_parse_family(const void *buf, size_t len, uint16_t *id);

#endif /* PATHSCOPE_NIC_NETLINK_H */
