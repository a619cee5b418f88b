// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The latency stages (stages.h): the families' own, gathered in path order. */
#include "stats/families/stages.h"

#include <stdio.h>
#include <string.h>

#define PS_MAX_STAGES 32

static struct ps_stage stages[PS_MAX_STAGES];
const struct ps_stage *const ps_stages = stages;
size_t ps_nstages;

/* Before main: each part of the path in turn, the registry's families in
 * their order, each family's stages of that part in its order. */
__attribute__((constructor)) static void gather(void)
{
	const struct ps_family *f;
	size_t i, k;
	int path;

	for (path = PS_PATH_RX; path <= PS_PATH_HOST; path++)
		for (i = 0; i < ps_nfamilies; i++) {
			f = ps_families[i];
			for (k = 0; k < f->nstages && ps_nstages < PS_MAX_STAGES; k++) {
				if (f->stages[k].path != (enum ps_stage_path)path)
					continue;
				stages[ps_nstages] = f->stages[k];
				stages[ps_nstages].feature = f->features;
				stages[ps_nstages].on = f->on;
				ps_nstages++;
			}
		}
}

static bool same_name(const char *want, const char *name)
{
	for (; *want && *name; want++, name++)
		if (*want != *name && !(*want == '_' && *name == '-'))
			return false;
	return !*want && !*name;
}

const struct ps_stage *ps_stage_find(const char *name)
{
	size_t k;

	for (k = 0; k < ps_nstages; k++)
		if (same_name(ps_stages[k].key, name) ||
		    (ps_stages[k].alias && same_name(ps_stages[k].alias, name)))
			return &ps_stages[k];
	return NULL;
}

void ps_stage_names(char *buf, size_t len)
{
	size_t k, at = 0;
	int w;

	buf[0] = '\0';
	for (k = 0; k < ps_nstages && at < len; k++) {
		w = snprintf(buf + at, len - at, "%s%s", k ? ", " : "", ps_stages[k].key);
		at += w > 0 ? (size_t)w : 0;
		if (ps_stages[k].alias && at < len) {
			w = snprintf(buf + at, len - at, " (%s)", ps_stages[k].alias);
			at += w > 0 ? (size_t)w : 0;
		}
	}
}

bool ps_stage_on(const struct ps_stage *st, const struct ps_snapshot *s)
{
	if (!(s->meta.features & st->feature) || !st->on(s))
		return false;
	return !st->has || st->has(s);
}
