/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef PATHSCOPE_NIC_CMD_H
#define PATHSCOPE_NIC_CMD_H

/* `pathscope nic IFACE [--json]`: argv[0] is "nic". Exit status: 0, 1 on a
 * runtime error (e.g. unknown interface), 2 on a usage error. */
int ps_cmd_nic(int argc, char **argv);

#endif /* PATHSCOPE_NIC_CMD_H */
