/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef PATHSCOPE_SERVE_CMD_H
#define PATHSCOPE_SERVE_CMD_H

/* `pathscope serve IFACE... [--listen ADDR:PORT] [--jsonl FILE] [--interval S]
 * [--keep] [--features LIST] [--queues LIST]`: argv[0] is "serve". Exit status:
 * 0, 1 on a runtime error, 2 on a usage error. */
int ps_cmd_serve(int argc, char **argv);

#endif /* PATHSCOPE_SERVE_CMD_H */
