// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Per-CPU sums in one place (see percpu.h). */
#include "stats/read/percpu.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <linux/types.h>
#include <string.h>

void ps_u64s_add(void *dst, const void *src, size_t n)
{
	const __u64 *s = src;
	__u64 *d = dst;
	size_t i;

	for (i = 0; i < n / sizeof(__u64); i++)
		d[i] += s[i];
}

void ps_u64s_sub(void *out, const void *a, const void *b, size_t n)
{
	const __u64 *x = a, *y = b;
	__u64 *o = out;
	size_t i;

	for (i = 0; i < n / sizeof(__u64); i++)
		o[i] = x[i] >= y[i] ? x[i] - y[i] : 0;
}

int ps_percpu_sum(int fd, const void *key, void *percpu, size_t size, int ncpus, void *out)
{
	int cpu;

	if (bpf_map_lookup_elem(fd, key, percpu))
		return -errno;
	memset(out, 0, size);
	for (cpu = 0; cpu < ncpus; cpu++)
		ps_u64s_add(out, (char *)percpu + cpu * size, size);
	return 0;
}
