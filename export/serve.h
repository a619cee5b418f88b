/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The exporter behind `pathscope serve`: attach (or adopt) interfaces and
 * export them over HTTP (Prometheus /metrics, /healthz) and as JSON lines
 * until SIGTERM or SIGINT. */
#ifndef PATHSCOPE_EXPORT_SERVE_H
#define PATHSCOPE_EXPORT_SERVE_H

#include <net/if.h>
#include <stdbool.h>
#include <sys/socket.h>

#include "export/web_config.h"
#include "loader/attach.h"

#define PS_SERVE_MAX_IFACES	  64
#define PS_SERVE_DEFAULT_LISTEN	  "127.0.0.1:9464"
#define PS_SERVE_DEFAULT_INTERVAL 10.0

struct ps_serve_opts {
	const char *ifaces[PS_SERVE_MAX_IFACES]; /* distinct names */
	int nifaces;
	const char *listen; /* as given, for messages */
	struct sockaddr_storage addr;
	socklen_t addrlen;
	const char *jsonl;	      /* NULL: no JSON lines */
	double interval;	      /* seconds between JSON lines */
	bool keep;		      /* leave the interfaces attached on exit */
	__u32 queue_detail;	      /* PS_F_* exported per queue in /metrics (--detail) */
	bool native_histograms;	      /* protobuf with native histograms, to who asks */
	bool no_peer_metrics;	      /* no per-peer families in /metrics (clients' addresses) */
	struct ps_attach_opts attach; /* for the interfaces serve attaches itself */
	struct ps_web_config *web;    /* --web-config, loaded and checked; NULL: none */
	const char *web_file;	      /* its file, re-read when it changes and on SIGHUP */
};

/* Serve until SIGTERM or SIGINT; the exit status (0, or 1 after one line on
 * stderr). */
int ps_serve(const struct ps_serve_opts *o);

#endif /* PATHSCOPE_EXPORT_SERVE_H */
