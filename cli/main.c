// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* pathscope: one binary, subcommands in the style of ip and bpftool. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "lib/liblog.h"
#include "lib/output.h"
#include "lib/util.h"
#include "lib/version.h"
#include "stats/format/json.h"
#include "pathscope/abi.h"

static int help(int argc, char **argv);
static int version(int argc, char **argv);

/* The commands, in the order 'pathscope help' lists them: dispatch, that
 * list and global -j/-p all come from here. */
static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	/* Its lines in 'pathscope help': its arguments, and what it does
	 * ('\n' between lines). */
	struct {
		const char *args, *summary;
	} usage[2];
	/* Takes global -j/-p (it has --json): its place in their list, as the
	 * global help and the error name them; 0: no JSON. */
	int json;
	const char *alias[2]; /* other names, listed after the summary */
} commands[] = {
	{ .name = "attach",
	  .run = ps_cmd_attach,
	  .usage = { { "IFACE [options]", "load and attach the programs, pin their state" } } },
	{ .name = "detach",
	  .run = ps_cmd_detach,
	  .usage = { { "IFACE | --all", "remove exactly what pathscope attached" },
		     { "--gone",
		       "only leftovers: interface or namespace gone,\nattach interrupted" } } },
	{ .name = "status",
	  .run = ps_cmd_status,
	  .json = 1,
	  .usage = { { "[--json]", "list attachments (all network namespaces)" } } },
	{ .name = "stats",
	  .run = ps_cmd_stats,
	  .json = 2,
	  .usage = { { "[IFACE] [options]", "per-queue report: table, --hist, --json" } } },
	{ .name = "check",
	  .run = ps_cmd_check,
	  .json = 3,
	  .usage = { { "IFACE [options]", "compare what each layer counted over an interval" } } },
	{ .name = "nic",
	  .run = ps_cmd_nic,
	  .json = 4,
	  .usage = { { "IFACE [--json]",
		       "NIC, queue and CPU facts from netlink and softnet_stat" } } },
	{ .name = "flows",
	  .run = ps_cmd_flows,
	  .json = 6,
	  .usage = { { "IFACE [options]",
		       "the flows behind each RX queue, RSS, why a queue is hot" } } },
	{ .name = "serve",
	  .run = ps_cmd_serve,
	  .usage = { { "IFACE... [options]",
		       "attach and export: Prometheus /metrics, JSON lines" } } },
	{ .name = "heatmap",
	  .run = ps_cmd_heatmap,
	  .usage = { { "STAGE [IFACE]", "a latency stage per queue over time as SVG, from "
					"a\nrecording (--from FILE) or live" } } },
	{ .name = "features",
	  .run = ps_cmd_features,
	  .json = 5,
	  .usage = { { "[--json]", "what this kernel supports, what pathscope uses" } } },
	{ .name = "help",
	  .run = help,
	  .alias = { "-h", "--help" },
	  .usage = { { "[COMMAND]", "this list, or the options of COMMAND" } } },
	{ .name = "version",
	  .run = version,
	  .alias = { "-V", "--version" },
	  .usage = { { "", "the version and the map ABI version" } } },
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))
#define USAGE_COL  27 /* of the summaries in 'pathscope help' */

/* The options before COMMAND. */
static char json_help[256]; /* with the JSON commands: json_help_init() */
static const struct ps_opt global_opts[] = {
	{ "json", 'j', NULL, json_help },
	{ "pretty", 'p', NULL, "JSON indented for people to read (implies --json)" },
	{},
};
#define GLOBAL_COL 17
#define FILL_COL   72 /* where the list of JSON commands wraps */

static const char usage_head[] = "usage: pathscope COMMAND [ARGS]\n"
				 "\n"
				 "Per-queue packet-path measurement with XDP and tc BPF programs.\n"
				 "\n"
				 "commands:\n";
static const char usage_examples[] =
    "\n"
    "examples:\n"
    "  pathscope attach eth1 --queues 0-3 --features class,ecn,sizes\n"
    "  pathscope stats eth1 --interval 1 --count 10\n"
    "  pathscope stats eth1 --json --hist\n"
    "  pathscope check eth1 --duration 10\n"
    "  pathscope -p status\n"
    "  pathscope detach eth1\n"
    "\n"
    "global options (before COMMAND), as ip(8) and bpftool(8) have them:\n";
static const char usage_tail[] =
    "\n"
    "'pathscope COMMAND --help' shows the options of a command.\n"
    "Needs CAP_BPF, CAP_NET_ADMIN and CAP_PERFMON (run as root). Inside a network\n"
    "namespace use 'nsenter --net=/var/run/netns/NAME pathscope ...'\n"
    "('ip netns exec' hides /sys/fs/bpf).\n";

/* "status, stats, ..." for the help and the error that name them, a line
 * break before a name that would end past column fill (0: no break) when
 * the text starts at column col. */
static void json_command_list(char *buf, size_t size, int col, int fill)
{
	size_t i, at = 0, len;
	int k, max = 0;

	buf[0] = '\0';
	for (i = 0; i < N_COMMANDS; i++)
		max = commands[i].json > max ? commands[i].json : max;
	for (k = 1; k <= max; k++)
		for (i = 0; i < N_COMMANDS && at < size; i++) {
			if (commands[i].json != k)
				continue;
			len = strlen(commands[i].name) + 1; /* with its ',' or ')' */
			if (at && fill && col + 1 + (int)len > fill) {
				at += (size_t)snprintf(buf + at, size - at, ",\n");
				col = GLOBAL_COL;
			} else if (at) {
				at += (size_t)snprintf(buf + at, size - at, ", ");
				col += 2;
			}
			at += (size_t)snprintf(buf + at, size - at, "%s", commands[i].name);
			col += (int)len - 1;
		}
}

static void json_help_init(void)
{
	static const char text[] = "JSON output: the command's own --json (";
	char names[192];

	json_command_list(names, sizeof(names), GLOBAL_COL + (int)strlen(text), FILL_COL);
	snprintf(json_help, sizeof(json_help), "%s%s)", text, names);
}

/* The summary's lines from column USAGE_COL, the aliases after the last. */
static void usage_line(FILE *out, const char *name, const char *args, const char *summary,
		       const char *const *alias)
{
	const char *nl;
	int n;

	n = fprintf(out, "  %s%s%s", name, args[0] ? " " : "", args);
	fprintf(out, "%*s", n < USAGE_COL ? USAGE_COL - n : 1, "");
	while ((nl = strchr(summary, '\n'))) {
		fprintf(out, "%.*s\n%*s", (int)(nl - summary), summary, USAGE_COL, "");
		summary = nl + 1;
	}
	fputs(summary, out);
	if (alias[0])
		fprintf(out, " (%s%s%s)", alias[0], alias[1] ? ", " : "", alias[1] ? alias[1] : "");
	fputc('\n', out);
}

static void usage(FILE *out)
{
	size_t i, u;

	fputs(usage_head, out);
	for (i = 0; i < N_COMMANDS; i++)
		for (u = 0; u < 2 && commands[i].usage[u].summary; u++)
			usage_line(out, commands[i].name, commands[i].usage[u].args,
				   commands[i].usage[u].summary,
				   u ? (const char *const[2]){} : commands[i].alias);
	fputs(usage_examples, out);
	json_help_init();
	ps_opts_help(out, global_opts, GLOBAL_COL);
	fputs(usage_tail, out);
}

/* The command called name (or one of its aliases), or NULL. */
static const struct command *command(const char *name)
{
	size_t i;

	for (i = 0; i < N_COMMANDS; i++)
		if (!strcmp(name, commands[i].name) ||
		    (commands[i].alias[0] && !strcmp(name, commands[i].alias[0])) ||
		    (commands[i].alias[1] && !strcmp(name, commands[i].alias[1])))
			return &commands[i];
	return NULL;
}

/* help [COMMAND]: the global help, or the command's own --help. */
static int help(int argc, char **argv)
{
	char *args[] = { argv[1], "--help", NULL };
	const struct command *c;

	if (argc == 1) {
		usage(stdout);
		return 0;
	}
	if (argc > 2)
		return ps_error("help: expected at most one command name"), 2;
	c = command(argv[1]);
	if (!c || c->run == help || c->run == version)
		return ps_error("help: unknown command '%s' (see 'pathscope help')", argv[1]), 2;
	return c->run(2, args);
}

static int version(int argc, char **argv)
{
	if (argc > 1)
		return ps_error("version: unexpected argument '%s'", argv[1]), 2;
	printf("pathscope %s (abi %d)\n", PATHSCOPE_VERSION, PS_ABI_VERSION);
	return 0;
}

/* arg is global option o (-j, --json). */
static bool is_opt(const char *arg, const struct ps_opt *o)
{
	return (arg[0] == '-' && arg[1] == o->key && !arg[2]) ||
	       (!strncmp(arg, "--", 2) && !strcmp(arg + 2, o->name));
}

/* COMMAND ARGS... with --json added at the end (getopt reads it anywhere). */
static int run_json(int (*run)(int, char **), int argc, char **argv)
{
	char **args = calloc((size_t)argc + 2, sizeof(*args));
	int rc;

	if (!args)
		return ps_error("out of memory"), 1;
	memcpy(args, argv, (size_t)argc * sizeof(*args));
	args[argc] = "--json";
	rc = run(argc + 1, args);
	free(args);
	return rc;
}

int main(int argc, char **argv)
{
	const struct command *c;
	bool json = false;
	int rc, out;

	ps_quiet_libs();
	ps_out_stdout_init();
	/* Global options, before the command: -j/--json, -p/--pretty. */
	while (argc > 1 && argv[1][0] == '-') {
		if (is_opt(argv[1], &global_opts[0]))
			json = true;
		else if (is_opt(argv[1], &global_opts[1]))
			json = true, ps_json_set_pretty(true);
		else
			break;
		argc--, argv++;
	}
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	c = command(argv[1]);
	if (!c)
		return ps_error("unknown command '%s' (see 'pathscope help')", argv[1]), 2;
	if (json && !c->json) {
		char names[128];

		json_command_list(names, sizeof(names), 0, 0);
		return ps_error("-j/--json and -p/--pretty: '%s' has no JSON output (they "
				"apply to %s)",
				argv[1], names),
		       2;
	}
	rc = json ? run_json(c->run, argc - 1, argv + 1) : c->run(argc - 1, argv + 1);
	/* A report that did not reach its reader is not a success. */
	out = ps_out_stdout();
	return out == PS_EXIT_PIPE || !rc ? out : rc;
}
