// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* RSS facts (nic/rss.h): ethtool netlink RSS_GET where the kernel has it (6.2),
 * else the ioctl ETHTOOL_GRSSH; the hashed fields and the ntuple rule count from
 * the ioctls ETHTOOL_GRXFH and ETHTOOL_GRXCLSRLCNT on every kernel. */
#include "nic/rss.h"

#include <errno.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/compat.h"
#include "nic/netlink.h"
#include "nic/parse.h"

const char *const ps_rss_flow_names[PS_RSS_NFLOW] = { "tcp4", "udp4", "tcp6", "udp6" };

/* ETHTOOL_GRXFH's flow types, in the order of PS_RSS_*. */
static const __u32 flow_types[PS_RSS_NFLOW] = { TCP_V4_FLOW, UDP_V4_FLOW, TCP_V6_FLOW,
						UDP_V6_FLOW };

const char *ps_rss_hfunc_name(enum ps_rss_hfunc h)
{
	switch (h) {
	case PS_RSS_HFUNC_TOEPLITZ:
		return "toeplitz";
	case PS_RSS_HFUNC_XOR:
		return "xor";
	case PS_RSS_HFUNC_CRC32:
		return "crc32";
	default:
		return "unknown";
	}
}

/* ETH_RSS_HASH_* bits: exactly one is the function in use. */
static enum ps_rss_hfunc hfunc_of(__u32 bits)
{
	switch (bits) {
	case PS_ETH_RSS_HASH_TOP:
		return PS_RSS_HFUNC_TOEPLITZ;
	case PS_ETH_RSS_HASH_XOR:
		return PS_RSS_HFUNC_XOR;
	case PS_ETH_RSS_HASH_CRC32:
		return PS_RSS_HFUNC_CRC32;
	default:
		return PS_RSS_HFUNC_UNKNOWN;
	}
}

void ps_rss_init(struct ps_rss *r)
{
	int i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < PS_RSS_NFLOW; i++)
		r->fields[i] = PS_RSS_FIELDS_NA;
	r->ntuple_rules = -1;
}

/* The table of n entries at p (unaligned), checked: every entry a queue. */
static int set_table(struct ps_rss *r, const void *p, size_t n)
{
	size_t i;

	if (n > PS_RSS_MAX_TABLE)
		return -E2BIG;
	memcpy(r->table, p, n * sizeof(__u32));
	for (i = 0; i < n; i++)
		if (r->table[i] > PS_RSS_MAX_QUEUE)
			return -EBADMSG;
	r->table_size = (__u32)n;
	return 0;
}

static int set_key(struct ps_rss *r, const void *p, size_t n)
{
	if (n > PS_RSS_MAX_KEY)
		return -E2BIG;
	memcpy(r->key, p, n);
	r->key_size = (__u32)n;
	return 0;
}

/* A table, or why there is none, once a source answered. */
static void set_have_table(struct ps_rss *r, const char *source)
{
	r->source = source;
	r->have_table = r->table_size > 0;
	if (!r->have_table)
		snprintf(r->why, sizeof(r->why), "the driver reports no indirection table");
}

/* ---- netlink ---------------------------------------------------------------- */

static int rss_attr_cb(const struct nlattr *attr, void *data)
{
	struct ps_rss *r = data;
	int err = 0;

	switch (mnl_attr_get_type(attr)) {
	case PS_ETHTOOL_A_RSS_HFUNC:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
			r->hfunc = hfunc_of(mnl_attr_get_u32(attr));
		break;
	case PS_ETHTOOL_A_RSS_INPUT_XFRM:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
			r->input_xfrm = mnl_attr_get_u32(attr);
		break;
	case PS_ETHTOOL_A_RSS_INDIR:
		if (mnl_attr_get_payload_len(attr) % sizeof(__u32))
			err = -EBADMSG;
		else
			err = set_table(r, mnl_attr_get_payload(attr),
					mnl_attr_get_payload_len(attr) / sizeof(__u32));
		break;
	case PS_ETHTOOL_A_RSS_HKEY:
		err = set_key(r, mnl_attr_get_payload(attr), mnl_attr_get_payload_len(attr));
		break;
	}
	if (err) {
		errno = -err;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

static int rss_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	int ret = ps_nl_genl_expect(nlh, PS_ETHTOOL_MSG_RSS_GET_REPLY);

	if (ret != MNL_CB_OK)
		return ret;
	ret = mnl_attr_parse(nlh, GENL_HDRLEN, rss_attr_cb, data);
	if (ret == MNL_CB_OK)
		set_have_table(data, "netlink");
	return ret;
}

int ps_rss_parse_netlink(const void *buf, size_t len, struct ps_rss *r)
{
	int ret = ps_nl_run(buf, len, rss_msg_cb, r);

	if (ret < 0) {
		/* nothing half-read stays */
		r->table_size = r->key_size = 0;
		r->have_table = false;
		r->source = NULL;
		r->hfunc = PS_RSS_HFUNC_UNKNOWN;
		r->input_xfrm = 0;
	}
	return ret;
}

static int rss_parse(const void *buf, size_t len, void *data)
{
	return ps_rss_parse_netlink(buf, len, data);
}

static int read_netlink(int ifindex, struct ps_rss *r)
{
	struct nlmsghdr *nlh;
	struct nlattr *hdr;
	struct ps_nl gn;
	uint16_t family;
	int err;

	err = ps_nl_open(&gn, NETLINK_GENERIC);
	if (err)
		return err;
	err = ps_nl_genl_family(&gn, ETHTOOL_GENL_NAME, &family);
	if (!err) {
		nlh = ps_nl_genl_req(&gn, family, PS_ETHTOOL_MSG_RSS_GET, ETHTOOL_GENL_VERSION, 0);
		hdr = mnl_attr_nest_start(nlh, PS_ETHTOOL_A_RSS_HEADER);
		mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_DEV_INDEX, (uint32_t)ifindex);
		mnl_attr_nest_end(nlh, hdr);
		err = ps_nl_talk(&gn, nlh, rss_parse, r);
		if (!err && !r->source)
			err = -EBADMSG; /* an acknowledgement without a reply */
	}
	ps_nl_close(&gn);
	return err;
}

/* ---- ioctls -------------------------------------------------------------------- */

int ps_rss_parse_rxfh(const void *rxfh, size_t len, struct ps_rss *r)
{
	struct ethtool_rxfh h;
	const __u8 *p = rxfh;
	size_t need;
	int err;

	if (len < sizeof(h))
		return -EBADMSG;
	memcpy(&h, rxfh, sizeof(h));
	need = sizeof(h) + (size_t)h.indir_size * sizeof(__u32) + h.key_size;
	if (h.indir_size > PS_RSS_MAX_TABLE || h.key_size > PS_RSS_MAX_KEY)
		return -E2BIG;
	if (need > len)
		return -EBADMSG;
	err = set_table(r, p + sizeof(h), h.indir_size);
	if (!err)
		err = set_key(r, p + sizeof(h) + h.indir_size * sizeof(__u32), h.key_size);
	if (err) {
		r->table_size = r->key_size = 0;
		return err;
	}
	r->hfunc = hfunc_of(h.hfunc);
	r->input_xfrm = h.rsvd8[0]; /* input_xfrm since Linux 6.8 */
	set_have_table(r, "ioctl");
	return 0;
}

/* ETHTOOL_GRSSH twice: the sizes, then the table and key. */
static int read_ioctl(int fd, const char *ifname, struct ps_rss *r)
{
	struct ethtool_rxfh q, *h;
	size_t len;
	int err;

	memset(&q, 0, sizeof(q));
	q.cmd = ETHTOOL_GRSSH;
	err = ps_nic_eioctl(fd, ifname, &q);
	if (err)
		return err;
	if (q.indir_size > PS_RSS_MAX_TABLE || q.key_size > PS_RSS_MAX_KEY)
		return -E2BIG;
	len = sizeof(*h) + q.indir_size * sizeof(__u32) + q.key_size;
	h = calloc(1, len);
	if (!h)
		return -ENOMEM;
	h->cmd = ETHTOOL_GRSSH;
	h->indir_size = q.indir_size;
	h->key_size = q.key_size;
	err = ps_nic_eioctl(fd, ifname, h);
	if (!err)
		err = ps_rss_parse_rxfh(h, len, r);
	free(h);
	return err;
}

static void read_fields(int fd, const char *ifname, struct ps_rss *r)
{
	struct ethtool_rxnfc nfc;
	int i, err = 0;

	for (i = 0; i < PS_RSS_NFLOW; i++) {
		memset(&nfc, 0, sizeof(nfc));
		nfc.cmd = ETHTOOL_GRXFH;
		nfc.flow_type = flow_types[i];
		err = ps_nic_eioctl(fd, ifname, &nfc);
		if (err) {
			ps_nic_why(r->fields_why, sizeof(r->fields_why), "ETHTOOL_GRXFH", err);
			continue;
		}
		r->fields[i] = (__u32)nfc.data;
		r->have_fields = true;
	}
}

static void read_rules(int fd, const char *ifname, struct ps_rss *r)
{
	struct ethtool_rxnfc nfc;
	int err;

	memset(&nfc, 0, sizeof(nfc));
	nfc.cmd = ETHTOOL_GRXCLSRLCNT;
	err = ps_nic_eioctl(fd, ifname, &nfc);
	if (err)
		ps_nic_why(r->ntuple_why, sizeof(r->ntuple_why), "ETHTOOL_GRXCLSRLCNT", err);
	else
		r->ntuple_rules = nfc.rule_cnt > 1000000 ? 1000000 : (int)nfc.rule_cnt;
}

/* The driver's name (ETHTOOL_GDRVINFO), else "the driver". */
static void driver_name(int fd, const char *ifname, char *name, size_t len)
{
	struct ethtool_drvinfo info;

	memset(&info, 0, sizeof(info));
	info.cmd = ETHTOOL_GDRVINFO;
	if (ps_nic_eioctl(fd, ifname, &info) == 0 && info.driver[0])
		snprintf(name, len, "%.*s", (int)strnlen(info.driver, sizeof(info.driver)),
			 info.driver);
	else
		snprintf(name, len, "the driver");
}

int ps_rss_read(const char *ifname, struct ps_rss *r)
{
	char drv[40];
	int ifindex, fd, err_nl, err_io = 0;

	ps_rss_init(r);
	ifindex = strlen(ifname) < IF_NAMESIZE ? (int)if_nametoindex(ifname) : 0;
	if (!ifindex)
		return -ENODEV;
	/* Any socket takes SIOCETHTOOL; AF_UNIX where IPv4 is compiled out. */
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	driver_name(fd, ifname, drv, sizeof(drv));

	/* Linux < 6.2 answers an unknown command with EOPNOTSUPP, as a driver
	 * without RSS does: either way, ask the ioctl. */
	err_nl = read_netlink(ifindex, r);
	if (err_nl)
		err_io = read_ioctl(fd, ifname, r);
	if (err_nl && err_io == -EOPNOTSUPP && err_nl == -EOPNOTSUPP)
		snprintf(r->why, sizeof(r->why),
			 "%s has no RSS: ETHTOOL_MSG_RSS_GET, ETHTOOL_GRSSH: %s", drv,
			 strerror(EOPNOTSUPP));
	else if (err_nl && err_io)
		snprintf(r->why, sizeof(r->why), "ETHTOOL_MSG_RSS_GET: %s; ETHTOOL_GRSSH: %s",
			 strerror(-err_nl), strerror(-err_io));
	else if (!r->have_table)
		snprintf(r->why, sizeof(r->why), "%s reports no indirection table (%s: 0 entries)",
			 drv,
			 strcmp(r->source, "netlink") ? "ETHTOOL_GRSSH" : "ETHTOOL_MSG_RSS_GET");
	read_fields(fd, ifname, r);
	read_rules(fd, ifname, r);
	close(fd);
	return 0;
}

/* ---- the table, and a flow's queue ----------------------------------------------- */

__u32 ps_rss_nqueues(const struct ps_rss *r)
{
	__u32 i, n = 0;

	for (i = 0; r->have_table && i < r->table_size; i++)
		if (r->table[i] + 1 > n)
			n = r->table[i] + 1;
	return n;
}

void ps_rss_entries_per_queue(const struct ps_rss *r, __u32 *per_queue, __u32 nqueues)
{
	__u32 i;

	memset(per_queue, 0, nqueues * sizeof(*per_queue));
	for (i = 0; r->have_table && i < r->table_size; i++)
		if (r->table[i] < nqueues)
			per_queue[r->table[i]]++;
}

#define RXH_ADDRS	(RXH_IP_SRC | RXH_IP_DST)
#define RXH_PORTS	(RXH_L4_B_0_1 | RXH_L4_B_2_3)
#define RXH_ADDRS_PORTS (RXH_ADDRS | RXH_PORTS)

int ps_rss_flow_type(unsigned int family, unsigned int proto)
{
	if ((family != 4 && family != 6) || (proto != IPPROTO_TCP && proto != IPPROTO_UDP))
		return -1;
	return (family == 4 ? PS_RSS_TCP4 : PS_RSS_TCP6) + (proto == IPPROTO_UDP);
}

int ps_rss_l3_only(const struct ps_rss *r, int type)
{
	__u32 f;

	if (type < 0 || type >= PS_RSS_NFLOW || !r->have_fields ||
	    r->fields[type] == PS_RSS_FIELDS_NA)
		return -1;
	f = r->fields[type];
	if (f & PS_RXH_DISCARD)
		return -1;
	if (f & RXH_PORTS)
		return 0;
	return (f & RXH_ADDRS) ? 1 : -1;
}

int ps_rss_predict(const struct ps_rss *r, const struct ps_tuple *t, __u32 *queue, __u32 *hash,
		   const char **why)
{
	static char buf[112];
	const char *flow;
	__u32 fields;
	int i;

	*why = buf;
	if (!r->have_table) {
		snprintf(buf, sizeof(buf), "no RSS indirection table");
		return -1;
	}
	if (r->hfunc != PS_RSS_HFUNC_TOEPLITZ) {
		snprintf(buf, sizeof(buf), "the hash function is %s, not Toeplitz",
			 ps_rss_hfunc_name(r->hfunc));
		return -1;
	}
	if (!r->key_size) {
		snprintf(buf, sizeof(buf), "no hash key");
		return -1;
	}
	if (r->input_xfrm) {
		snprintf(buf, sizeof(buf), "the NIC transforms the hash input (input_xfrm 0x%x)",
			 r->input_xfrm);
		return -1;
	}
	if (r->ntuple_rules > 0) {
		snprintf(buf, sizeof(buf), "%d ntuple rule%s: RSS alone cannot predict",
			 r->ntuple_rules, r->ntuple_rules == 1 ? "" : "s");
		return -1;
	}
	i = ps_rss_flow_type(t->family, t->proto);
	if (i < 0) {
		snprintf(buf, sizeof(buf), "protocol %u of IPv%u: only TCP and UDP are predicted",
			 t->proto, t->family);
		return -1;
	}
	flow = ps_rss_flow_names[i];
	fields = r->fields[i];
	if (fields == PS_RSS_FIELDS_NA)
		snprintf(buf, sizeof(buf), "the hashed fields for %s are unknown", flow);
	else if (fields & PS_RXH_DISCARD)
		snprintf(buf, sizeof(buf), "the NIC discards %s flows", flow);
	else if (fields & ~RXH_ADDRS_PORTS)
		snprintf(buf, sizeof(buf), "%s hashes fields beyond addresses and ports (0x%x)",
			 flow, fields);
	else if (!fields)
		snprintf(buf, sizeof(buf), "no hashed fields for %s", flow);
	else {
		*hash = ps_rss_hash(r->key, r->key_size, t, fields);
		*queue = r->table[*hash % r->table_size];
		*why = NULL;
		return 0;
	}
	return -1;
}
