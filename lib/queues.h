/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Queue lists: "0-3,7" <-> a bitmap of PS_MAX_QUEUES bits. */
#ifndef PATHSCOPE_LIB_QUEUES_H
#define PATHSCOPE_LIB_QUEUES_H

#include <linux/types.h>
#include <stddef.h>

#include "pathscope/abi.h"

/* Parse LIST ("all", "3", "0-3,7", ...) into mask. Returns 0, or -1 with a
 * one-line reason in err (errlen bytes). Every queue must be < limit. */
int ps_queues_parse(const char *list, unsigned int limit, __u64 mask[PS_QMASK_WORDS], char *err,
		    size_t errlen);

/* Format mask as a compact list ("0-3,7") into buf; "none" when empty. */
void ps_queues_format(const __u64 mask[PS_QMASK_WORDS], char *buf, size_t len);

static inline int ps_queue_selected(const __u64 mask[PS_QMASK_WORDS], unsigned int q)
{
	return q < PS_MAX_QUEUES && (mask[q / 64] >> (q % 64)) & 1;
}

#endif /* PATHSCOPE_LIB_QUEUES_H */
