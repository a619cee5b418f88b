/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Netlink socket I/O for stats/nic.c: one request, then its reply or dump. */
#ifndef PATHSCOPE_NIC_NL_H
#define PATHSCOPE_NIC_NL_H

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

/* Parses one datagram; returns as the parsers of nic_parse.h do. */
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

/* The sources of nic/nic.c. Each fills its parts of f, or sets them
 * n/a with a reason. ps_nic_read_link returns -errno when the link cannot be
 * read (e.g. -ENODEV); the others cannot fail as a whole. */
struct ps_nic_facts;
int ps_nic_read_link(struct ps_nl *rt, struct ps_nic_facts *f);
void ps_nic_read_ethtool(struct ps_nl *gn, struct ps_nic_facts *f);
void ps_nic_read_netdev(struct ps_nl *gn, struct ps_nic_facts *f);
/* ethtool -S of f->ifname over the SIOCETHTOOL ioctl (f->estats). */
void ps_nic_read_estats(struct ps_nic_facts *f);

/* SIOCETHTOOL cmd (a struct ethtool_*) on ifname through socket fd: 0 or -errno. */
int ps_nic_eioctl(int fd, const char *ifname, void *cmd);

/* "not supported by the driver (EOPNOTSUPP)", "malformed reply", strerror... */
void ps_nic_why(char *why, size_t len, const char *what, int err);

#endif /* PATHSCOPE_NIC_NL_H */
