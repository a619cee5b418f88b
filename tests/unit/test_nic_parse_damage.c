// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Every netlink reader of nic/ on every prefix of every recording (nic_fixtures_*.h)
 * and on every recording with one byte inverted: each returns an error or parses, a cut
 * message is an error, and none reads outside the buffer (run under ASan for that). */
#include "tests/unit/nic_parse.h"

/* Every prefix of every recording, and every recording with one byte
 * inverted, through every parser: each returns an error or parses, and never
 * reads outside the buffer (run under ASan to see that part). */
static int parse_any(int which, const unsigned char *b, size_t len)
{
	switch (which) {
	case 0:
		return ps_nic_parse_link(b, len, &f);
	case 1:
		return ps_nic_parse_channels(b, len, &f.channels);
	case 2:
		return ps_nic_parse_rings(b, len, &f.rings);
	case 3:
		return ps_nic_parse_features(b, len, &f.features);
	case 4:
		return ps_nic_parse_queues(b, len, 4, &f.queues);
	default:
		return ps_nic_parse_qstats(b, len, 4, &f.queues);
	}
}

static void test_damage(void)
{
	static const struct {
		const char *name;
		const unsigned char *b;
		size_t len;
		bool single; /* one message: every shorter prefix cuts it */
	} fx[] = {
		{ "veth link", fx_veth_link, sizeof(fx_veth_link), true },
		{ "veth channels", fx_veth_channels, sizeof(fx_veth_channels), true },
		{ "veth rings", fx_veth_rings, sizeof(fx_veth_rings), true },
		{ "veth features", fx_veth_features, sizeof(fx_veth_features), true },
		{ "veth queues", fx_veth_queues, sizeof(fx_veth_queues), false },
		{ "virtio qstats", fx_virtio_qstats, sizeof(fx_virtio_qstats), false },
	};
	unsigned int i, bad;
	size_t len, pos;
	int p, ret;
	char name[96];

	for (i = 0; i < sizeof(fx) / sizeof(fx[0]); i++) {
		bad = 0;
		for (p = 0; p < 6; p++) {
			for (len = 0; len <= fx[i].len; len++) {
				unsigned char *b = malloc(len ? len : 1); /* exact size for ASan */

				memcpy(b, fx[i].b, len);
				ps_nic_init(&f, 0);
				ret = parse_any(p, b, len);
				bad += ret > 1 || (ret >= 0 && len < fx[i].len && fx[i].single);
				ps_nic_free(&f);
				free(b);
			}
			for (pos = 0; pos < fx[i].len; pos++) {
				copy(fx[i].b, fx[i].len);
				buf[pos] ^= 0xff;
				ps_nic_init(&f, 0);
				bad += parse_any(p, buf, fx[i].len) > 1;
				ps_nic_free(&f);
			}
		}
		snprintf(name, sizeof(name),
			 "%s: every prefix (a cut message is an error) and every inverted byte, "
			 "6 parsers",
			 fx[i].name);
		CHECK_EQ_U64(name, bad, 0);
	}
}

int main(void)
{
	test_damage();
	return check_exit_code();
}
