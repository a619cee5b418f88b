// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* serve's HTTP side (http.h): libmicrohttpd's thread, its routes and TLS. */
#include "export/http.h"
#include "export/web_config_load.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "export/auth_pool.h"
#include "export/web_auth.h"
#include "export/web_creds.h"
#include "lib/util.h"

/* What a client gets, whoever it is (docs/prometheus.md, "Hostile clients"). */
#define HEADER_DEADLINE_S	5  /* request line and headers, from connect or the last answer */
#define ANSWER_DEADLINE_S	10 /* from the headers to the answer drained: Prometheus' timeout */
#define IDLE_TIMEOUT_S		10 /* no byte either way, while an answer is written */
#define CONNECTIONS_PER_ADDRESS 16 /* Prometheus opens one per target */
#define CONNECTIONS_MAX		1024 /* all addresses; serve raises its RLIMIT_NOFILE to hold them */
#define LISTEN_BACKLOG		1024

/* One client connection, for its deadlines and its address's share. */
struct conn {
	struct ps_web_conn wc; /* first: web_auth.c reads the config of its TLS session */
	int fd;
	unsigned char addr[17]; /* the client's address family and address */
	double since;		/* CLOCK_MONOTONIC s: connected, or its last answer done */
	double deadline;	/* CLOCK_MONOTONIC s: serve closes it then */
	bool answering;		/* its headers are in: the answer is made or written */
	bool closing;		/* shut down by serve, not closed yet */
	struct conn *prev, *next;
};

struct ps_http {
	struct MHD_Daemon *d;
	const struct ps_http_route *routes;
	int nroutes;
	void *ctx;
	struct ps_auth_pool *pool;
	pthread_mutex_t lock;	   /* what follows */
	struct ps_web_config *web; /* NULL: plain HTTP, no authentication */
	/* Configs a reload replaced: a TLS session or a request may still use
	 * one, so they are freed when the server stops (they are small, and
	 * reloads are rare). web too, once it is one of them. */
	struct ps_web_config **owned;
	int nowned;
	struct conn *conns;
	pthread_cond_t wake; /* the sweeper's */
	pthread_t sweeper;
	bool sweeping, stopping;
};

/* One request, from its headers to its answer. */
struct request {
	struct ps_http *h;
	struct MHD_Connection *c;
	struct ps_web_config *web; /* in force when its headers came */
	struct ps_web_ask ask;
	struct ps_auth_job *job;
	enum { REQ_NEW, REQ_VERIFYING, REQ_BUSY, REQ_ANSWERED } state;
};

int ps_http_parse_listen(const char *spec, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon;
	uint64_t port;
	size_t hl;

	colon = strrchr(spec, ':');
	if (!colon || !ps_parse_u64(colon + 1, 65535, &port) || port == 0 || colon[1] == '0')
		return -1;
	hl = (size_t)(colon - spec);
	if (hl == 0 || hl >= sizeof(host))
		return -1;
	memcpy(host, spec, hl);
	host[hl] = '\0';
	memset(ss, 0, sizeof(*ss));
	if (host[0] == '[') {
		if (hl < 3 || host[hl - 1] != ']')
			return -1;
		host[hl - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &in6->sin6_addr) != 1)
			return -1;
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*in6);
		return 0;
	}
	if (inet_pton(AF_INET, host, &in4->sin_addr) != 1)
		return -1;
	in4->sin_family = AF_INET;
	in4->sin_port = htons((uint16_t)port);
	*len = sizeof(*in4);
	return 0;
}

int ps_http_listen(const struct sockaddr_storage *ss, socklen_t len)
{
	int fd, one = 1, err;

	fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* A restart must not wait for the old connections' TIME_WAIT. */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)ss, len) || listen(fd, LISTEN_BACKLOG)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

static enum MHD_Result reply(struct MHD_Connection *c, int status, char *body, size_t len,
			     const char *ctype)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	if (status == MHD_HTTP_SERVICE_UNAVAILABLE)
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1");
	ret = MHD_queue_response(c, (unsigned int)status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result text(struct MHD_Connection *c, int status, const char *msg)
{
	char *body = strdup(msg);

	return body ? reply(c, status, body, strlen(body), "text/plain; charset=utf-8") : MHD_NO;
}

/* 401 with WWW-Authenticate: Basic realm="pathscope". */
static enum MHD_Result unauthorized(struct MHD_Connection *c)
{
	static const char msg[] = "unauthorized\n";
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(sizeof(msg) - 1, (void *)msg, MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	ret = MHD_queue_basic_auth_fail_response(c, PS_WEB_REALM, r);
	MHD_destroy_response(r);
	return ret;
}

/* ---- deadlines and slots ----------------------------------------------------------- */

/* libmicrohttpd's own timeout is an idle timer, which one byte a second
 * resets: a client could hold a connection for ever with headers it never
 * finishes, or an answer it reads a byte at a time. Here each connection
 * has until HEADER_DEADLINE_S after it came (or after its last answer) to
 * finish a request's headers, and then ANSWER_DEADLINE_S for its answer to
 * drain; a sweeper thread shuts down the socket of one that did not, and
 * libmicrohttpd, seeing it closed, closes the connection. (The notification
 * of a closed connection comes before its socket is closed, under the same
 * lock: no socket number is touched once it may be reused.) */

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Under h->lock. */
static void conn_close(struct conn *k)
{
	shutdown(k->fd, SHUT_RDWR);
	k->closing = true;
}

static void *sweeper(void *arg)
{
	struct ps_http *h = arg;
	struct timespec until;
	double now, next;
	struct conn *k;

	pthread_mutex_lock(&h->lock);
	while (!h->stopping) {
		now = mono_s();
		next = 0;
		for (k = h->conns; k; k = k->next) {
			if (k->closing)
				continue;
			if (k->deadline <= now)
				conn_close(k);
			else if (!next || k->deadline < next)
				next = k->deadline;
		}
		if (!next) {
			pthread_cond_wait(&h->wake, &h->lock);
			continue;
		}
		until.tv_sec = (time_t)next;
		until.tv_nsec = (long)((next - (double)until.tv_sec) * 1e9);
		pthread_cond_timedwait(&h->wake, &h->lock, &until);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

static struct conn *conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

/* The connection's headers are in (answering: its answer is due within
 * ANSWER_DEADLINE_S), or the next request's headers are due within
 * HEADER_DEADLINE_S. */
static void conn_phase(struct ps_http *h, struct MHD_Connection *c, bool answering)
{
	struct conn *k = conn_of(c);
	double now = mono_s();

	if (!k)
		return;
	pthread_mutex_lock(&h->lock);
	k->answering = answering;
	if (!answering)
		k->since = now;
	k->deadline = now + (answering ? ANSWER_DEADLINE_S : HEADER_DEADLINE_S);
	pthread_cond_signal(&h->wake);
	pthread_mutex_unlock(&h->lock);
}

/* The family and the address of sa, the key of an address's share. */
static void addr_key(const struct sockaddr *sa, unsigned char key[17])
{
	memset(key, 0, 17);
	key[0] = (unsigned char)sa->sa_family;
	if (sa->sa_family == AF_INET6)
		memcpy(key + 1, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
	else if (sa->sa_family == AF_INET)
		memcpy(key + 1, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
}

/* A newcomer from an address that has CONNECTIONS_PER_ADDRESS open takes
 * the slot of that address's oldest connection still waiting for its
 * headers, which serve closes: a client that sends its request at once
 * always gets in, also beside slow ones behind the same NAT gateway or
 * Prometheus host. It is refused only when every one of them is being
 * answered. */
static enum MHD_Result admit(void *cls, const struct sockaddr *sa, socklen_t len)
{
	struct ps_http *h = cls;
	struct conn *k, *oldest = NULL;
	unsigned char key[17];
	enum MHD_Result ok = MHD_YES;
	int n = 0;

	(void)len;
	addr_key(sa, key);
	pthread_mutex_lock(&h->lock);
	for (k = h->conns; k; k = k->next) {
		if (k->closing || memcmp(k->addr, key, sizeof(key)) != 0)
			continue;
		n++;
		if (!k->answering && (!oldest || k->since < oldest->since))
			oldest = k;
	}
	if (n >= CONNECTIONS_PER_ADDRESS) {
		if (oldest)
			conn_close(oldest);
		else
			ok = MHD_NO;
	}
	pthread_mutex_unlock(&h->lock);
	return ok;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	const union MHD_ConnectionInfo *ci, *ca;
	struct ps_http *h = cls;
	struct conn *k = *socket_context;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		ca = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		k = calloc(1, sizeof(*k));
		if (!k || !ci || !ca) {
			free(k);
			return; /* no deadline, then: only the idle timeout */
		}
		k->fd = ci->connect_fd;
		addr_key(ca->client_addr, k->addr);
		/* Its headers' deadline before the sweeper can see it: a
		 * connection listed without one would be closed at once. */
		k->since = mono_s();
		k->deadline = k->since + HEADER_DEADLINE_S;
		pthread_mutex_lock(&h->lock);
		k->wc.web = h->web;
		k->next = h->conns;
		if (h->conns)
			h->conns->prev = k;
		h->conns = k;
		pthread_cond_signal(&h->wake);
		pthread_mutex_unlock(&h->lock);
		*socket_context = k;
		if (k->wc.web && k->wc.web->tls)
			ps_web_auth_tls_session(k->wc.web, c);
		return;
	}
	if (!k)
		return;
	pthread_mutex_lock(&h->lock);
	if (k->prev)
		k->prev->next = k->next;
	else
		h->conns = k->next;
	if (k->next)
		k->next->prev = k->prev;
	pthread_mutex_unlock(&h->lock);
	free(k);
	*socket_context = NULL;
}

/* ---- requests ---------------------------------------------------------------------- */

/* Does the request come with a body? (Every route is a GET.) */
static bool has_body(struct MHD_Connection *c)
{
	const char *cl =
	    MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);

	return (cl && strcmp(cl, "0") != 0) ||
	       MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);
}

/* The answer, once who asks is decided: before any byte of a body is read
 * (a request with one is refused, and libmicrohttpd closes the connection
 * after the answer instead of reading it). */
static enum MHD_Result answer(struct request *r, const char *url, const char *method,
			      enum ps_web_verdict v)
{
	struct ps_http *h = r->h;
	struct MHD_Connection *c = r->c;
	const char *ctype = "text/plain; charset=utf-8", *accept;
	char *body = NULL;
	size_t len = 0;
	int i, status;

	r->state = REQ_ANSWERED;
	if (v == PS_WEB_DROP)
		return MHD_NO;
	if (v != PS_WEB_ALLOW)
		return unauthorized(c);
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n");
	if (has_body(c))
		return text(c, MHD_HTTP_CONTENT_TOO_LARGE, "no request body is taken\n");
	for (i = 0; i < h->nroutes; i++)
		if (strcmp(url, h->routes[i].path) == 0)
			break;
	if (i == h->nroutes)
		return text(c, MHD_HTTP_NOT_FOUND, "not found (try /metrics or /healthz)\n");
	accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	status = h->routes[i].fn(h->ctx, accept, &body, &len, &ctype);
	if (!body)
		return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	return reply(c, status, body, len, ctype);
}

/* A worker has checked the password (under the pool's lock). */
static void verified(void *arg)
{
	struct request *r = arg;

	MHD_resume_connection(r->c);
}

/* The headers are in: who asks? bcrypt goes to the pool, and the
 * connection waits, suspended, for its verdict. */
static enum MHD_Result first_call(struct request *r, const char *url, const char *method)
{
	struct ps_http *h = r->h;
	enum ps_web_verdict v = PS_WEB_ALLOW;

	conn_phase(h, r->c, true);
	pthread_mutex_lock(&h->lock);
	r->web = h->web;
	pthread_mutex_unlock(&h->lock);
	if (r->web)
		v = ps_web_auth_check(r->web, r->c, &r->ask);
	if (v != PS_WEB_VERIFY)
		return answer(r, url, method, v);
	r->job = ps_auth_job_new(r->ask.pass, r->ask.pass_len, r->ask.hash, r->ask.user >= 0,
				 verified, r);
	if (!r->job)
		return MHD_NO;
	MHD_suspend_connection(r->c);
	if (ps_auth_pool_submit(h->pool, r->job)) {
		r->state = REQ_VERIFYING;
	} else {
		r->state = REQ_BUSY;
		MHD_resume_connection(r->c);
	}
	return MHD_YES;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	struct ps_http *h = cls;
	struct request *r = *con_cls;
	bool match;

	(void)version;
	(void)upload_data;
	if (!r) {
		r = calloc(1, sizeof(*r));
		if (!r)
			return MHD_NO;
		r->h = h;
		r->c = c;
		r->ask.user = -1;
		*con_cls = r;
		return first_call(r, url, method);
	}
	switch (r->state) {
	case REQ_VERIFYING: /* resumed */
		if (r->job->cancelled)
			return MHD_NO; /* serve stops */
		match = r->job->match;
		if (match) {
			pthread_mutex_lock(&h->lock);
			ps_web_ask_learn(r->web, &r->ask);
			pthread_mutex_unlock(&h->lock);
		}
		ps_auth_job_put(h->pool, r->job);
		r->job = NULL;
		ps_web_ask_clear(&r->ask);
		return answer(r, url, method, match ? PS_WEB_ALLOW : PS_WEB_UNAUTHORIZED);
	case REQ_BUSY:
		r->state = REQ_ANSWERED;
		return text(c, MHD_HTTP_SERVICE_UNAVAILABLE,
			    "busy: too many passwords waiting to be checked; retry\n");
	default: /* answered: a body is not read */
		*upload_data_size = 0;
		return MHD_YES;
	}
}

/* A request is over (answered, or its connection closed): the next
 * request's headers are due. */
static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct ps_http *h = cls;
	struct request *r = *con_cls;

	(void)toe;
	if (r) {
		if (r->job)
			ps_auth_job_put(h->pool, r->job);
		ps_web_ask_clear(&r->ask);
		free(r);
		*con_cls = NULL;
	}
	conn_phase(h, c, false);
}

/* Room for CONNECTIONS_MAX sockets beside serve's own files: the soft limit
 * of open files raised towards the hard one (1024 is the usual soft). */
static unsigned int connection_limit(void)
{
	struct rlimit rl;
	rlim_t want = CONNECTIONS_MAX + 256;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 64;
	if (rl.rlim_cur < want) {
		rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur >= want)
		return CONNECTIONS_MAX;
	return rl.rlim_cur > 256 + 64 ? (unsigned int)(rl.rlim_cur - 256) : 64;
}

struct ps_http *ps_http_start(int fd, const struct ps_http_route *routes, int nroutes, void *ctx,
			      struct ps_web_config *web)
{
	struct ps_http *h = calloc(1, sizeof(*h));
	struct MHD_OptionItem o[16];
	unsigned int flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME;
	pthread_condattr_t ca;
	int n = 0;

	if (!h)
		return NULL;
	h->routes = routes;
	h->nroutes = nroutes;
	h->ctx = ctx;
	h->web = web;
	pthread_mutex_init(&h->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->wake, &ca);
	pthread_condattr_destroy(&ca);
	h->pool = ps_auth_pool_start();
	if (!h->pool)
		goto fail;
	if (pthread_create(&h->sweeper, NULL, sweeper, h))
		goto fail;
	h->sweeping = true;
	o[n++] = (struct MHD_OptionItem){ MHD_OPTION_LISTEN_SOCKET, fd, NULL };
	o[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT, connection_limit(), NULL };
	o[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT, IDLE_TIMEOUT_S, NULL };
	o[n++] =
	    (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)on_connection, h };
	o[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, h };
	if (web && web->tls) {
		/* The certificate of each new connection comes from the config
		 * in force (a reload changes it without a restart); so does the
		 * client CA its certificate is verified against (web_auth.c). */
		flags |= MHD_USE_TLS;
		o[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_CERT_CALLBACK, 0,
						  (void *)ps_web_auth_cert };
		o[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES, 0, web->priorities };
	}
	o[n++] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	/* One internal thread polls every connection (epoll where there is
	 * one): no busy waiting; scrapes are served one at a time, and nothing
	 * on it waits for bcrypt (auth_pool.h). */
	h->d = MHD_start_daemon(flags, 0, admit, h, handle, h, MHD_OPTION_ARRAY, o, MHD_OPTION_END);
	if (!h->d)
		goto fail;
	return h;
fail:
	h->d = NULL;
	ps_http_stop(h);
	return NULL;
}

int ps_http_set_web(struct ps_http *h, struct ps_web_config *web, const char **why)
{
	struct ps_web_config **owned;

	if (!h->web || !!h->web->tls != !!web->tls)
		return *why = "TLS on or off", -1;
	if (web->tls && strcmp(h->web->priorities, web->priorities) != 0)
		return *why = "the TLS versions", -1;
	owned = realloc(h->owned, (size_t)(h->nowned + 1) * sizeof(*owned));
	if (!owned)
		return *why = "out of memory", -1;
	h->owned = owned;
	pthread_mutex_lock(&h->lock);
	ps_web_auth_carry(web, h->web);
	h->owned[h->nowned++] = web;
	h->web = web;
	pthread_mutex_unlock(&h->lock);
	return 0;
}

void ps_http_stop(struct ps_http *h)
{
	int i;

	if (!h)
		return;
	/* Connections waiting for a bcrypt are resumed, and closed: a worker
	 * may still be in one (up to a second at the highest cost taken). */
	if (h->pool)
		ps_auth_pool_stop(h->pool, verified);
	if (h->d)
		MHD_stop_daemon(h->d); /* joins its thread; closes the listening socket too */
	if (h->sweeping) {
		pthread_mutex_lock(&h->lock);
		h->stopping = true;
		pthread_cond_signal(&h->wake);
		pthread_mutex_unlock(&h->lock);
		pthread_join(h->sweeper, NULL);
	}
	if (h->pool)
		ps_auth_pool_put(h->pool);
	for (i = 0; i < h->nowned; i++) {
		ps_web_config_free(h->owned[i]);
		free(h->owned[i]);
	}
	free(h->owned);
	pthread_cond_destroy(&h->wake);
	pthread_mutex_destroy(&h->lock);
	free(h);
}
