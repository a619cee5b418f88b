// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Durations in human units, below the table cells and the histograms. */
#include "stats/format/duration.h"

#include <stdio.h>

void ps_fmt_duration(char *buf, size_t len, __u64 ns, bool three_digits)
{
	static const struct {
		double below, div;
		const char *unit;
	} units[] = { { 1e6, 1e3, "us" }, { 1e9, 1e6, "ms" }, { 0, 1e9, "s" } };
	size_t i;

	if (ns < 1000) {
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
		return;
	}
	for (i = 0; units[i].below && ns >= units[i].below; i++)
		;
	if (three_digits)
		snprintf(buf, len, "%.3g%s", ns / units[i].div, units[i].unit);
	else
		snprintf(buf, len, units[i].below ? "%.1f%s" : "%.2f%s", ns / units[i].div,
			 units[i].unit);
}
