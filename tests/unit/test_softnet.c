// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* /proc/net/softnet_stat parsing: the text of Linux 6.18, 5.x-6.x and 4.x kernels,
 * junk lines and empty input. */
#include <stdlib.h>
#include <unistd.h>

#include "tests/lib/check.h"
#include "nic/softnet.h"

#define CHECK_NA(name, got) CHECK_EQ_U64(name, got, PS_NA)

/* Recorded on the project's VM (2 CPUs, Linux 6.18). */
static const char v618[] =
    "00217c2f 00000000 00000387 00000000 00000000 00000000 00000000 00000000 00000000 "
    "00000000 00000000 00000000 00000000 00000000 00000000\n"
    "002d8a06 00000000 000003c0 00000000 00000000 00000000 00000000 00000000 00000000 "
    "00000000 00000000 00000000 00000001 00000000 00000000\n";

/* 13 columns; CPU 2 is offline, so the third line is CPU 3. */
static const char v13[] =
    "0000000a 00000001 00000002 00000000 00000000 00000000 00000000 00000000 00000000 "
    "00000003 00000004 00000005 00000000\n"
    "0000001a 00000011 00000012 00000000 00000000 00000000 00000000 00000000 00000000 "
    "00000013 00000014 00000015 00000001\n"
    "ffffffff 00000021 00000022 00000000 00000000 00000000 00000000 00000000 00000000 "
    "00000023 00000024 00000025 00000003\n";

/* 11 columns (Linux 4.x), with junk lines between and no final newline. */
static const char v11[] =
    "0000abcd 00000001 00000002 00000000 00000000 00000000 00000000 00000000 00000000 "
    "00000003 00000004\n"
    "\n"
    "not a softnet line\n"
    "00000001 0000000g 00000002\n"
    "-0000001 00000001\n"
    "00000001 00000001 11112222333344445\n"
    "   \t\n"
    "00000bcd 00000011 00000012 00000000 00000000 00000000 00000000 00000000 00000000 "
    "00000013 00000014";

/* 3 columns only: the rest is n/a. */
static const char v3[] = "00000005 00000006 00000007\n";

/* The texts: the text of Linux 6.18 (15 columns, CPU id in column 13), of
 * 5.x-6.x kernels (13 columns, CPU 2 offline so line and CPU id differ), of 4.x
 * (11 columns: no backlog length, no CPU id), junk lines and empty input. */
int main(void)
{
	struct ps_softnet_cpu c[8];
	int n;

	n = ps_softnet_parse(v618, c, 8);
	CHECK_EQ_U64("6.18: 2 CPUs", n, 2);
	CHECK_EQ_U64("6.18: cpu 0 processed", c[0].processed, 0x217c2f);
	CHECK_EQ_U64("6.18: cpu 0 dropped", c[0].dropped, 0);
	CHECK_EQ_U64("6.18: cpu 0 time_squeeze", c[0].time_squeeze, 0x387);
	CHECK_EQ_U64("6.18: cpu 0 received_rps", c[0].received_rps, 0);
	CHECK_EQ_U64("6.18: cpu 0 flow_limit_count", c[0].flow_limit_count, 0);
	CHECK_EQ_U64("6.18: cpu 0 backlog_len", c[0].backlog_len, 0);
	CHECK_TRUE("6.18: cpu ids from column 13", c[0].cpu_from_kernel && c[1].cpu_from_kernel);
	CHECK_EQ_U64("6.18: cpu ids", c[0].cpu * 10 + c[1].cpu, 1);
	CHECK_EQ_U64("6.18: cpu 1 processed", c[1].processed, 0x2d8a06);
	CHECK_EQ_U64("6.18: cpu 1 time_squeeze", c[1].time_squeeze, 0x3c0);

	n = ps_softnet_parse(v13, c, 8);
	CHECK_EQ_U64("13 columns: 3 CPUs", n, 3);
	CHECK_EQ_U64("13 columns: third line is cpu 3", c[2].cpu, 3);
	CHECK_EQ_U64("13 columns: cpu 0 processed", c[0].processed, 10);
	CHECK_EQ_U64("13 columns: cpu 1 dropped", c[1].dropped, 0x11);
	CHECK_EQ_U64("13 columns: cpu 1 time_squeeze", c[1].time_squeeze, 0x12);
	CHECK_EQ_U64("13 columns: cpu 1 received_rps (column 10)", c[1].received_rps, 0x13);
	CHECK_EQ_U64("13 columns: cpu 1 flow_limit_count (column 11)", c[1].flow_limit_count, 0x14);
	CHECK_EQ_U64("13 columns: cpu 1 backlog_len (column 12)", c[1].backlog_len, 0x15);
	CHECK_EQ_U64("13 columns: cpu 3 processed 0xffffffff", c[2].processed, 0xffffffffULL);

	n = ps_softnet_parse(v13, c, 2);
	CHECK_EQ_U64("13 columns, room for 2: 2", n, 2);

	n = ps_softnet_parse(v11, c, 8);
	CHECK_EQ_U64("11 columns with junk: 2 CPUs", n, 2);
	CHECK_TRUE("11 columns: cpu ids are line numbers",
		   !c[0].cpu_from_kernel && c[0].cpu == 0 && c[1].cpu == 1);
	CHECK_EQ_U64("11 columns: cpu 0 processed", c[0].processed, 0xabcd);
	CHECK_EQ_U64("11 columns: cpu 0 flow_limit_count", c[0].flow_limit_count, 4);
	CHECK_NA("11 columns: backlog_len n/a", c[0].backlog_len);
	CHECK_EQ_U64("11 columns: cpu 1 (no final newline) processed", c[1].processed, 0xbcd);
	CHECK_EQ_U64("11 columns: cpu 1 received_rps", c[1].received_rps, 0x13);

	n = ps_softnet_parse(v3, c, 8);
	CHECK_EQ_U64("3 columns: 1 CPU", n, 1);
	CHECK_EQ_U64("3 columns: time_squeeze", c[0].time_squeeze, 7);
	CHECK_NA("3 columns: received_rps n/a", c[0].received_rps);
	CHECK_NA("3 columns: flow_limit_count n/a", c[0].flow_limit_count);

	CHECK_EQ_U64("empty input: 0", ps_softnet_parse("", c, 8), 0);
	CHECK_EQ_U64("only newlines: 0", ps_softnet_parse("\n\n\n", c, 8), 0);
	CHECK_EQ_U64("room for 0: 0", ps_softnet_parse(v618, c, 0), 0);

	/* The live file: one line per online CPU. */
	{
		struct ps_softnet_cpu *live = NULL;

		n = ps_softnet_read(&live);
		CHECK_EQ_U64("live: one entry per online CPU", n, sysconf(_SC_NPROCESSORS_ONLN));
		free(live);
	}
	/* Regression (fuzz_softnet): a vertical tab or form feed between columns
	 * made the parser loop for ever; now it is a space like the others. */
	{
		struct ps_softnet_cpu c[2];

		CHECK_EQ_U64("vertical tab and form feed separate columns",
			     ps_softnet_parse("\v0000000a\f00000002 00000003\n", c, 2), 1);
		CHECK_EQ_U64("and the columns are read", c[0].processed + c[0].dropped, 12);
	}
	return check_exit_code();
}
