// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `pathscope features`: what this kernel supports and what pathscope uses
 * (loader/features.c probes it). */
#include <stdio.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "lib/util.h"
#include "loader/features.h"
#include "stats/render/features_report.h"

static const char features_help[] =
    "usage: pathscope features [--json]\n"
    "Probe what this kernel supports (loads tiny programs, attaches nothing) and\n"
    "say what pathscope will use.\n";

static const struct ps_opt features_opts[] = { { "json", 'j', NULL, "one JSON object" }, {} };

int ps_cmd_features(int argc, char **argv)
{
	static const struct ps_command cmd = {
		.about = features_help,
		.groups = { { .opts = features_opts, .col = 15 } },
	};
	struct ps_features f;
	bool json = false;
	int c, rc;

	while ((c = ps_opt_next(&cmd, argc, argv, &rc)) != PS_OPT_END) {
		if (c == PS_OPT_EXIT)
			return rc;
		json = true; /* 'j' */
	}
	if (ps_operand_none(argc, argv))
		return 2;
	if (ps_require_privileges())
		return 1;
	ps_features_probe(&f);

	if (json)
		ps_features_json(stdout, &f);
	else
		ps_features_table(stdout, &f);
	return 0;
}
