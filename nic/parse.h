/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Parsers of the netlink replies behind stats/nic.h, apart from the socket
 * I/O so that tests can feed them recorded messages.
 *
 * Each takes one received datagram (one or more complete netlink messages)
 * and returns:
 *   < 0  -errno: the kernel's error reply (e.g. -EOPNOTSUPP), -EBADMSG for a
 *        message cut short or malformed, -EPROTO for an unexpected message;
 *     0  a dump ended (NLMSG_DONE) or the kernel acknowledged;
 *     1  parsed; in a dump more may follow.
 * Attributes are validated with mnl_attr_validate: one with a wrong length is
 * ignored (its value stays n/a), unknown ones are skipped.
 */
#ifndef PATHSCOPE_NIC_PARSE_H
#define PATHSCOPE_NIC_PARSE_H

#include <libmnl/libmnl.h>
#include <linux/types.h>
#include <stddef.h>
#include <stdint.h>

#include "nic/nic.h"

/* mnl_cb_run over buf after checking that every message in it is complete. */
int ps_nl_run(const void *buf, size_t len, mnl_cb_t cb, void *data);

/* For message callbacks: MNL_CB_OK when nlh carries a genlmsghdr of cmd, else
 * MNL_CB_ERROR with errno EBADMSG (too short) or EPROTO (another command). */
int ps_nl_genl_expect(const struct nlmsghdr *nlh, uint8_t cmd);

/* CTRL_CMD_GETFAMILY reply: the family id. */
int ps_nl_parse_family(const void *buf, size_t len, uint16_t *id);

/* RTM_NEWLINK reply: f->ifindex, f->ifname and f->link (IFLA_STATS64). */
int ps_nic_parse_link(const void *buf, size_t len, struct ps_nic_facts *f);

/* ethtool CHANNELS_GET, RINGS_GET and FEATURES_GET (verbose bitsets) replies. */
int ps_nic_parse_channels(const void *buf, size_t len, struct ps_nic_channels *c);
int ps_nic_parse_rings(const void *buf, size_t len, struct ps_nic_rings *r);
int ps_nic_parse_features(const void *buf, size_t len, struct ps_nic_features *ft);

/* netdev QUEUE_GET and QSTATS_GET (scope queue) dump messages of ifindex:
 * the first appends queues, the second fills in their counters (adding a
 * queue it has not seen). Messages of other interfaces are skipped. */
int ps_nic_parse_queues(const void *buf, size_t len, int ifindex, struct ps_nic_queues *q);
int ps_nic_parse_qstats(const void *buf, size_t len, int ifindex, struct ps_nic_queues *q);
/* Sort rx queues by id, then tx queues by id. */
void ps_nic_queues_sort(struct ps_nic_queues *q);

/* ---- ethtool -S (an ioctl, not netlink) ----------------------------------- */

/*
 * The per-queue counters among the names and values of `ethtool -S`: names
 * holds nnames strings of ETH_GSTRING_LEN bytes each (ETHTOOL_GSTRINGS of
 * ETH_SS_STATS) and vals the nvals values of ETHTOOL_GSTATS, in the same
 * order. Fills e (e->q sorted; e->valid and e->why say whether any counter
 * is per queue). A name without a NUL, of no known pattern, or naming a
 * counter already found is skipped. Returns 0, -ENOMEM, or -EBADMSG when
 * nvals != nnames (the driver's set changed between the two reads: which
 * value is whose is unknown, so nothing is mapped).
 */
int ps_nic_parse_estats(const char *names, size_t nnames, const __u64 *vals, size_t nvals,
			struct ps_nic_estats *e);

#endif /* PATHSCOPE_NIC_PARSE_H */
