// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer: a pinned meta map as anyone with CAP_BPF could have rewritten it: whatever
 * passes ps_meta_problem() must render in `pathscope status` (table and JSON) without
 * reading past a string. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/meta_check.h"
#include "stats/render/status.h"
#include "stats/format/json.h"

static void template(struct ps_meta *m)
{
	memset(m, 0, sizeof(*m));
	m->abi_version = PS_ABI_VERSION;
	m->ifindex = 7;
	m->netns_ino = 4026531840ULL;
	strcpy(m->ifname, "eth0");
	m->nqueues = 4;
	m->features = PS_F_DEFAULT;
	m->xdp_mode = PS_XDP_NATIVE;
	m->tc_mode = PS_TC_TCX;
	m->tx_sample_every = 1;
	m->queue_mask[0] = 0x5;
	m->attach_realtime_ns = 1795000000ULL * 1000000000ULL;
}

/* An input of sizeof(struct ps_meta) bytes or more is the meta itself; a
 * shorter one is a list of (offset, byte) edits to a meta the loader could have
 * written, so most inputs reach the renderers. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_map_memory mem = { .bytes = 123456, .nmaps = 9 };
	const char *why;
	struct ps_meta m;
	json_object *o;
	FILE *out;

	if (size >= sizeof(m)) {
		memcpy(&m, data, sizeof(m));
	} else {
		template(&m);
		for (size_t i = 0; i + 1 < size; i += 2)
			((uint8_t *)&m)[data[i] % sizeof(m)] = data[i + 1];
	}
	out = fopen("/dev/null", "w");
	if (!out)
		return 0;
	why = ps_meta_problem(&m);
	if (why) {
		struct ps_status_table t = {};
		char line[640];

		ps_status_incomplete_text(line, sizeof(line), "/sys/fs/bpf/pathscope/1/2", why);
		ps_status_table_line(&t, line);
		ps_status_table_print(out, &t);
		o = ps_status_incomplete_json("/sys/fs/bpf/pathscope/1/2", why, 1);
	} else {
		if (strnlen(m.ifname, sizeof(m.ifname)) >= sizeof(m.ifname) ||
		    strnlen(m.join_path, sizeof(m.join_path)) >= sizeof(m.join_path))
			abort(); /* the check let an unterminated string through */
		struct ps_status_table t = {};

		ps_status_table_row(&t, &m, "ok", &mem);
		ps_status_table_print(out, &t);
		o = ps_status_json("/sys/fs/bpf/pathscope/1/2", &m, "ok", &mem, 4026531840ULL);
	}
	ps_json_print(out, o); /* as status prints it */
	json_object_put(o);
	fclose(out);
	return 0;
}
