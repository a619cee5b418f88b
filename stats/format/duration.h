/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Durations in human units, for the table cells and the histograms' bounds. */
#ifndef PATHSCOPE_STATS_FORMAT_DURATION_H
#define PATHSCOPE_STATS_FORMAT_DURATION_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* A duration in ns as a short human string (850ns, 45.3us, 12.1ms, 1.20s);
 * three_digits: three significant digits
 * (1.05ms, 524us), as the --hist bounds need to tell powers of two apart. */
void ps_fmt_duration(char *buf, size_t len, __u64 ns, bool three_digits);

#endif /* PATHSCOPE_STATS_FORMAT_DURATION_H */
