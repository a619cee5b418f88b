/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef PATHSCOPE_STATS_CMD_H
#define PATHSCOPE_STATS_CMD_H

/* `pathscope stats [IFACE...] [--interval S] [--count N] [--json] [--hist]` */
int ps_cmd_stats(int argc, char **argv);

#endif /* PATHSCOPE_STATS_CMD_H */
