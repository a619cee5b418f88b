// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The driver's own per-queue counters, read as `ethtool -S` reads them: the
 * SIOCETHTOOL ioctl, since ethtool netlink has no driver-private statistics. */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nic/ethtool_stats.h"

/* A per-queue name: PREFIX, the queue id in decimal, SUFFIX, nothing more. */
/* The names are the drivers' own; the table below maps the per-queue ones
 * onto pathscope's queues. The parser is a pure function over (names,
 * values), so the unit tests feed it recorded lists. */
struct pattern {
	const char *prefix, *suffix;
	enum ps_nic_qtype type;
	int counter;
};

static const struct pattern patterns[] = {
	/* virtio_net before Linux 6.10 (Debian's 5.10 and 6.1: "rx_queue_%u_%s"),
	 * veth and ifb ("rx_queue_%u_%.18s"), hv_netvsc, ixgbe, igb, ice */
	{ "rx_queue_", "_packets", PS_NIC_Q_RX, PS_NIC_ES_PACKETS },
	{ "rx_queue_", "_bytes", PS_NIC_Q_RX, PS_NIC_ES_BYTES },
	{ "tx_queue_", "_packets", PS_NIC_Q_TX, PS_NIC_ES_PACKETS },
	{ "tx_queue_", "_bytes", PS_NIC_Q_TX, PS_NIC_ES_BYTES },
	/* virtio_net and veth: every frame of the queue's NAPI poll, XDP or not */
	{ "rx_queue_", "_xdp_packets", PS_NIC_Q_RX, PS_NIC_ES_XDP_PACKETS },
	/* virtio_net (rx stats "drops"), veth (rx_drops) */
	{ "rx_queue_", "_drops", PS_NIC_Q_RX, PS_NIC_ES_DROPS },
	/* mlx5 (MLX5E_DECLARE_RX_STAT "rx%d_", TX "tx%d_"); virtio_net since
	 * Linux 6.10 ("rx%u_%s", "tx%u_%s"), also with xdp_packets and drops */
	{ "rx", "_packets", PS_NIC_Q_RX, PS_NIC_ES_PACKETS },
	{ "rx", "_bytes", PS_NIC_Q_RX, PS_NIC_ES_BYTES },
	{ "tx", "_packets", PS_NIC_Q_TX, PS_NIC_ES_PACKETS },
	{ "tx", "_bytes", PS_NIC_Q_TX, PS_NIC_ES_BYTES },
	{ "rx", "_xdp_packets", PS_NIC_Q_RX, PS_NIC_ES_XDP_PACKETS },
	{ "rx", "_drops", PS_NIC_Q_RX, PS_NIC_ES_DROPS },
	/* i40e, iavf (i40e_gstrings_queue_stats: "%s-%u.packets" of "rx", "tx") */
	{ "rx-", ".packets", PS_NIC_Q_RX, PS_NIC_ES_PACKETS },
	{ "rx-", ".bytes", PS_NIC_Q_RX, PS_NIC_ES_BYTES },
	{ "tx-", ".packets", PS_NIC_Q_TX, PS_NIC_ES_PACKETS },
	{ "tx-", ".bytes", PS_NIC_Q_TX, PS_NIC_ES_BYTES },
};

/* The kernel allows at most 4096 queues per direction (netdev.h). */
#define MAX_QUEUE_ID 65535u

/* Does name (len bytes) follow p? Its queue id into *id. The digits must
 * fill the middle exactly, so "rx_queue_0_xdp_packets" is no "_packets" of
 * "rx_queue_", and "rx0_hw_packets" no "_packets" of "rx". */
static bool match(const char *name, size_t len, const struct pattern *p, uint32_t *id)
{
	size_t pl = strlen(p->prefix), sl = strlen(p->suffix), i;
	uint32_t v = 0;

	if (len <= pl + sl || memcmp(name, p->prefix, pl) != 0 ||
	    memcmp(name + len - sl, p->suffix, sl) != 0)
		return false;
	if (name[pl] == '0' && len - sl - pl > 1)
		return false; /* no leading zeros: one name per queue */
	for (i = pl; i < len - sl; i++) {
		if (name[i] < '0' || name[i] > '9')
			return false;
		v = v * 10 + (uint32_t)(name[i] - '0');
		if (v > MAX_QUEUE_ID)
			return false;
	}
	*id = v;
	return true;
}

/* The entry of queue (type, id), added on first sight; NULL on ENOMEM. */
static struct ps_nic_equeue *equeue_get(struct ps_nic_estats *e, enum ps_nic_qtype type,
					uint32_t id)
{
	struct ps_nic_equeue *q;
	unsigned int i;

	for (i = 0; i < e->n; i++)
		if (e->q[i].type == type && e->q[i].id == id)
			return &e->q[i];
	if (e->n == e->cap) {
		unsigned int cap = e->cap ? 2 * e->cap : 16;

		q = reallocarray(e->q, cap, sizeof(*q));
		if (!q)
			return NULL;
		e->q = q;
		e->cap = cap;
	}
	q = &e->q[e->n++];
	q->type = type;
	q->id = id;
	for (i = 0; i < PS_NIC_ES_COUNT; i++)
		q->v[i] = PS_NA;
	return q;
}

static int equeue_cmp(const void *a, const void *b)
{
	const struct ps_nic_equeue *x = a, *y = b;

	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

int ps_nic_parse_estats(const char *names, size_t nnames, const __u64 *vals, size_t nvals,
			struct ps_nic_estats *e)
{
	struct ps_nic_equeue *q;
	size_t i, k, len;
	uint32_t id;

	e->valid = false;
	e->why[0] = '\0';
	e->n = 0;
	e->ncounters = (unsigned int)nnames;
	if (nvals != nnames) {
		snprintf(e->why, sizeof(e->why),
			 "ethtool -S: %zu names but %zu values (the driver's counters changed)",
			 nnames, nvals);
		return -EBADMSG;
	}
	for (i = 0; i < nnames; i++) {
		const char *name = names + i * ETH_GSTRING_LEN;

		len = strnlen(name, ETH_GSTRING_LEN);
		if (len == ETH_GSTRING_LEN)
			continue; /* no NUL: not a name */
		for (k = 0; k < sizeof(patterns) / sizeof(patterns[0]); k++) {
			if (!match(name, len, &patterns[k], &id))
				continue;
			q = equeue_get(e, patterns[k].type, id);
			if (!q)
				return -ENOMEM;
			if (q->v[patterns[k].counter] == PS_NA) /* the first one counts */
				q->v[patterns[k].counter] = vals[i];
			break;
		}
	}
	if (e->n > 1)
		qsort(e->q, e->n, sizeof(e->q[0]), equeue_cmp);
	e->valid = e->n > 0;
	if (!nnames)
		snprintf(e->why, sizeof(e->why), "the driver has no ethtool -S counters");
	else if (!e->valid)
		snprintf(e->why, sizeof(e->why),
			 "ethtool -S: %zu counters, none per queue by a known name", nnames);
	return 0;
}

/* ---- the ioctl -------------------------------------------------------------- */

/* Far more than any driver has (mlx5 at 128 channels: ~20,000). */
#define MAX_STATS (1u << 20)

int ps_nic_eioctl(int fd, const char *ifname, void *cmd)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = cmd;
	return ioctl(fd, SIOCETHTOOL, &ifr) ? -errno : 0;
}

/* The count of ETH_SS_STATS; -EOPNOTSUPP when the driver has none. */
/* ETHTOOL_GSSET_INFO for the count of ETH_SS_STATS, then ETHTOOL_GSTRINGS
 * and ETHTOOL_GSTATS (read_once). */
static int stats_count(int fd, const char *ifname, size_t *n)
{
	uint64_t buf[(sizeof(struct ethtool_sset_info) + sizeof(uint32_t) + 7) / 8];
	struct ethtool_sset_info *ss = (struct ethtool_sset_info *)buf;
	int err;

	memset(buf, 0, sizeof(buf));
	ss->cmd = ETHTOOL_GSSET_INFO;
	ss->sset_mask = 1ULL << ETH_SS_STATS;
	err = ps_nic_eioctl(fd, ifname, ss);
	if (err)
		return err;
	if (!(ss->sset_mask & (1ULL << ETH_SS_STATS)))
		return -EOPNOTSUPP;
	*n = ss->data[0];
	return 0;
}

/*
 * Names, then values. The kernel writes as many as the driver has at the
 * time of each call, whatever count it is given, so the buffers have room
 * to spare and a count that changed in between (channels changed) makes
 * -EAGAIN: read again.
 */
static int read_once(int fd, const char *ifname, struct ps_nic_estats *e)
{
	struct ethtool_gstrings *gs = NULL;
	struct ethtool_stats *st = NULL;
	size_t n = 0, cap;
	int err;

	err = stats_count(fd, ifname, &n);
	if (err)
		return err;
	if (!n) /* the kernel warns when asked for an empty set */
		return ps_nic_parse_estats(NULL, 0, NULL, 0, e);
	if (n > MAX_STATS)
		return -E2BIG;
	cap = 2 * n + 256;
	gs = calloc(1, sizeof(*gs) + cap * ETH_GSTRING_LEN);
	st = calloc(1, sizeof(*st) + cap * sizeof(uint64_t));
	if (!gs || !st) {
		err = -ENOMEM;
		goto out;
	}
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_STATS;
	gs->len = (uint32_t)n;
	err = ps_nic_eioctl(fd, ifname, gs);
	if (err)
		goto out;
	st->cmd = ETHTOOL_GSTATS;
	st->n_stats = (uint32_t)n;
	err = ps_nic_eioctl(fd, ifname, st);
	if (err)
		goto out;
	if (gs->len > cap || st->n_stats > cap) {
		err = -E2BIG; /* grew past the room to spare: not read */
		goto out;
	}
	if (gs->len != n || st->n_stats != n) {
		err = -EAGAIN;
		goto out;
	}
	err = ps_nic_parse_estats((const char *)gs->data, gs->len, st->data, st->n_stats, e);
out:
	free(gs);
	free(st);
	return err;
}

/* The driver's name, for a reason that names it; "" when unknown. */
static void driver_name(int fd, const char *ifname, char *name, size_t len)
{
	struct ethtool_drvinfo info;

	memset(&info, 0, sizeof(info));
	info.cmd = ETHTOOL_GDRVINFO;
	*name = '\0';
	if (ps_nic_eioctl(fd, ifname, &info) == 0)
		snprintf(name, len, "%.*s", (int)strnlen(info.driver, sizeof(info.driver)),
			 info.driver);
}

void ps_nic_read_estats(struct ps_nic_facts *f)
{
	struct ps_nic_estats *e = &f->estats;
	char drv[sizeof(((struct ethtool_drvinfo *)0)->driver) + 1];
	size_t len = sizeof(e->why);
	int fd, err = -EAGAIN, tries;

	/* Any socket takes SIOCETHTOOL; AF_UNIX where IPv4 is compiled out. */
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		ps_nic_why(e->why, len, "ethtool ioctl: socket", -errno);
		return;
	}
	for (tries = 0; tries < 3 && err == -EAGAIN; tries++)
		err = read_once(fd, f->ifname, e);
	if (err == -EOPNOTSUPP || (!err && !e->valid)) {
		/* the reason names the driver where it says its name */
		driver_name(fd, f->ifname, drv, sizeof(drv));
		if (err == -EOPNOTSUPP || !e->ncounters)
			snprintf(e->why, len, "the driver%s%s%s has no ethtool -S counters",
				 *drv ? " (" : "", drv, *drv ? ")" : "");
		else if (*drv)
			snprintf(
			    e->why, len,
			    "ethtool -S (driver %s): %u counters, none per queue by a known name",
			    drv, e->ncounters);
	} else if (err == -EAGAIN) {
		snprintf(e->why, len, "ethtool -S: the driver's counters kept changing");
	} else if (err && !*e->why) {
		ps_nic_why(e->why, len, "ethtool -S", err);
	}
	if (err)
		e->valid = false;
	close(fd);
}
