// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Queue lists: "0-3,7" <-> a bitmap of PS_MAX_QUEUES bits (queues.h). */
#include "lib/queues.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Read a decimal queue number at *s; advance *s. -1 when none or too big. */
static long read_queue(const char **s)
{
	long v = 0;

	if (!isdigit((unsigned char)**s))
		return -1;
	while (isdigit((unsigned char)**s)) {
		v = v * 10 + (**s - '0');
		if (v >= PS_MAX_QUEUES)
			return -2;
		(*s)++;
	}
	return v;
}

int ps_queues_parse(const char *list, unsigned int limit, __u64 mask[PS_QMASK_WORDS], char *err,
		    size_t errlen)
{
	const char *s = list;
	long lo, hi, q;

	memset(mask, 0, PS_QMASK_WORDS * sizeof(__u64));
	if (!list || !*list) {
		snprintf(err, errlen, "empty queue list");
		return -1;
	}
	if (strcmp(list, "all") == 0) {
		for (q = 0; q < (long)limit && q < PS_MAX_QUEUES; q++)
			mask[q / 64] |= 1ULL << (q % 64);
		return 0;
	}
	for (;;) {
		lo = read_queue(&s);
		hi = lo;
		if (lo >= 0 && *s == '-') {
			s++;
			hi = read_queue(&s);
		}
		if (lo == -2 || hi == -2) {
			snprintf(err, errlen, "bad queue list '%s': queue numbers must be below %d",
				 list, PS_MAX_QUEUES);
			return -1;
		}
		if (lo < 0 || hi < 0 || (*s && *s != ',')) {
			snprintf(err, errlen,
				 "bad queue list '%s': expected numbers and ranges like 0-3,7",
				 list);
			return -1;
		}
		if (hi < lo) {
			snprintf(err, errlen, "bad queue list '%s': range %ld-%ld is reversed",
				 list, lo, hi);
			return -1;
		}
		if (hi >= (long)limit) {
			snprintf(err, errlen,
				 "bad queue list '%s': queue %ld does not exist (%u queues)", list,
				 hi, limit);
			return -1;
		}
		for (q = lo; q <= hi; q++)
			mask[q / 64] |= 1ULL << (q % 64);
		if (!*s)
			return 0;
		s++; /* ',' */
	}
}

void ps_queues_format(const __u64 mask[PS_QMASK_WORDS], char *buf, size_t len)
{
	size_t used = 0;
	unsigned int q = 0, end;
	int n;

	buf[0] = '\0';
	while (q < PS_MAX_QUEUES) {
		if (!ps_queue_selected(mask, q)) {
			q++;
			continue;
		}
		end = q;
		while (end + 1 < PS_MAX_QUEUES && ps_queue_selected(mask, end + 1))
			end++;
		if (end == q)
			n = snprintf(buf + used, len - used, "%s%u", used ? "," : "", q);
		else
			n = snprintf(buf + used, len - used, "%s%u-%u", used ? "," : "", q, end);
		if (n < 0 || (size_t)n >= len - used)
			return; /* truncated: still a terminated string */
		used += n;
		q = end + 1;
	}
	if (!used)
		snprintf(buf, len, "none");
}
