/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Per-CPU sums in one place: a per-CPU map's values summed over the CPUs, and
 * the field by field arithmetic of structs made only of __u64. */
#ifndef PATHSCOPE_STATS_READ_PERCPU_H
#define PATHSCOPE_STATS_READ_PERCPU_H

#include <stddef.h>

/* dst += src, field by field, for structs made only of __u64 (n bytes). */
void ps_u64s_add(void *dst, const void *src, size_t n);
/* out = a - b, field by field (0 where b > a), likewise. */
void ps_u64s_sub(void *out, const void *a, const void *b, size_t n);

/* Look up key in a per-CPU map of values of size bytes (multiples of 8) and
 * sum the CPUs into out; percpu is scratch space for ncpus values. */
int ps_percpu_sum(int fd, const void *key, void *percpu, size_t size, int ncpus, void *out);

#endif /* PATHSCOPE_STATS_READ_PERCPU_H */
