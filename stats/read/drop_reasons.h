/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Names of the kernel's drop reasons (enum skb_drop_reason), read from the
 * running kernel's BTF, so they match whatever kernel pathscope runs on. */
#ifndef PATHSCOPE_STATS_READ_DROP_REASONS_H
#define PATHSCOPE_STATS_READ_DROP_REASONS_H

#include <linux/types.h>
#include <stddef.h>

/* The reason's name without the SKB_DROP_REASON_ prefix (e.g. NO_SOCKET),
 * or "reason_N" when the kernel's BTF does not name it. */
const char *ps_drop_reason_name(__u32 reason, char *buf, size_t len);

/* The value of a named reason (without prefix), or -1. */
long ps_drop_reason_value(const char *name);

#endif /* PATHSCOPE_STATS_READ_DROP_REASONS_H */
