// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* --hist: each family's histograms, in the seed tools' style, in the
 * registry's order. */
#include "stats/render/render.h"

#include "stats/families/families.h"

void ps_render_hist(FILE *out, const struct ps_report *r, int n)
{
	size_t k;
	int i;

	for (i = 0; i < n; i++)
		for (k = 0; k < ps_nfamilies; k++)
			if (ps_families[k]->hist)
				ps_families[k]->hist(out, &r[i]);
}
