// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer: the /proc/net/softnet_stat parser on any text. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nic/softnet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_softnet_cpu cpus[8];
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	ps_softnet_parse(text, cpus, 8);
	free(text);
	return 0;
}
