/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef PATHSCOPE_CHECK_CMD_H
#define PATHSCOPE_CHECK_CMD_H

/* pathscope check IFACE [--duration S] [--json]: argv[0] is "check". */
int ps_cmd_check(int argc, char **argv);

#endif /* PATHSCOPE_CHECK_CMD_H */
