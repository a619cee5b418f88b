// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* --hist: each family's histograms, in the seed tools' style. */
#include "stats/render/render.h"

#include "stats/families/families.h"

void ps_render_hist(FILE *out, const struct ps_report *r, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		ps_echo_hist(out, &r[i]);
		ps_tcp_hist(out, &r[i]);
		ps_d2s_hist(out, &r[i]);
		ps_sock_hist(out, &r[i]);
		ps_txlat_hist(out, &r[i]);
		ps_sizes_hist(out, &r[i]);
	}
}
