/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The commands of pathscope, each defined in cli/<name>.c and dispatched by
 * commands[] of cli/main.c (argv[0] is the command's name). A header without a
 * .c of its own: it stands for the folder cli/, whose files include it. */
#ifndef PATHSCOPE_CLI_COMMANDS_H
#define PATHSCOPE_CLI_COMMANDS_H

int ps_cmd_attach(int argc, char **argv);
int ps_cmd_detach(int argc, char **argv);
int ps_cmd_status(int argc, char **argv);
int ps_cmd_stats(int argc, char **argv);
int ps_cmd_check(int argc, char **argv);
int ps_cmd_heatmap(int argc, char **argv);
int ps_cmd_nic(int argc, char **argv);
int ps_cmd_flows(int argc, char **argv);
int ps_cmd_serve(int argc, char **argv);
int ps_cmd_features(int argc, char **argv);

#endif /* PATHSCOPE_CLI_COMMANDS_H */
