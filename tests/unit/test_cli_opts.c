// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The option tables of cli/options.h: the --help lines they make and the getopt tables
 * (short letters, long-only keys). */
#include <stdio.h>
#include <stdlib.h>

#include "tests/lib/check.h"
#include "cli/options.h"

enum { LONG_ONLY = PS_OPT_LONG, JOINED, HIDDEN, SPACED };

static const struct ps_opt opts[] = {
	{ "interval", 'i', "S", "every S seconds\n(rates over it)" },
	{ "long-only", LONG_ONLY, NULL, "no short option" },
	{ "a-long-option", 'a', "tp_btf|tracepoint", "on the next line" },
	{ "spaced", SPACED, "tp_btf|tracepoint", "   after three spaces" },
	{ "no-x", 'x', NULL, "x or y" },
	{ "no-y", JOINED, NULL, "" },
	{ "hidden", HIDDEN, NULL, NULL },
	{ "taken", PS_OPT_TAKEN, "A B", "listed, not getopt's" },
	{},
};

static const char want_help[] = "about\n"
				"  -i, --interval S  every S seconds\n"
				"                    (rates over it)\n"
				"  --long-only       no short option\n"
				"  -a, --a-long-option tp_btf|tracepoint\n"
				"                    on the next line\n"
				"  --spaced tp_btf|tracepoint   after three spaces\n"
				"  -x, --no-x, --no-y\n"
				"                    x or y\n"
				"  --taken A B       listed, not getopt's\n"
				"examples\n";

static const struct ps_command cmd = {
	.about = "about\n",
	.groups = { { .opts = opts, .col = 20 } },
	.examples = "examples\n",
};

/* The keys ps_opt_next returns for args (after "test"), as "i:5 L ..." */
static void parse(const char *what, const char *want, int n, char **args)
{
	char *argv[16] = { "test" }, got[128] = "";
	size_t at = 0;
	int i, c, rc = -1;

	for (i = 0; i < n; i++)
		argv[i + 1] = args[i];
	optind = 1;
	while ((c = ps_opt_next(&cmd, n + 1, argv, &rc)) != PS_OPT_END && at < sizeof(got)) {
		if (c == PS_OPT_EXIT) {
			at += (size_t)snprintf(got + at, sizeof(got) - at, "exit %d", rc);
			break;
		}
		at += (size_t)snprintf(got + at, sizeof(got) - at, "%s%d%s%s", at ? " " : "", c,
				       optarg ? ":" : "", optarg ? optarg : "");
	}
	check_report(!strcmp(got, want), what, "got '%s', want '%s'", got, want);
}

/* The --help lines: the column, a label too long for it, options on one
 * line, options the text describes, one the command takes out of argv itself. */
int main(void)
{
	char *buf = NULL, *a1[] = { "-i", "5", "--long-only", "-a", "v" },
	     *a2[] = { "--no-y", "--hidden", "--spaced=m" }, *a3[] = { "-L" },
	     *a4[] = { "--interval" }, *a5[] = { "--taken", "x" }, *a6[] = { "--tak=x" };
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	char want[64];

	ps_command_help(f, &cmd);
	fclose(f);
	check_report(!strcmp(buf, want_help), "--help: from the table, column, overflow, joined",
		     "got\n%s", buf);
	free(buf);

	snprintf(want, sizeof(want), "%d:5 %d %d:v", 'i', LONG_ONLY, 'a');
	parse("short and long options, their keys", want, 5, a1);
	snprintf(want, sizeof(want), "%d %d %d:m", JOINED, HIDDEN, SPACED);
	parse("joined, hidden, --name=value", want, 3, a2);
	fprintf(stderr, "(four errors on purpose:)\n");
	parse("a long-only key is no short option", "exit 2", 1, a3);
	parse("a missing value", "exit 2", 1, a4);
	parse("PS_OPT_TAKEN: unknown to getopt", "exit 2", 2, a5);
	parse("PS_OPT_TAKEN: nor an abbreviation of it", "exit 2", 1, a6);
	return check_failures ? 1 : 0;
}
