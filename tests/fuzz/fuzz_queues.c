// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer: the --queues list parser on any bytes, against any queue count. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../loader/queues.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	__u64 mask[PS_QMASK_WORDS];
	char err[160], *list;
	unsigned int limit;

	if (size < 2)
		return 0;
	limit = (unsigned int)(data[0] << 8 | data[1]) % (PS_MAX_QUEUES + 2);
	list = malloc(size - 1);
	if (!list)
		return 0;
	memcpy(list, data + 2, size - 2);
	list[size - 2] = '\0';
	ps_queues_parse(list, limit, mask, err, sizeof(err));
	free(list);
	return 0;
}
