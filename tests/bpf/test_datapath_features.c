// SPDX-License-Identifier: GPL-2.0
/* Every program of the XDP and tc objects loaded with each feature set through this
 * kernel's verifier, and three crafted frames at each hook counting exactly what the
 * set turns on (tests/lib/datapath.h). */
#include "tests/lib/datapath.h"
#include "tests/lib/datapath_frames.h"

static void test_features(void)
{
	static const struct {
		__u32 f;
		const char *name;
	} sets[] = {
		{ 0, "none" },		 { PS_F_CLASS, "class" },
		{ PS_F_ECN, "ecn" },	 { PS_F_SIZES, "sizes" },
		{ PS_F_GRO, "gro" },	 { PS_F_CLASS | PS_F_ECN, "class,ecn" },
		{ PS_F_FLOWS, "flows" }, { PS_F_ALL, "all" },
	};
	struct cfg c = default_cfg;
	struct env e;
	struct frame f;
	struct run r = { .f = &f };
	char name[200];
	size_t i;
	int hk, err;

	for (i = 0; i < ARRAY_SIZE(sets); i++) {
		c.features = sets[i].f;
		err = env_load(&e, &c);
		snprintf(name, sizeof(name), "features=%s: load", sets[i].name);
		check_report(!err, name, "%s", strerror(-err));
		if (err) {
			env_free(&e);
			continue;
		}
		for (hk = 0; hk < NHOOKS; hk++) {
			const struct hook *h = &e.h[hk];

			b_v4_tcp(&f, 1, PS_ECN_CE);
			r.gso_segs = r.gso_size = 0;
			snprintf(name, sizeof(name), "features=%s: %s: ipv4 tcp ce, 802.1Q",
				 sets[i].name, h->name);
			check_frame(name, h, &r, 0, C_IP4(PS_L4_TCP), 1, PS_ECN_CE);

			b_v6_udp(&f, 0, PS_ECN_ECT1);
			r.gso_segs = h->xdp ? 0 : 10;
			r.gso_size = h->xdp ? 0 : 1448;
			snprintf(name, sizeof(name), "features=%s: %s: ipv6 udp ect1%s",
				 sets[i].name, h->name,
				 h->xdp ? "" : ", gso_segs 10, gso_size 1448");
			check_frame(name, h, &r, 0, C_IP6(PS_L4_UDP), 0, PS_ECN_ECT1);

			b_v4_tcp(&f, 0, PS_ECN_CE);
			f.b[ETH_LEN] = 0x43;
			r.gso_segs = r.gso_size = 0;
			snprintf(name, sizeof(name), "features=%s: %s: ipv4 ihl 3 (bad_ihl)",
				 sets[i].name, h->name);
			check_frame(name, h, &r, 0, C_L3ERR(PS_ERR_BAD_IHL), 0, 0);
		}
		env_free(&e);
	}
}

/* The feature sets: none, class, ecn, sizes, gro, class+ecn, flows, all. */
int main(void)
{
	if (datapath_init() || !datapath_bpf_ok("datapath features: load BPF programs"))
		return check_exit_code();

	test_features();

	free(percpu);
	return check_exit_code();
}
