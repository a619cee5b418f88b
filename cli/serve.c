// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `pathscope serve IFACE...`: the options; export/serve.c serves. */
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "cli/attach_options.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "export/web_config_load.h"
#include "export/http.h"
#include "export/serve.h"
#include "export/web_watch.h"
#include "lib/names.h"
#include "lib/util.h"

/* clang-format off: it would break the strings' lines */
static const char serve_usage[] =
    "usage: pathscope serve IFACE... [options]\n"
    "Attach to each IFACE, or adopt an attachment that is already live, then\n"
    "export its counters until SIGTERM or SIGINT. On the way out serve detaches\n"
    "what it attached, and leaves what it adopted: an attachment made by\n"
    "'pathscope attach' stays; one made by an earlier serve that died (SIGKILL,\n"
    "a crash, systemd's restart) is taken over and detached like its own.\n";

enum {
	LISTEN = PS_ATTACH_KEYS_END,
	JSONL,
	INTERVAL,
	KEEP,
	DETAIL,
	QUEUE_DETAIL,
	NATIVE_HISTOGRAMS,
	NO_PEER_METRICS,
	WEB_CONFIG,
};

static const struct ps_opt serve_opts[] = {
	{ "listen", LISTEN, "ADDR:PORT",
	  "HTTP address (default " PS_SERVE_DEFAULT_LISTEN "); [::1]:PORT for\n"
	  "IPv6, 0.0.0.0:PORT for every address. Routes: /metrics\n"
	  "(Prometheus text format 0.0.4), /healthz (200 \"ok\" while\n"
	  "every attachment is live, else 503 and the reason)" },
	{ "jsonl", JSONL, "FILE",
	  "append one line every --interval: what 'pathscope stats\n"
	  "--json' prints for these interfaces (same schema); SIGHUP\n"
	  "reopens FILE (log rotation)" },
	{ "interval", INTERVAL, "S", "seconds between JSON lines (default 10)" },
	{ "keep", KEEP, NULL, "on exit, leave attached also what serve attached" },
	{ "detail", DETAIL, "interface|queue",
	  "what /metrics exports per queue. interface (default):\n"
	  "per queue what differs between queues (packets, bytes,\n"
	  "CE marks, drops, matched and expired samples, the\n"
	  "driver's own counters), the rest (histograms, classes,\n"
	  "ECN, ...) per interface and hook; 1,083 series for 64\n"
	  "veth queues with the default features.\n"
	  "queue: every family per queue, as stats --json has it\n"
	  "(17,979). stats and --jsonl always have every queue" },
	{ "queue-detail", QUEUE_DETAIL, "LIST",
	  "with --detail interface, the features whose families\n"
	  "go per queue all the same (names as for --features)" },
	{ "native-histograms", NATIVE_HISTOGRAMS, NULL,
	  "to a scraper that asks for the protobuf format (Prometheus\n"
	  "with --enable-feature=native-histograms), answer in it,\n"
	  "each histogram a native one (one series, 16 buckets per\n"
	  "power of two) beside its classic buckets; text otherwise" },
	{ "no-peer-metrics", NO_PEER_METRICS, NULL,
	  "leave the per-peer families out of /metrics: the ICMP peers'\n"
	  "addresses (pathscope_icmp_peer_*) and the TCP peer subnets\n"
	  "(pathscope_tcp_peer_*), the balancer's clients. Totals per\n"
	  "queue and interface stay; --jsonl keeps the peers" },
	{ "web-config", WEB_CONFIG, "FILE",
	  "TLS, client certificates and basic authentication, in the\n"
	  "web config format of Prometheus' exporter-toolkit (as\n"
	  "node_exporter's --web.config.file): tls_server_config\n"
	  "(cert_file, key_file, client_auth_type NoClientCert,\n"
	  "VerifyClientCertIfGiven or RequireAndVerifyClientCert,\n"
	  "client_ca_file, min_version, max_version) and\n"
	  "basic_auth_users (user: bcrypt hash); read and checked\n"
	  "before anything is attached, and read again when it or\n"
	  "its PEM files change, or on SIGHUP (new certificates,\n"
	  "client CA, users; nothing is detached). Late headers\n"
	  "(5 s), more than 16 connections of one address and\n"
	  "request bodies are refused. See pathscope-serve(8)" },
	{},
};

static const char serve_examples[] =
    "examples:\n"
    "  pathscope serve eth1\n"
    "  pathscope serve eth1 eth2 --listen [::1]:9464 --features default,kernel\n"
    "  pathscope serve eth1 --xdp-chain        # beside a balancer's XDP program\n"
    "  pathscope serve eth1 --no-xdp --features default,tcp --peer-prefix 16,32\n"
    "  pathscope serve eth1 --jsonl /var/log/pathscope/eth1.jsonl --interval 60\n"
    "  pathscope serve eth1 --queue-detail d2s,tcp     # these latencies per queue\n"
    "  pathscope serve eth1 --detail queue --native-histograms\n"
    "  pathscope serve eth1 --listen 0.0.0.0:9464 --web-config /etc/pathscope/web.yml\n"
    "  curl -s http://127.0.0.1:9464/metrics | grep pathscope_packets_total\n"
    "  curl -s --cacert ca.pem -u prometheus https://host:9464/metrics  # with --web-config\n"
    "Needs CAP_BPF, CAP_NET_ADMIN and CAP_PERFMON (as root it has them);\n"
    "--xdp-chain also needs CAP_SYS_ADMIN. See pathscope-serve(8).\n";
/* clang-format on */

static bool listed(const struct ps_serve_opts *o, const char *name)
{
	int i;

	for (i = 0; i < o->nifaces; i++)
		if (strcmp(o->ifaces[i], name) == 0)
			return true;
	return false;
}

int ps_cmd_serve(int argc, char **argv)
{
	static const struct ps_command cmd = {
		.about = serve_usage,
		.groups = { { .opts = serve_opts, .col = 22 },
			    { .title = "attach's options, for the interfaces serve attaches (not "
				       "those it adopts):\n",
			      .opts = ps_attach_opts,
			      .col = PS_ATTACH_OPTS_COL } },
		.examples = serve_examples,
	};
	static struct ps_serve_opts o = {
		.listen = PS_SERVE_DEFAULT_LISTEN,
		.interval = PS_SERVE_DEFAULT_INTERVAL,
		.attach = { .features = PS_F_DEFAULT, .tc_prio = PS_TC_DEFAULT_PRIO },
	};
	static struct ps_web_config web;
	const char *web_file = NULL;
	__u32 level = 0, families = 0;
	int c, i, rc;

	while ((c = ps_opt_next(&cmd, argc, argv, &rc)) != PS_OPT_END) {
		switch (c) {
		case PS_OPT_EXIT:
			return rc;
		case LISTEN:
			o.listen = optarg;
			break;
		case JSONL:
			o.jsonl = optarg;
			break;
		case INTERVAL:
			if (ps_opt_seconds("interval", optarg, &o.interval))
				return 2;
			break;
		case KEEP:
			o.keep = true;
			break;
		case DETAIL:
			if (strcmp(optarg, "interface") == 0)
				level = 0;
			else if (strcmp(optarg, "queue") == 0)
				level = PS_F_ALL;
			else
				return ps_error("bad --detail '%s' (interface or queue)", optarg),
				       2;
			break;
		case QUEUE_DETAIL:
			if (ps_features_parse(optarg, &families))
				return 2;
			break;
		case NATIVE_HISTOGRAMS:
			o.native_histograms = true;
			break;
		case NO_PEER_METRICS:
			o.no_peer_metrics = true;
			break;
		case WEB_CONFIG:
			web_file = optarg;
			break;
		default:
			if (ps_attach_opt(c, optarg, &o.attach))
				return 2;
		}
	}
	o.queue_detail = level | families;
	if (optind == argc)
		return ps_error("serve: expected at least one interface name (see 'pathscope "
				"serve --help')"),
		       2;
	for (i = optind; i < argc; i++) {
		if (o.nifaces == PS_SERVE_MAX_IFACES)
			return ps_error("serve: at most %d interfaces", PS_SERVE_MAX_IFACES), 2;
		if (strlen(argv[i]) >= IF_NAMESIZE || !argv[i][0])
			return ps_error("serve: bad interface name '%s'", argv[i]), 2;
		if (listed(&o, argv[i]))
			return ps_error("serve: interface '%s' given twice", argv[i]), 2;
		o.ifaces[o.nifaces++] = argv[i];
	}
	if (ps_attach_opts_check("serve", &o.attach))
		return 2;
	if (ps_http_parse_listen(o.listen, &o.addr, &o.addrlen))
		return ps_error("bad --listen '%s' (A.B.C.D:PORT or [IPV6]:PORT, port 1..65535)",
				o.listen),
		       2;
	if (ps_require_load_privileges())
		return 1;
	/* Read and checked before anything is attached (the key may be
	 * readable by root only: after the privileges). */
	if (web_file) {
		rc = ps_web_load(web_file, &web);
		if (rc) {
			ps_web_config_free(&web);
			return rc;
		}
		o.web = &web;
		o.web_file = web_file;
	}
	rc = ps_serve(&o);
	if (o.web)
		ps_web_config_free(&web);
	return rc;
}
