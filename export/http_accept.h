/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The Accept header (RFC 9110 12.5.1): serve's text or protobuf exposition. */
#ifndef PATHSCOPE_EXPORT_HTTP_ACCEPT_H
#define PATHSCOPE_EXPORT_HTTP_ACCEPT_H

#include <stdbool.h>

/* Does an Accept header ask for the media type `type` with the parameters
 * `params` ("key=value" pairs separated by ';'; values compared as given,
 * keys and the type in any case) with a q above 0 and at least the q it gives
 * text/plain? Only a range naming that type counts, not a wildcard (which
 * text/plain matches as well). NULL accept: no. */
bool ps_http_accept_prefers(const char *accept, const char *type, const char *params);

#endif /* PATHSCOPE_EXPORT_HTTP_ACCEPT_H */
