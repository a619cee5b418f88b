// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ps_meta_problem: a meta the loader writes passes; each way a rewritten
 * pinned meta can be wrong is named; status renders a corrupt one as
 * incomplete with that reason. */
#include <stdio.h>
#include <string.h>

#include "loader/meta_check.h"
#include "stats/render/status.h"
#include "tests/lib/check.h"

static struct ps_meta good(void)
{
	struct ps_meta m = {
		.abi_version = PS_ABI_VERSION,
		.ifindex = 3,
		.ifname = "vB",
		.nqueues = 2,
		.features = PS_F_DEFAULT,
		.xdp_mode = PS_XDP_NATIVE,
		.tc_mode = PS_TC_TCX,
		.tx_sample_every = 1,
	};
	return m;
}

static void expect(const char *name, struct ps_meta m, const char *want)
{
	const char *got = ps_meta_problem(&m);

	check_report(got && strcmp(got, want) == 0, name, "got '%s', want '%s'",
		     got ? got : "(none)", want);
}

int main(void)
{
	struct ps_meta m = good();
	char line[512] = "";

	CHECK_TRUE("a meta the loader writes passes", ps_meta_problem(&m) == NULL);
	m.nqueues = PS_MAX_QUEUES, m.features = PS_F_ALL, m.xdp_mode = PS_XDP_JOIN;
	m.tc_mode = PS_TC_CLSACT, m.flags = PS_META_ATTACHING | PS_META_CREATED_CLSACT;
	m.all_queues = 1, m.rx_queue_base = 1;
	CHECK_TRUE("the largest values the loader writes pass", ps_meta_problem(&m) == NULL);

	m = good(), m.abi_version++;
	expect("another ABI version", m, "written by another pathscope version");
	m = good(), memset(m.ifname, 'x', sizeof(m.ifname));
	expect("ifname without a NUL", m, "interface name missing or not terminated");
	m = good(), m.ifname[0] = '\0';
	expect("empty ifname", m, "interface name missing or not terminated");
	m = good(), memset(m.join_path, '/', sizeof(m.join_path));
	expect("join path without a NUL", m, "join path not terminated");
	m = good(), m.ifindex = 0;
	expect("ifindex 0", m, "ifindex out of range");
	m = good(), m.ifindex = 0x80000000u;
	expect("ifindex above INT_MAX", m, "ifindex out of range");
	m = good(), m.nqueues = 0;
	expect("0 queues", m, "queue count out of range");
	m = good(), m.nqueues = PS_MAX_QUEUES + 1;
	expect("1025 queues", m, "queue count out of range");
	m = good(), m.features = 1u << 31;
	expect("an unknown feature", m, "unknown feature bits");
	m = good(), m.flags = 1u << 9;
	expect("an unknown flag", m, "unknown flag bits");
	m = good(), m.xdp_mode = PS_XDP_JOIN + 1;
	expect("an unknown XDP mode", m, "unknown attach mode");
	m = good(), m.tc_mode = PS_TC_CLSACT + 1;
	expect("an unknown tc mode", m, "unknown attach mode");
	m = good(), m.all_queues = 2;
	expect("all_queues 2", m, "all_queues is not 0 or 1");
	m = good(), m.rx_queue_base = PS_MAX_QUEUES + 1;
	expect("rx queue base 1025", m, "rx queue base out of range");
	m = good(), m.tx_sample_every = 0;
	expect("sample every 0 (a divisor)", m, "tx sample rate 0");
	m = good(), m.softirq_sample = PS_FH_SIRQ_MAX;
	CHECK_TRUE("firsthop: 1 softirq run in 65536 passes", ps_meta_problem(&m) == NULL);
	m = good(), m.softirq_sample = PS_FH_SIRQ_MAX + 1;
	expect("firsthop: 1 softirq run in 65537", m, "softirq sample rate out of range");
	m = good(), m.rx_queues_at_attach = 2, m.tx_queues_at_attach = 2;
	CHECK_TRUE("as many queues in use as there are passes", ps_meta_problem(&m) == NULL);
	m = good(), m.rx_queues_at_attach = 3;
	expect("3 RX queues in use of 2", m, "queues in use beyond the queue count");
	m = good(), m.tx_queues_at_attach = 3;
	expect("3 TX queues in use of 2", m, "queues in use beyond the queue count");

	ps_status_incomplete_text(line, sizeof(line), "/sys/fs/bpf/pathscope/1/3",
				  "unknown flag bits");
	CHECK_TRUE("status names the reason of a corrupt meta",
		   strcmp(line, "? /sys/fs/bpf/pathscope/1/3: incomplete (no meta: "
				"unknown flag bits); 'pathscope detach --gone' removes it") == 0);
	return check_exit_code();
}
