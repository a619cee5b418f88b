// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer: every parser of a command-line argument, on any bytes; whatever a parser
 * accepts must also make sense (abort() otherwise), so the target finds wrong
 * acceptances, not only crashes. */
#include <arpa/inet.h>
#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/queues.h"
#include "lib/util.h"
#include "loader/xdp_chain.h"
#include "lib/names.h"
#include "export/http.h"

static void queues(const uint8_t *data, size_t size)
{
	__u64 mask[PS_QMASK_WORDS];
	unsigned int limit, q;
	char err[160], *list;

	if (size < 2)
		return;
	limit = (unsigned int)(data[0] << 8 | data[1]) % (PS_MAX_QUEUES + 2);
	list = strndup((const char *)data + 2, size - 2);
	if (!list)
		return;
	if (ps_queues_parse(list, limit, mask, err, sizeof(err)) == 0)
		for (q = limit; q < PS_MAX_QUEUES; q++)
			if (ps_queue_selected(mask, q))
				abort(); /* a queue at or above the limit */
	free(list);
}

/* A number ps_parse_u64 accepts is written in digits only (decimal, 0x hex
 * or octal, as strtoull reads them): no sign, no space, nothing after it. */
static void number(const char *s)
{
	uint64_t v, max = 65535;
	const char *p = s;

	if (!ps_parse_u64(s, max, &v))
		return;
	if (v > max)
		abort();
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (; *p; p++)
		if (!isxdigit((unsigned char)*p))
			abort();
}

static void seconds(const char *s)
{
	double v;

	if (ps_parse_seconds(s, &v) && !(isfinite(v) && v > 0 && v <= 86400))
		abort();
}

static void listen_addr(const char *s)
{
	struct sockaddr_storage ss;
	socklen_t len;

	if (ps_http_parse_listen(s, &ss, &len))
		return;
	if (ss.ss_family == AF_INET) {
		if (len != sizeof(struct sockaddr_in) || !((struct sockaddr_in *)&ss)->sin_port)
			abort();
	} else if (ss.ss_family == AF_INET6) {
		if (len != sizeof(struct sockaddr_in6) || !((struct sockaddr_in6 *)&ss)->sin6_port)
			abort();
	} else {
		abort();
	}
}

static void features(const char *s)
{
	__u32 f;

	if (ps_features_parse(s, &f) == 0 && (f & ~PS_F_ALL))
		abort(); /* a bit no feature has */
}

static void xdp_join(const char *s)
{
	struct ps_meta m;

	memset(&m, 0, sizeof(m));
	if (ps_xdp_join_parse(s, &m))
		return;
	if (!m.join_path[0] || strnlen(m.join_path, sizeof(m.join_path)) >= sizeof(m.join_path))
		abort(); /* an empty or unterminated path */
}

/* The first byte picks the parser, the rest is the argument (NUL-terminated
 * copy):
 *   0 --queues (the next two bytes set the queue count first)
 *   1 --features    2 a number (--tc-prio, --sample, --count)
 *   3 seconds (--interval, --duration)    4 serve --listen    5 --xdp-join */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static void (*const parsers[])(const char *) = { features, number, seconds, listen_addr,
							 xdp_join };
	char *arg;

	if (size < 1)
		return 0;
	if (data[0] % 6 == 0) {
		queues(data + 1, size - 1);
		return 0;
	}
	arg = strndup((const char *)data + 1, size - 1);
	if (!arg)
		return 0;
	parsers[data[0] % 6 - 1](arg);
	free(arg);
	return 0;
}
