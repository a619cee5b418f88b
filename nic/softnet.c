// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* /proc/net/softnet_stat: one line per online CPU, hex columns. */
#include "nic/softnet.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SOFTNET_PATH   "/proc/net/softnet_stat"
#define MAX_COLUMNS    32
#define COL_PROCESSED  0 /* 0-based here, 1-based in softnet.h */
#define COL_DROPPED    1
#define COL_SQUEEZE    2
#define COL_RPS	       9
#define COL_FLOW_LIMIT 10
#define COL_BACKLOG    11
#define COL_CPU	       12

/* Split one line into hex numbers: their count, or -1 when it has anything else. */
static int parse_line(const char *s, const char *end, uint64_t *col)
{
	int n = 0;

	while (s < end) {
		char tok[20], *e;
		size_t len = 0;

		/* Every kind of space, or a \v or \f would stop the token loop
		 * below without consuming it, for ever (found by fuzz_softnet). */
		while (s < end && isspace((unsigned char)*s))
			s++;
		if (s == end)
			break;
		while (s < end && !isspace((unsigned char)*s)) {
			if (!isxdigit((unsigned char)*s) || len == 16)
				return -1;
			tok[len++] = *s++;
		}
		tok[len] = '\0';
		if (n < MAX_COLUMNS)
			col[n] = strtoull(tok, &e, 16);
		n++;
	}
	return n;
}

static uint64_t column(const uint64_t *col, int n, int i)
{
	return i < n ? col[i] : PS_NA;
}

int ps_softnet_parse(const char *text, struct ps_softnet_cpu *out, unsigned int max)
{
	unsigned int count = 0;
	const char *s = text;

	while (s && *s && count < max) {
		const char *nl = strchr(s, '\n'), *end = nl ? nl : s + strlen(s);
		uint64_t col[MAX_COLUMNS];
		struct ps_softnet_cpu *c = &out[count];
		int n = parse_line(s, end, col);

		s = nl ? nl + 1 : NULL;
		if (n <= 0)
			continue;
		c->processed = column(col, n, COL_PROCESSED);
		c->dropped = column(col, n, COL_DROPPED);
		c->time_squeeze = column(col, n, COL_SQUEEZE);
		c->received_rps = column(col, n, COL_RPS);
		c->flow_limit_count = column(col, n, COL_FLOW_LIMIT);
		c->backlog_len = column(col, n, COL_BACKLOG);
		c->cpu_from_kernel = n > COL_CPU;
		c->cpu = c->cpu_from_kernel ? (unsigned int)col[COL_CPU] : count;
		count++;
	}
	return (int)count;
}

/* The whole file: /proc files report size 0, so read until EOF. */
static char *slurp(const char *path)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap), *nbuf;
	ssize_t n;
	int fd;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	for (;;) {
		if (cap - len < 2) {
			nbuf = realloc(buf, cap * 2);
			if (!nbuf)
				break;
			buf = nbuf;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			if (n < 0) {
				free(buf);
				return NULL;
			}
			buf[len] = '\0';
			return buf;
		}
		len += (size_t)n;
	}
	close(fd);
	free(buf);
	errno = ENOMEM;
	return NULL;
}

int ps_softnet_read(struct ps_softnet_cpu **out)
{
	unsigned int lines = 1;
	char *text = slurp(SOFTNET_PATH), *p;
	int n;

	*out = NULL;
	if (!text)
		return -errno;
	for (p = text; *p; p++)
		lines += *p == '\n';
	*out = calloc(lines, sizeof(**out));
	if (!*out) {
		free(text);
		return -ENOMEM;
	}
	n = ps_softnet_parse(text, *out, lines);
	free(text);
	return n;
}

static void add_u64(json_object *o, const char *key, uint64_t v)
{
	json_object_object_add(o, key, v == PS_NA ? NULL : json_object_new_uint64(v));
}

json_object *ps_softnet_json(const struct ps_softnet_cpu *c, int n)
{
	json_object *a = json_object_new_array();
	int i;

	for (i = 0; i < n; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "cpu", json_object_new_int64(c[i].cpu));
		add_u64(o, "processed", c[i].processed);
		add_u64(o, "dropped", c[i].dropped);
		add_u64(o, "time_squeeze", c[i].time_squeeze);
		add_u64(o, "received_rps", c[i].received_rps);
		add_u64(o, "flow_limit_count", c[i].flow_limit_count);
		add_u64(o, "backlog_len", c[i].backlog_len);
		json_object_array_add(a, o);
	}
	return a;
}

static const char *num(char *buf, size_t len, uint64_t v)
{
	if (v == PS_NA)
		return "n/a";
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

void ps_softnet_print(FILE *out, const struct ps_softnet_cpu *c, int n)
{
	char b[6][24];
	int i;

	fprintf(out, "softnet (per CPU, all namespaces)\n");
	fprintf(out, "  %4s %12s %10s %10s %10s %10s %8s\n", "CPU", "PROCESSED", "DROPPED",
		"SQUEEZED", "RPS", "FLOW_LIMIT", "BACKLOG");
	for (i = 0; i < n; i++)
		fprintf(out, "  %4u %12s %10s %10s %10s %10s %8s\n", c[i].cpu,
			num(b[0], sizeof(b[0]), c[i].processed),
			num(b[1], sizeof(b[1]), c[i].dropped),
			num(b[2], sizeof(b[2]), c[i].time_squeeze),
			num(b[3], sizeof(b[3]), c[i].received_rps),
			num(b[4], sizeof(b[4]), c[i].flow_limit_count),
			num(b[5], sizeof(b[5]), c[i].backlog_len));
}
