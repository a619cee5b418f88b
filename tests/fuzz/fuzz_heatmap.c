// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer: a recording for pathscope heatmap, as anyone could have edited it
 * (stats/analysis/heatmap.c); whatever is accepted is drawn without reading past an
 * array, a string or a histogram. The seeds are real recordings. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "stats/analysis/heatmap.h"
#include "stats/render/heatmap_svg.h"

/* The input is read as JSON lines into every stage at once, as the budget
 * view reads it; then the heatmap of each stage and the budget are drawn. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_heat *heats = calloc(ps_nstages, sizeof(*heats));
	FILE *in, *out = fopen("/dev/null", "w");
	char err[256];
	size_t k;

	if (!heats || !out)
		abort();
	for (k = 0; k < ps_nstages; k++)
		heats[k].stage = &ps_stages[k];
	in = fmemopen((void *)data, size ? size : 1, "r");
	if (in && size && ps_heat_read(heats, ps_nstages, in, "fuzz", err, sizeof(err)) == 0) {
		for (k = 0; k < ps_nstages; k++)
			ps_heat_svg(out, &heats[k]);
		ps_budget_svg(out, heats);
	}
	if (in)
		fclose(in);
	for (k = 0; k < ps_nstages; k++)
		ps_heat_free(&heats[k]);
	free(heats);
	fclose(out);
	return 0;
}
