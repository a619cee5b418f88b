// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ethtool generic netlink: CHANNELS_GET, RINGS_GET, FEATURES_GET (verbose bitsets),
 * COALESCE_GET. */
#include <errno.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <stdio.h>
#include <string.h>

#include "nic/ethtool.h"

/* Store a u32 attribute in *dst when it has exactly the size of one. */
static void put_u32(const struct nlattr *attr, uint64_t *dst)
{
	if (dst && mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
		*dst = mnl_attr_get_u32(attr);
}

/* ---- channels ------------------------------------------------------------ */

static int channels_attr_cb(const struct nlattr *attr, void *data)
{
	struct ps_nic_channels *c = data;
	uint64_t *dst = NULL;

	switch (mnl_attr_get_type(attr)) {
	case ETHTOOL_A_CHANNELS_RX_MAX:
		dst = &c->rx_max;
		break;
	case ETHTOOL_A_CHANNELS_TX_MAX:
		dst = &c->tx_max;
		break;
	case ETHTOOL_A_CHANNELS_OTHER_MAX:
		dst = &c->other_max;
		break;
	case ETHTOOL_A_CHANNELS_COMBINED_MAX:
		dst = &c->combined_max;
		break;
	case ETHTOOL_A_CHANNELS_RX_COUNT:
		dst = &c->rx;
		break;
	case ETHTOOL_A_CHANNELS_TX_COUNT:
		dst = &c->tx;
		break;
	case ETHTOOL_A_CHANNELS_OTHER_COUNT:
		dst = &c->other;
		break;
	case ETHTOOL_A_CHANNELS_COMBINED_COUNT:
		dst = &c->combined;
		break;
	}
	put_u32(attr, dst);
	return MNL_CB_OK;
}

static int channels_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct ps_nic_channels *c = data;
	int ret = ps_nl_genl_expect(nlh, ETHTOOL_MSG_CHANNELS_GET_REPLY);

	if (ret != MNL_CB_OK)
		return ret;
	c->valid = true;
	return mnl_attr_parse(nlh, GENL_HDRLEN, channels_attr_cb, c);
}

int ps_nic_parse_channels(const void *buf, size_t len, struct ps_nic_channels *c)
{
	return ps_nl_run(buf, len, channels_msg_cb, c);
}

/* ---- rings --------------------------------------------------------------- */

static int rings_attr_cb(const struct nlattr *attr, void *data)
{
	struct ps_nic_rings *r = data;
	uint64_t *dst = NULL;

	switch (mnl_attr_get_type(attr)) {
	case ETHTOOL_A_RINGS_RX_MAX:
		dst = &r->rx_max;
		break;
	case ETHTOOL_A_RINGS_RX_MINI_MAX:
		dst = &r->rx_mini_max;
		break;
	case ETHTOOL_A_RINGS_RX_JUMBO_MAX:
		dst = &r->rx_jumbo_max;
		break;
	case ETHTOOL_A_RINGS_TX_MAX:
		dst = &r->tx_max;
		break;
	case ETHTOOL_A_RINGS_RX:
		dst = &r->rx;
		break;
	case ETHTOOL_A_RINGS_RX_MINI:
		dst = &r->rx_mini;
		break;
	case ETHTOOL_A_RINGS_RX_JUMBO:
		dst = &r->rx_jumbo;
		break;
	case ETHTOOL_A_RINGS_TX:
		dst = &r->tx;
		break;
	}
	put_u32(attr, dst);
	return MNL_CB_OK;
}

static int rings_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct ps_nic_rings *r = data;
	int ret = ps_nl_genl_expect(nlh, ETHTOOL_MSG_RINGS_GET_REPLY);

	if (ret != MNL_CB_OK)
		return ret;
	r->valid = true;
	return mnl_attr_parse(nlh, GENL_HDRLEN, rings_attr_cb, r);
}

int ps_nic_parse_rings(const void *buf, size_t len, struct ps_nic_rings *r)
{
	return ps_nl_run(buf, len, rings_msg_cb, r);
}

/* ---- coalescing ---------------------------------------------------------- */

static int coalesce_attr_cb(const struct nlattr *attr, void *data)
{
	struct ps_nic_coalesce *c = data;
	uint64_t *dst = NULL, *flag = NULL;

	switch (mnl_attr_get_type(attr)) {
	case ETHTOOL_A_COALESCE_RX_USECS:
		dst = &c->rx_usecs;
		break;
	case ETHTOOL_A_COALESCE_RX_MAX_FRAMES:
		dst = &c->rx_frames;
		break;
	case ETHTOOL_A_COALESCE_RX_USECS_IRQ:
		dst = &c->rx_usecs_irq;
		break;
	case ETHTOOL_A_COALESCE_RX_MAX_FRAMES_IRQ:
		dst = &c->rx_frames_irq;
		break;
	case ETHTOOL_A_COALESCE_TX_USECS:
		dst = &c->tx_usecs;
		break;
	case ETHTOOL_A_COALESCE_TX_MAX_FRAMES:
		dst = &c->tx_frames;
		break;
	case ETHTOOL_A_COALESCE_TX_USECS_IRQ:
		dst = &c->tx_usecs_irq;
		break;
	case ETHTOOL_A_COALESCE_TX_MAX_FRAMES_IRQ:
		dst = &c->tx_frames_irq;
		break;
	case ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX:
		flag = &c->adaptive_rx;
		break;
	case ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX:
		flag = &c->adaptive_tx;
		break;
	}
	put_u32(attr, dst);
	if (flag && mnl_attr_validate(attr, MNL_TYPE_U8) == 0)
		*flag = mnl_attr_get_u8(attr) ? 1 : 0;
	return MNL_CB_OK;
}

static int coalesce_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct ps_nic_coalesce *c = data;
	int ret = ps_nl_genl_expect(nlh, ETHTOOL_MSG_COALESCE_GET_REPLY);

	if (ret != MNL_CB_OK)
		return ret;
	c->valid = true;
	return mnl_attr_parse(nlh, GENL_HDRLEN, coalesce_attr_cb, c);
}

int ps_nic_parse_coalesce(const void *buf, size_t len, struct ps_nic_coalesce *c)
{
	return ps_nl_run(buf, len, coalesce_msg_cb, c);
}

/* ---- features ------------------------------------------------------------ */

/*
 * The features of interest, by kernel name. TSO is ethtool's legacy flag
 * "tcp-segmentation-offload": every feature named "tx-tcp*-segmentation"
 * (tcp, tcp-ecn, tcp-mangleid, tcp6, ...), on when any of them is on.
 */
static int feature_of(const char *name)
{
	static const char *const exact[] = {
		[PS_NIC_F_GRO] = "rx-gro",
		[PS_NIC_F_LRO] = "rx-lro",
		[PS_NIC_F_GSO] = "tx-generic-segmentation",
		[PS_NIC_F_RXHASH] = "rx-hashing",
	};
	static const char pre[] = "tx-tcp", suf[] = "-segmentation";
	size_t len = strlen(name);
	int i;

	for (i = 0; i < PS_NIC_F_COUNT; i++)
		if (exact[i] && strcmp(name, exact[i]) == 0)
			return i;
	if (len >= sizeof(pre) - 1 + sizeof(suf) - 1 && strncmp(name, pre, sizeof(pre) - 1) == 0 &&
	    strcmp(name + len - (sizeof(suf) - 1), suf) == 0)
		return PS_NIC_F_TSO;
	return -1;
}

enum { SET_HW, SET_WANTED, SET_ACTIVE, SET_NOCHANGE, SET_COUNT };

#define MAX_BITS 16 /* of interest, per set: 8 exist today */

/* One verbose bitset, reduced to the bits of interest. */
struct bitset {
	bool present, nomask, compact;
	unsigned int n;
	struct {
		char name[ETH_GSTRING_LEN];
		bool value;
	} bits[MAX_BITS];
};

struct bit {
	const char *name;
	bool value;
};

static int bit_attr_cb(const struct nlattr *attr, void *data)
{
	struct bit *b = data;

	switch (mnl_attr_get_type(attr)) {
	case ETHTOOL_A_BITSET_BIT_NAME:
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
			b->name = mnl_attr_get_str(attr);
		break;
	case ETHTOOL_A_BITSET_BIT_VALUE:
		if (mnl_attr_validate(attr, MNL_TYPE_FLAG) == 0)
			b->value = true;
		break;
	}
	return MNL_CB_OK;
}

static int bits_attr_cb(const struct nlattr *attr, void *data)
{
	struct bitset *s = data;
	struct bit b = { 0 };

	if (mnl_attr_get_type(attr) != ETHTOOL_A_BITSET_BITS_BIT ||
	    mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0)
		return MNL_CB_OK;
	mnl_attr_parse_nested(attr, bit_attr_cb, &b);
	if (!b.name || feature_of(b.name) < 0 || s->n == MAX_BITS)
		return MNL_CB_OK;
	snprintf(s->bits[s->n].name, sizeof(s->bits[s->n].name), "%s", b.name);
	s->bits[s->n++].value = b.value;
	return MNL_CB_OK;
}

static int bitset_attr_cb(const struct nlattr *attr, void *data)
{
	struct bitset *s = data;

	switch (mnl_attr_get_type(attr)) {
	case ETHTOOL_A_BITSET_NOMASK:
		if (mnl_attr_validate(attr, MNL_TYPE_FLAG) == 0)
			s->nomask = true;
		break;
	case ETHTOOL_A_BITSET_BITS:
		if (mnl_attr_validate(attr, MNL_TYPE_NESTED) == 0)
			mnl_attr_parse_nested(attr, bits_attr_cb, s);
		break;
	case ETHTOOL_A_BITSET_VALUE:
		s->compact = true; /* bits without names: we did not ask for this */
		break;
	}
	return MNL_CB_OK;
}

/* A bit is on when listed in a list (NOMASK: only set bits are listed), or
 * listed with its VALUE flag in a value/mask pair. */
static bool bit_on(const struct bitset *s, const char *name)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->bits[i].name, name) == 0)
			return s->nomask || s->bits[i].value;
	return false;
}

static int features_attr_cb(const struct nlattr *attr, void *data)
{
	struct bitset *sets = data;
	int set;

	switch (mnl_attr_get_type(attr)) {
	case ETHTOOL_A_FEATURES_HW:
		set = SET_HW;
		break;
	case ETHTOOL_A_FEATURES_WANTED:
		set = SET_WANTED;
		break;
	case ETHTOOL_A_FEATURES_ACTIVE:
		set = SET_ACTIVE;
		break;
	case ETHTOOL_A_FEATURES_NOCHANGE:
		set = SET_NOCHANGE;
		break;
	default:
		return MNL_CB_OK;
	}
	if (mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0)
		return MNL_CB_OK;
	memset(&sets[set], 0, sizeof(sets[set]));
	sets[set].present = true;
	mnl_attr_parse_nested(attr, bitset_attr_cb, &sets[set]);
	return MNL_CB_OK;
}

/* ethtool -k: "[fixed]" when not in hw or in nochange; a group (TSO) is fixed
 * when none of its features can be changed. */
static void features_resolve(const struct bitset *sets, struct ps_nic_features *ft)
{
	const struct bitset *act = &sets[SET_ACTIVE], *hw = &sets[SET_HW];
	unsigned int i;
	int f;

	for (f = 0; f < PS_NIC_F_COUNT; f++) {
		ft->f[f].state = PS_NIC_OFF;
		ft->f[f].fixed = hw->present;
	}
	for (i = 0; i < act->n; i++)
		if (bit_on(act, act->bits[i].name))
			ft->f[feature_of(act->bits[i].name)].state = PS_NIC_ON;
	for (i = 0; i < hw->n; i++) {
		const char *name = hw->bits[i].name;

		if (bit_on(hw, name) && !bit_on(&sets[SET_NOCHANGE], name))
			ft->f[feature_of(name)].fixed = false;
	}
}

static int features_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct bitset sets[SET_COUNT] = { 0 };
	struct ps_nic_features *ft = data;
	int ret = ps_nl_genl_expect(nlh, ETHTOOL_MSG_FEATURES_GET_REPLY);

	if (ret != MNL_CB_OK)
		return ret;
	ret = mnl_attr_parse(nlh, GENL_HDRLEN, features_attr_cb, sets);
	if (ret != MNL_CB_OK)
		return ret;
	if (!sets[SET_ACTIVE].present || sets[SET_ACTIVE].compact) {
		snprintf(ft->why, sizeof(ft->why), "%s",
			 sets[SET_ACTIVE].compact ? "compact bitset without names in the reply"
						  : "no active feature set in the reply");
		return MNL_CB_OK;
	}
	ft->valid = true;
	features_resolve(sets, ft);
	return MNL_CB_OK;
}

int ps_nic_parse_features(const void *buf, size_t len, struct ps_nic_features *ft)
{
	return ps_nl_run(buf, len, features_msg_cb, ft);
}

/* ---- requests ------------------------------------------------------------- */

static int channels_parse(const void *buf, size_t len, void *data)
{
	return ps_nic_parse_channels(buf, len, data);
}

static int rings_parse(const void *buf, size_t len, void *data)
{
	return ps_nic_parse_rings(buf, len, data);
}

static int features_parse(const void *buf, size_t len, void *data)
{
	return ps_nic_parse_features(buf, len, data);
}

static int coalesce_parse(const void *buf, size_t len, void *data)
{
	return ps_nic_parse_coalesce(buf, len, data);
}

/* A GET request for ifindex. Flags 0: verbose bitsets (names), no stats.
 * Every ETHTOOL_A_*_HEADER is attribute 1. */
static struct nlmsghdr *ethtool_req(struct ps_nl *gn, uint16_t family, uint8_t cmd, int ifindex)
{
	struct nlmsghdr *nlh = ps_nl_genl_req(gn, family, cmd, ETHTOOL_GENL_VERSION, 0);
	struct nlattr *hdr = mnl_attr_nest_start(nlh, ETHTOOL_A_CHANNELS_HEADER);

	mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_DEV_INDEX, (uint32_t)ifindex);
	mnl_attr_nest_end(nlh, hdr);
	return nlh;
}

static int channels_get(struct ps_nl *gn, uint16_t family, int ifindex, struct ps_nic_channels *c)
{
	return ps_nl_talk(gn, ethtool_req(gn, family, ETHTOOL_MSG_CHANNELS_GET, ifindex),
			  channels_parse, c);
}

/* err of a part that did not come: the reason, unless the parser gave one. */
static void part_na(char *why, size_t len, bool valid, int err)
{
	if (valid || *why)
		return;
	if (err == -EOPNOTSUPP)
		snprintf(why, len, "EOPNOTSUPP: not supported by the driver");
	else
		ps_nic_why(why, len, "ethtool", err);
}

void ps_nic_read_ethtool(struct ps_nl *gn, struct ps_nic_facts *f)
{
	struct ps_nic_channels *c = &f->channels;
	struct ps_nic_rings *r = &f->rings;
	struct ps_nic_features *ft = &f->features;
	uint16_t family;
	int err;

	err = ps_nl_genl_family(gn, ETHTOOL_GENL_NAME, &family);
	if (err) {
		const char *why = err == -ENOENT ? "kernel has no ethtool netlink (Linux < 5.6)"
						 : "cannot resolve the ethtool netlink family";

		snprintf(c->why, sizeof(c->why), "%s", why);
		snprintf(r->why, sizeof(r->why), "%s", why);
		snprintf(ft->why, sizeof(ft->why), "%s", why);
		return;
	}
	err = channels_get(gn, family, f->ifindex, c);
	c->valid = c->valid && !err;
	part_na(c->why, sizeof(c->why), c->valid, err ? err : -EBADMSG);

	err = ps_nl_talk(gn, ethtool_req(gn, family, ETHTOOL_MSG_RINGS_GET, f->ifindex),
			 rings_parse, r);
	r->valid = r->valid && !err;
	part_na(r->why, sizeof(r->why), r->valid, err ? err : -EBADMSG);

	err = ps_nl_talk(gn, ethtool_req(gn, family, ETHTOOL_MSG_FEATURES_GET, f->ifindex),
			 features_parse, ft);
	ft->valid = ft->valid && !err;
	part_na(ft->why, sizeof(ft->why), ft->valid, err ? err : -EBADMSG);
}

void ps_nic_read_coalesce(struct ps_nl *gn, int ifindex, struct ps_nic_coalesce *c)
{
	uint16_t family;
	int err;

	ps_nic_coalesce_init(c);
	err = ps_nl_genl_family(gn, ETHTOOL_GENL_NAME, &family);
	if (err) {
		snprintf(c->why, sizeof(c->why), "%s",
			 err == -ENOENT ? "kernel has no ethtool netlink (Linux < 5.6)"
					: "cannot resolve the ethtool netlink family");
		return;
	}
	err = ps_nl_talk(gn, ethtool_req(gn, family, ETHTOOL_MSG_COALESCE_GET, ifindex),
			 coalesce_parse, c);
	c->valid = c->valid && !err;
	part_na(c->why, sizeof(c->why), c->valid, err ? err : -EBADMSG);
}

/* A count the driver omits (PS_NA) is no queue. */
static unsigned int count_or_0(uint64_t v)
{
	return v == PS_NA ? 0 : (unsigned int)v;
}

int ps_nic_queues_in_use(int ifindex, unsigned int *rx, unsigned int *tx)
{
	struct ps_nic_channels c;
	struct ps_nl gn;
	uint16_t family;
	int err;

	ps_nic_channels_init(&c);
	err = ps_nl_open(&gn, NETLINK_GENERIC);
	if (err)
		return err;
	err = ps_nl_genl_family(&gn, ETHTOOL_GENL_NAME, &family);
	if (!err)
		err = channels_get(&gn, family, ifindex, &c);
	ps_nl_close(&gn);
	if (err)
		return err;
	if (!c.valid || (c.combined == PS_NA && (c.rx == PS_NA || c.tx == PS_NA)))
		return -EOPNOTSUPP;
	/* A queue is a combined channel or a dedicated RX (TX) one. */
	*rx = count_or_0(c.rx) + count_or_0(c.combined);
	*tx = count_or_0(c.tx) + count_or_0(c.combined);
	return 0;
}
