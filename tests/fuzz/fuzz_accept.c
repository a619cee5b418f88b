// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer: serve's Accept header parser (ps_http_accept_prefers) on any
 * header a scraper could send. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "export/http.h"
#include "export/http_accept.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *accept = malloc(size + 1);

	if (!accept)
		return 0;
	memcpy(accept, data, size);
	accept[size] = '\0'; /* libmicrohttpd hands over a C string */
	ps_http_accept_prefers(accept, "application/vnd.google.protobuf",
			       "proto=io.prometheus.client.MetricFamily;encoding=delimited");
	ps_http_accept_prefers(accept, "a", "b=;=c;;");
	free(accept);
	return 0;
}
