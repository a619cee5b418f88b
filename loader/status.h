/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef PATHSCOPE_STATUS_H
#define PATHSCOPE_STATUS_H

/* `pathscope status [--json]`: every attachment, in every namespace. */
int ps_cmd_status(int argc, char **argv);

#endif /* PATHSCOPE_STATUS_H */
