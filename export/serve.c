// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* pathscope serve (cli/serve.c): attach (or adopt) interfaces, export their counters
 * over HTTP for Prometheus and as JSON lines, detach on SIGTERM/SIGINT. */
#include "export/serve.h"
#include "export/web_config_load.h"

#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <net/if.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/names.h"
#include "stats/format/prom_pb.h"
#include "stats/read/prog_stats.h"
#include "stats/render/render.h"
#include "stats/read/report.h"
#include "export/health.h"
#include "export/http.h"
#include "export/http_accept.h"
#include "export/web_watch.h"
#include "loader/attach.h"
#include "loader/detach.h"
#include "loader/iface_find.h"
#include "loader/pins.h"
#include "loader/status.h"
#include "stats/read/snapshot.h"
#include "lib/output.h"
#include "lib/util.h"
#include "lib/version.h"

#define MAX_IFACES	  PS_SERVE_MAX_IFACES
#define MAX_PROGS	  (MAX_IFACES * 32)
#define HEALTH_REASON_LEN 96

/* An interface is served by identity: the pin directory of its attachment
 * (per namespace and interface index, so a rename keeps it) and the meta
 * it had when serve attached or adopted it, to tell on exit that the
 * attachment there is still that one. */
struct served {
	char ifname[IF_NAMESIZE]; /* as serve was given it: its series keep it */
	bool attached_here;	  /* by this process (else adopted) */
	bool detach_at_exit;	  /* attached by this serve or by a serve before it */
	const char *how;	  /* "attached", "adopted", "taken over" */
	char dir[256];		  /* its pin directory ("" until attached) */
	struct ps_meta meta;	  /* as attached or adopted */
};

struct serve {
	struct served ifc[MAX_IFACES];
	int n;
	__u32 queue_detail;	/* --detail, --queue-detail */
	bool native_histograms; /* --native-histograms */
	bool no_peer_metrics;	/* --no-peer-metrics */
	pthread_mutex_t lock;
	/* JSON lines (main thread only) */
	const char *jsonl_path;
	struct ps_out_lines jsonl; /* .f NULL: not open */
	struct ps_snapshot prev[MAX_IFACES];
	bool have_prev[MAX_IFACES];
};

/* ---- identity ------------------------------------------------------------------ */

/* Record the attachment of c (by its name: at start). */
static void served_record(struct served *c)
{
	if (ps_snapshot_dir(c->ifname, c->dir, sizeof(c->dir)) || ps_meta_read(c->dir, &c->meta))
		memset(&c->meta, 0, sizeof(c->meta));
}

/* The same attachment as recorded: made at the same time by the same
 * process, with the same XDP program. */
static bool same_attachment(const struct ps_meta *a, const struct ps_meta *b)
{
	if (!b->attach_realtime_ns) /* not recorded: cannot tell */
		return true;
	return a->attach_realtime_ns == b->attach_realtime_ns && a->loader_pid == b->loader_pid &&
	       a->xdp_prog_id == b->xdp_prog_id && a->ifindex == b->ifindex &&
	       a->netns_ino == b->netns_ino;
}

/* The pin directory to read interface c from: the recorded one while it
 * is there (a renamed interface keeps it), else the one of its name now
 * (attached again after its pins went). */
static const char *served_dir(const struct served *c, char *buf, size_t len)
{
	if (c->dir[0] && access(c->dir, F_OK) == 0)
		return c->dir;
	if (ps_snapshot_dir(c->ifname, buf, len) == 0)
		return buf;
	return c->dir;
}

/* ---- HTTP routes (server thread) ------------------------------------------ */

/* The protobuf exposition, as Prometheus asks for it with native histograms on. */
#define PB_TYPE	  "application/vnd.google.protobuf"
#define PB_PARAMS "proto=io.prometheus.client.MetricFamily;encoding=delimited"

static int metrics(void *ctx, const char *accept, char **body, size_t *len, const char **ctype)
{
	struct serve *sv = ctx;
	struct ps_snapshot *snaps = calloc(MAX_IFACES, sizeof(*snaps));
	struct ps_prom_prog *progs = calloc(MAX_PROGS, sizeof(*progs));
	struct ps_prom_iface ifs[MAX_IFACES];
	struct ps_prom_extra x = {
		.version = PATHSCOPE_VERSION,
		.abi = PS_ABI_VERSION,
		.ifaces = ifs,
		.nifaces = sv->n,
		.queue_detail = sv->queue_detail,
		.no_peers = sv->no_peer_metrics,
		.protobuf =
		    sv->native_histograms && ps_http_accept_prefers(accept, PB_TYPE, PB_PARAMS),
	};
	char buf[256], why[HEALTH_REASON_LEN];
	const char *dir;
	FILE *f;
	int i, n = 0, rc;

	*body = NULL;
	if (!snaps || !progs)
		goto out;
	pthread_mutex_lock(&sv->lock);
	x.bpf_stats_enabled = ps_bpf_stats_enabled();
	x.progs = progs;
	for (i = 0; i < sv->n; i++) {
		dir = served_dir(&sv->ifc[i], buf, sizeof(buf));
		rc = ps_serve_health(dir, why, sizeof(why));
		snprintf(ifs[i].ifname, sizeof(ifs[i].ifname), "%s", sv->ifc[i].ifname);
		ifs[i].up = rc == 0;
		if (rc < 0 || ps_snapshot_read(dir, &snaps[n]))
			continue;
		n++;
		if (x.bpf_stats_enabled == 1)
			x.nprogs += ps_prog_stats_read(dir, sv->ifc[i].ifname, progs + x.nprogs,
						       MAX_PROGS - x.nprogs);
	}
	f = open_memstream(body, len);
	if (f) {
		rc = ps_render_prom(f, snaps, n, &x);
		if (fclose(f) || rc) {
			free(*body);
			*body = NULL;
		}
	}
	pthread_mutex_unlock(&sv->lock);
	for (i = 0; i < n; i++)
		ps_snapshot_free(&snaps[i]);
out:
	free(snaps);
	free(progs);
	*ctype = x.protobuf ? PS_PROM_PB_CONTENT_TYPE : PS_PROM_CONTENT_TYPE;
	return 200;
}

static int healthz(void *ctx, const char *accept, char **body, size_t *len, const char **ctype)
{
	struct serve *sv = ctx;
	char buf[256], why[HEALTH_REASON_LEN], notes[MAX_IFACES * (IF_NAMESIZE + 32)] = "";
	FILE *f = open_memstream(body, len);
	size_t k;
	int i, bad = 0;

	(void)accept;
	if (!f) {
		*body = NULL;
		return 500;
	}
	pthread_mutex_lock(&sv->lock);
	for (i = 0; i < sv->n; i++) {
		if (ps_serve_health(served_dir(&sv->ifc[i], buf, sizeof(buf)), why, sizeof(why))) {
			fprintf(f, "%s: %s\n", sv->ifc[i].ifname, why);
			bad++;
		} else if (strncmp(why, "ok (renamed to ", 15) == 0) {
			/* "ok (vB renamed to vC)": followed, and live */
			k = strlen(notes);
			snprintf(notes + k, sizeof(notes) - k, "%s%s %s", k ? ", " : " (",
				 sv->ifc[i].ifname, why + 4);
			notes[strlen(notes) - 1] = '\0';
		}
	}
	pthread_mutex_unlock(&sv->lock);
	if (!bad)
		fprintf(f, "ok%s%s\n", notes, notes[0] ? ")" : "");
	if (fclose(f)) {
		free(*body);
		*body = NULL;
	}
	*ctype = "text/plain; charset=utf-8";
	return bad ? 503 : 200;
}

static const struct ps_http_route routes[] = {
	{ "/metrics", metrics },
	{ "/healthz", healthz },
};

/* ---- JSON lines (main thread) ------------------------------------------------ */

static void jsonl_reopen(struct serve *sv)
{
	ps_out_lines_close(&sv->jsonl);
	if (ps_out_lines_open(&sv->jsonl, sv->jsonl_path, true))
		ps_error("cannot open %s: %s (retrying at the next interval)", sv->jsonl_path,
			 strerror(errno));
}

/* Read every interface; the ones read become the previous snapshots. */
static void jsonl_line(struct serve *sv, bool write)
{
	struct ps_snapshot cur[MAX_IFACES];
	struct ps_report r[MAX_IFACES];
	bool ok[MAX_IFACES];
	char buf[256];
	int i, n = 0;

	pthread_mutex_lock(&sv->lock);
	for (i = 0; i < sv->n; i++) {
		ok[i] = ps_snapshot_read(served_dir(&sv->ifc[i], buf, sizeof(buf)), &cur[i]) == 0;
		if (ok[i]) {
			ps_snapshot_read_placement(&cur[i]); /* as stats --json */
			ps_report_init(&r[n++], &cur[i], sv->have_prev[i] ? &sv->prev[i] : NULL);
		}
	}
	if (write && !sv->jsonl.f)
		jsonl_reopen(sv);
	/* A failed line is said, and cut off; the file is opened again at the
	 * next interval. */
	if (write && sv->jsonl.f) {
		ps_render_json(sv->jsonl.f, r, n);
		ps_out_lines_end(&sv->jsonl);
	}
	pthread_mutex_unlock(&sv->lock);
	for (i = 0; i < sv->n; i++) {
		if (!ok[i])
			continue;
		if (sv->have_prev[i])
			ps_snapshot_free(&sv->prev[i]);
		sv->prev[i] = cur[i];
		sv->have_prev[i] = true;
	}
}

/* ---- attach, detach ----------------------------------------------------------- */

/* The kernel objects an attachment holds: the programs, maps and links
 * pinned in its directory, the programs of its links and the maps of its
 * programs, each once (by id), and its pins; to say what was removed. A
 * program is opened by id (CAP_SYS_ADMIN), else its maps are not counted. */
#define HELD_MAX 512

struct held {
	__u32 prog[HELD_MAX], map[HELD_MAX];
	unsigned int nprogs, nmaps, nlinks, npins;
};

static void held_add(__u32 *set, unsigned int *n, __u32 id)
{
	unsigned int i;

	for (i = 0; i < *n && set[i] != id; i++)
		;
	if (id && i == *n && *n < HELD_MAX)
		set[(*n)++] = id;
}

static void held_count(const char *dir, struct held *h)
{
	struct bpf_prog_info pi;
	struct bpf_link_info li;
	struct bpf_map_info mi;
	__u32 len, ids[HELD_MAX], i, nmaps;
	struct dirent *de;
	int fd;
	DIR *d;

	memset(h, 0, sizeof(*h));
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' || (fd = ps_pin_open(dir, de->d_name)) < 0)
			continue;
		h->npins++;
		if (ps_pin_is(fd, PS_PIN_LINK)) {
			memset(&li, 0, sizeof(li));
			len = sizeof(li);
			h->nlinks++;
			if (bpf_obj_get_info_by_fd(fd, &li, &len) == 0)
				held_add(h->prog, &h->nprogs, li.prog_id);
		} else if (ps_pin_is(fd, PS_PIN_PROG)) {
			memset(&pi, 0, sizeof(pi));
			len = sizeof(pi);
			if (bpf_obj_get_info_by_fd(fd, &pi, &len) == 0)
				held_add(h->prog, &h->nprogs, pi.id);
		} else if (ps_pin_is(fd, PS_PIN_MAP)) {
			memset(&mi, 0, sizeof(mi));
			len = sizeof(mi);
			if (bpf_obj_get_info_by_fd(fd, &mi, &len) == 0)
				held_add(h->map, &h->nmaps, mi.id);
		}
		close(fd);
	}
	if (d)
		closedir(d);
	for (i = 0; i < h->nprogs; i++) {
		fd = bpf_prog_get_fd_by_id(h->prog[i]);
		if (fd < 0)
			continue;
		memset(&pi, 0, sizeof(pi));
		pi.nr_map_ids = HELD_MAX;
		pi.map_ids = (__u64)(unsigned long)ids;
		len = sizeof(pi);
		if (bpf_obj_get_info_by_fd(fd, &pi, &len) == 0)
			for (nmaps = 0; nmaps < pi.nr_map_ids && nmaps < HELD_MAX; nmaps++)
				held_add(h->map, &h->nmaps, ids[nmaps]);
		close(fd);
	}
}

/* Where interface c's attachment stands at exit, by identity, in a few
 * words for the line serve says: NULL when all is as attached (in place,
 * under its name). */
static const char *exit_state(const struct served *c, const struct ps_meta *m, char *buf,
			      size_t len)
{
	const char *state;
	bool in_reach;

	state = ps_attachment_health(c->dir, m, &in_reach);
	if (strncmp(state, PS_STATE_IFACE_GONE, strlen(PS_STATE_IFACE_GONE)) == 0 ||
	    strncmp(state, PS_STATE_NETNS_GONE, strlen(PS_STATE_NETNS_GONE)) == 0)
		snprintf(buf, len, "%s is gone", c->ifname);
	else if (strncmp(state, PS_STATE_MOVED, strlen(PS_STATE_MOVED)) == 0)
		snprintf(buf, len, "%s %.*s", c->ifname,
			 (int)(strstr(state, " (") ? (size_t)(strstr(state, " (") - state)
						   : strlen(state)),
			 state); /* "vB moved to namespace N" */
	else if (strncmp(state, "ok (renamed to ", 15) == 0)
		snprintf(buf, len, "%s was renamed to %.*s", c->ifname,
			 (int)strcspn(state + 15, ")"), state + 15);
	else
		return NULL;
	return buf;
}

/* Detach interface c's attachment if it is still the one recorded (serve's
 * own), wherever its interface now is (ps_detach_dir follows it by
 * identity); a later attachment there (after someone removed serve's,
 * `pathscope attach` again) is left, and said in one line. Under the
 * attach lock, as every detach. */
static int detach_one(const struct served *c)
{
	char line[160];
	const char *moved = NULL;
	struct held h;
	struct ps_meta m;
	int err = 0;

	if (!c->dir[0])
		return 0;
	if (ps_pins_lock())
		return -1;
	if (access(c->dir, F_OK)) {
		/* Detached meanwhile ('pathscope detach'): nothing of it left. */
		printf("%s: detached already (its pins are gone); nothing left to remove\n",
		       c->ifname);
	} else if (ps_meta_read(c->dir, &m) == 0 && !same_attachment(&m, &c->meta)) {
		printf("%s: attached again since serve attached it (pid %u): left as it is\n",
		       c->ifname, m.loader_pid);
	} else {
		if (ps_meta_read(c->dir, &m) == 0)
			moved = exit_state(c, &m, line, sizeof(line));
		if (moved)
			held_count(c->dir, &h);
		err = ps_detach_dir(c->dir, NULL);
		if (!err && moved)
			printf("%s: removed what serve attached (%u program%s, %u map%s, %u "
			       "link%s, %u pin%s)\n",
			       moved, h.nprogs, h.nprogs == 1 ? "" : "s", h.nmaps,
			       h.nmaps == 1 ? "" : "s", h.nlinks, h.nlinks == 1 ? "" : "s", h.npins,
			       h.npins == 1 ? "" : "s");
		else if (!err && ps_serve_xdp_left(&c->meta)) {
			/* libxdp finds the program by id: that needs CAP_SYS_ADMIN */
			ps_error("%s: XDP program %u is still attached after detach (without "
				 "CAP_SYS_ADMIN it cannot be removed; run 'ip link set dev %s "
				 "xdp off' as root)",
				 c->ifname, c->meta.xdp_prog_id, c->ifname);
			err = -1;
		}
	}
	ps_pins_unlock();
	fflush(stdout);
	return err;
}

/* Detach what this process attached (undo), or also what it took over from a
 * serve before it (exit); never what it adopted from 'pathscope attach',
 * and only what is still its own (detach_one). */
static void detach_all(struct serve *sv, bool undo, int *rc)
{
	int i;

	for (i = 0; i < sv->n; i++) {
		if (undo ? !sv->ifc[i].attached_here : !sv->ifc[i].detach_at_exit)
			continue;
		if (detach_one(&sv->ifc[i]))
			*rc = 1;
	}
}

/* Whether the serve that attached m still runs: its pid's command line is
 * "... serve ...". A live serve keeps its attachment; a dead one's is taken
 * over. */
static bool attaching_serve_alive(const struct ps_meta *m)
{
	char path[64], cmd[256];
	size_t n, i;
	FILE *f;

	if (!m->loader_pid || m->loader_pid == (__u32)getpid())
		return false;
	snprintf(path, sizeof(path), "/proc/%u/cmdline", m->loader_pid);
	if (!(f = fopen(path, "r")))
		return false;
	n = fread(cmd, 1, sizeof(cmd) - 1, f);
	fclose(f);
	cmd[n] = '\0';
	for (i = 0; i < n; i += strlen(cmd + i) + 1)
		if (strcmp(cmd + i, "serve") == 0)
			return true;
	return false;
}

/* Attach every interface not attached yet; adopt the others. On failure,
 * undo what was attached here. */
static int attach_all(struct serve *sv, const struct ps_attach_opts *base)
{
	struct ps_attach_opts o;
	struct ps_meta m;
	char dir[256], why[HEALTH_REASON_LEN];
	int i, rc, ignored = 0;

	for (i = 0; i < sv->n; i++) {
		dir[0] = '\0';
		if (ps_snapshot_dir(sv->ifc[i].ifname, dir, sizeof(dir)) == -ENODEV) {
			ps_error_unknown_iface(sv->ifc[i].ifname);
			goto undo;
		}
		rc = dir[0] ? ps_serve_health(dir, why, sizeof(why)) : -1;
		if (rc == 0) {
			served_record(&sv->ifc[i]);
			/* Adopt a live attachment; one a serve made that has
			 * died (this is its restart) is this serve's to detach. */
			sv->ifc[i].detach_at_exit = ps_meta_read(dir, &m) == 0 &&
						    (m.flags & PS_META_BY_SERVE) &&
						    !attaching_serve_alive(&m);
			sv->ifc[i].how = sv->ifc[i].detach_at_exit ? "taken over" : "adopted";
			continue;
		}
		/* Absent, or leftover state: attach removes leftovers itself. */
		o = *base;
		o.ifname = sv->ifc[i].ifname;
		o.by_serve = true;
		if (ps_attach(&o))
			goto undo;
		served_record(&sv->ifc[i]);
		sv->ifc[i].attached_here = sv->ifc[i].detach_at_exit = true;
		sv->ifc[i].how = "attached";
	}
	return 0;
undo:
	detach_all(sv, true, &ignored);
	return -1;
}

/* ---- the command ----------------------------------------------------------------- */

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The web config again, if forced (SIGHUP) or once its files changed and
 * then stayed as they are for a look (a second: a certificate and its key
 * are two files, written one after the other): from the next connection
 * on, without a restart (nothing is detached). A config that fails its
 * checks is not taken: the one in force stays. */
static void web_reload(struct ps_http *http, struct ps_web_watch *w, bool forced)
{
	static bool settling;
	struct ps_web_config *c;
	const char *why;

	if (ps_web_watch_changed(w)) {
		settling = true;
		if (!forced)
			return;
	}
	if (!forced && !settling)
		return;
	settling = false;
	c = calloc(1, sizeof(*c));
	if (!c)
		return;
	if (ps_web_load(w->file, c)) {
		ps_error("%s: not reloaded: the web config in force stays", w->file);
		goto out;
	}
	if (ps_http_set_web(http, c, &why)) {
		ps_error("%s: not reloaded: %s changed, which needs a restart", w->file, why);
		goto out;
	}
	ps_web_watch_init(w, w->file, c);
	printf("reloaded %s\n", w->file);
	fflush(stdout);
	return; /* http's now */
out:
	ps_web_config_free(c);
	free(c);
}

/* Wait for signals until one asks to stop; write JSON lines on time, and
 * look at the web config's files once a second. Threads: libmicrohttpd
 * answers scrapes on its own thread; the main thread waits for signals here
 * (sigtimedwait, which also paces the JSON lines). Every signal is blocked
 * before the server thread starts, so only sigtimedwait sees them. Map reads
 * and rendering take one lock: the drop reason names are loaded from BTF
 * lazily, by whoever asks first. */
static void serve_loop(struct serve *sv, const sigset_t *set, double interval, struct ps_http *http,
		       struct ps_web_watch *w)
{
	double next = mono_s() + interval, left;
	struct timespec ts;
	int sig;

	for (;;) {
		left = sv->jsonl_path ? next - mono_s() : -1;
		if (left < 0 && sv->jsonl_path)
			left = 0;
		if (w->file && (left < 0 || left > 1))
			left = 1;
		if (left >= 0) {
			ts.tv_sec = (time_t)left;
			ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
			sig = sigtimedwait(set, NULL, &ts);
		} else {
			sig = sigwaitinfo(set, NULL);
		}
		if (sig == SIGINT || sig == SIGTERM)
			return;
		if (sig == SIGHUP) {
			if (sv->jsonl_path)
				jsonl_reopen(sv);
			if (w->file)
				web_reload(http, w, true);
			continue;
		}
		if (sig < 0 && errno == EAGAIN) {
			if (w->file)
				web_reload(http, w, false);
			if (sv->jsonl_path && mono_s() >= next) {
				jsonl_line(sv, true);
				next += interval;
				if (next < mono_s()) /* fell behind (suspend): restart the beat */
					next = mono_s() + interval;
			}
		}
	}
}

int ps_serve(const struct ps_serve_opts *o)
{
	static struct serve sv = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct ps_web_watch watch = { 0 };
	struct ps_http *http;
	sigset_t set;
	int i, fd, rc = 0;

	for (i = 0; i < o->nifaces && i < MAX_IFACES; i++)
		snprintf(sv.ifc[sv.n++].ifname, IF_NAMESIZE, "%s", o->ifaces[i]);
	sv.jsonl_path = o->jsonl;
	sv.queue_detail = o->queue_detail;
	sv.native_histograms = o->native_histograms;
	sv.no_peer_metrics = o->no_peer_metrics;
	fd = ps_http_listen(&o->addr, o->addrlen);
	if (fd < 0)
		return ps_error("cannot listen on %s: %s", o->listen, strerror(-fd)), 1;
	if (sv.jsonl_path) {
		if (ps_out_lines_open(&sv.jsonl, sv.jsonl_path, true)) {
			ps_error("cannot open %s: %s", sv.jsonl_path, strerror(errno));
			close(fd);
			return 1;
		}
	}
	/* Blocked from here on, in this thread and in the server's: a signal
	 * during attach is taken after it, and undoes it. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (attach_all(&sv, &o->attach)) {
		close(fd);
		rc = 1;
		goto out;
	}
	http = ps_http_start(fd, routes, (int)(sizeof(routes) / sizeof(routes[0])), &sv, o->web);
	if (!http) {
		ps_error("cannot start the HTTP server on %s", o->listen);
		close(fd);
		detach_all(&sv, true, &rc);
		rc = 1;
		goto out;
	}
	for (i = 0; i < sv.n; i++)
		printf("serving %s (%s) on %s://%s/metrics\n", sv.ifc[i].ifname, sv.ifc[i].how,
		       o->web && o->web->tls ? "https" : "http", o->listen);
	fflush(stdout);
	if (sv.jsonl_path)
		jsonl_line(&sv, false); /* the first line's rates start here */

	if (o->web && o->web_file)
		ps_web_watch_init(&watch, o->web_file, o->web);
	serve_loop(&sv, &set, o->interval, http, &watch);
	ps_web_watch_free(&watch);

	ps_http_stop(http); /* waits for a scrape in flight */
	if (!o->keep)
		detach_all(&sv, false, &rc);
out:
	for (i = 0; i < sv.n; i++)
		if (sv.have_prev[i])
			ps_snapshot_free(&sv.prev[i]);
	ps_out_lines_close(&sv.jsonl);
	return rc;
}
