// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* pathscope: one binary, subcommands in the style of ip and bpftool. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "lib/liblog.h"
#include "lib/util.h"
#include "lib/version.h"
#include "stats/format/json.h"
#include "pathscope/abi.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "attach", ps_cmd_attach }, { "detach", ps_cmd_detach },     { "status", ps_cmd_status },
	{ "stats", ps_cmd_stats },   { "features", ps_cmd_features }, { "check", ps_cmd_check },
	{ "nic", ps_cmd_nic },	     { "serve", ps_cmd_serve },	      { "heatmap", ps_cmd_heatmap },
	{ "flows", ps_cmd_flows },
};

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: pathscope COMMAND [ARGS]\n"
	    "\n"
	    "Per-queue packet-path measurement with XDP and tc BPF programs.\n"
	    "\n"
	    "commands:\n"
	    "  attach IFACE [options]   load and attach the programs, pin their state\n"
	    "  detach IFACE | --all     remove exactly what pathscope attached\n"
	    "  detach --gone            only leftovers: interface or namespace gone,\n"
	    "                           attach interrupted\n"
	    "  status [--json]          list attachments (all network namespaces)\n"
	    "  stats [IFACE] [options]  per-queue report: table, --hist, --json\n"
	    "  check IFACE [options]    compare what each layer counted over an interval\n"
	    "  nic IFACE [--json]       NIC, queue and CPU facts from netlink and softnet_stat\n"
	    "  flows IFACE [options]    the flows behind each RX queue, RSS, why a queue is hot\n"
	    "  serve IFACE... [options] attach and export: Prometheus /metrics, JSON lines\n"
	    "  heatmap STAGE [IFACE]    a latency stage per queue over time as SVG, from a\n"
	    "                           recording (--from FILE) or live\n"
	    "  features [--json]        what this kernel supports, what pathscope uses\n"
	    "  help [COMMAND]           this list, or the options of COMMAND (-h, --help)\n"
	    "  version                  the version and the map ABI version (-V, --version)\n"
	    "\n"
	    "examples:\n"
	    "  pathscope attach eth1 --queues 0-3 --features class,ecn,sizes\n"
	    "  pathscope stats eth1 --interval 1 --count 10\n"
	    "  pathscope stats eth1 --json --hist\n"
	    "  pathscope check eth1 --duration 10\n"
	    "  pathscope -p status\n"
	    "  pathscope detach eth1\n"
	    "\n"
	    "global options (before COMMAND), as ip(8) and bpftool(8) have them:\n"
	    "  -j, --json     JSON output: the command's own --json (status, stats,\n"
	    "                 check, nic, features, flows)\n"
	    "  -p, --pretty   JSON indented for people to read (implies --json)\n"
	    "\n"
	    "'pathscope COMMAND --help' shows the options of a command.\n"
	    "Needs CAP_BPF, CAP_NET_ADMIN and CAP_PERFMON (run as root). Inside a network\n"
	    "namespace use 'nsenter --net=/var/run/netns/NAME pathscope ...'\n"
	    "('ip netns exec' hides /sys/fs/bpf).\n");
}

static int (*command(const char *name))(int, char **)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(name, commands[i].name) == 0)
			return commands[i].run;
	return NULL;
}

/* help [COMMAND]: the global help, or the command's own --help. */
static int help(int argc, char **argv)
{
	char *args[] = { argv[1], "--help", NULL };
	int (*run)(int, char **);

	if (argc == 1) {
		usage(stdout);
		return 0;
	}
	if (argc > 2)
		return ps_error("help: expected at most one command name"), 2;
	if (!(run = command(argv[1])))
		return ps_error("help: unknown command '%s' (see 'pathscope help')", argv[1]), 2;
	return run(2, args);
}

/* The commands that print JSON with --json: what global -j and -p apply to. */
static const char *const json_commands[] = {
	"status", "stats", "check", "nic", "features", "flows"
};
#define N_JSON_COMMANDS (sizeof(json_commands) / sizeof(json_commands[0]))

static bool has_json(const char *cmd)
{
	size_t i;

	for (i = 0; i < N_JSON_COMMANDS; i++)
		if (strcmp(cmd, json_commands[i]) == 0)
			return true;
	return false;
}

/* "status, stats, ..." for the error that names them. */
static void json_command_list(char *buf, size_t size)
{
	size_t i, at = 0;

	buf[0] = '\0';
	for (i = 0; i < N_JSON_COMMANDS && at < size; i++)
		at +=
		    (size_t)snprintf(buf + at, size - at, "%s%s", i ? ", " : "", json_commands[i]);
}

static bool is_help(const char *cmd)
{
	return !strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h");
}

static bool is_version(const char *cmd)
{
	return !strcmp(cmd, "version") || !strcmp(cmd, "--version") || !strcmp(cmd, "-V");
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
	const char *cmd;
	int (*run)(int, char **);
	bool json = false;

	ps_quiet_libs();
	/* Global options, before the command: -j/--json, -p/--pretty. */
	while (argc > 1 && argv[1][0] == '-') {
		if (strcmp(argv[1], "-j") == 0 || strcmp(argv[1], "--json") == 0)
			json = true;
		else if (strcmp(argv[1], "-p") == 0 || strcmp(argv[1], "--pretty") == 0)
			json = true, ps_json_set_pretty(true);
		else
			break;
		argc--, argv++;
	}
	cmd = argc > 1 ? argv[1] : NULL;
	if (!cmd) {
		usage(stderr);
		return 2;
	}
	if (json) {
		char names[128];

		run = command(cmd);
		if (!run && !is_help(cmd) && !is_version(cmd))
			return ps_error("unknown command '%s' (see 'pathscope help')", cmd), 2;
		if (!run || !has_json(cmd)) {
			json_command_list(names, sizeof(names));
			return ps_error("-j/--json and -p/--pretty: '%s' has no JSON output (they "
					"apply to %s)",
					cmd, names),
			       2;
		}
		return run_json(run, argc - 1, argv + 1);
	}
	if (is_help(cmd))
		return help(argc - 1, argv + 1);
	if (is_version(cmd)) {
		if (argc > 2)
			return ps_error("version: unexpected argument '%s'", argv[2]), 2;
		printf("pathscope %s (abi %d)\n", PATHSCOPE_VERSION, PS_ABI_VERSION);
		return 0;
	}
	if ((run = command(cmd)))
		return run(argc - 1, argv + 1);
	ps_error("unknown command '%s' (see 'pathscope help')", cmd);
	return 2;
}
