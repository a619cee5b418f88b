// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "export/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "export/web_auth.h"
#include "lib/util.h"

struct ps_http {
	struct MHD_Daemon *d;
	const struct ps_http_route *routes;
	int nroutes;
	void *ctx;
	struct ps_web_config *web; /* NULL: plain HTTP, no authentication */
};

/* ---- Accept (RFC 9110 12.5.1) -------------------------------------------------- */

/* [s, e) without the spaces and tabs around it. */
static void trim(const char **s, const char **e)
{
	while (*s < *e && (**s == ' ' || **s == '\t'))
		(*s)++;
	while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t'))
		(*e)--;
}

/* Is [s, e) the string z, in any case? */
static bool token_is(const char *s, const char *e, const char *z)
{
	size_t n = strlen(z);

	return (size_t)(e - s) == n && strncasecmp(s, z, n) == 0;
}

/* A q value ("0", "0.5", "1", "1.000"; RFC 9110 12.4.2), or -1 if malformed:
 * below every valid q, such a range never counts. */
static double qvalue(const char *s, const char *e)
{
	double q, scale = 1;
	int digits = 0;

	if (s == e || (*s != '0' && *s != '1'))
		return -1;
	q = *s++ - '0';
	if (s < e && *s++ != '.')
		return -1;
	for (; s < e; s++) {
		if (*s < '0' || *s > '9' || ++digits > 3)
			return -1;
		scale /= 10;
		q += (*s - '0') * scale;
	}
	return q > 1 ? -1 : q;
}

/* One parameter of a media range: key [k, ke), value [v, ve) (unquoted). */
struct param {
	const char *k, *ke, *v, *ve;
};

/* The next parameter of the list [*p, e) ("; k=v; k=v"); false at its end. */
static bool next_param(const char **p, const char *e, struct param *pm)
{
	const char *s, *pe, *eq;

	while (*p < e) {
		s = *p;
		pe = memchr(s, ';', (size_t)(e - s));
		if (!pe)
			pe = e;
		*p = pe < e ? pe + 1 : e;
		eq = memchr(s, '=', (size_t)(pe - s));
		if (!eq)
			continue;
		pm->k = s, pm->ke = eq, pm->v = eq + 1, pm->ve = pe;
		trim(&pm->k, &pm->ke);
		trim(&pm->v, &pm->ve);
		if (pm->ve - pm->v >= 2 && *pm->v == '"' && pm->ve[-1] == '"')
			pm->v++, pm->ve--;
		return true;
	}
	return false;
}

/* Does the parameter list [s, e) hold every pair of params ("k=v;k=v")? */
static bool has_params(const char *s, const char *e, const char *params)
{
	const char *r, *re, *eq, *p;
	struct param pm;
	bool found;

	for (r = params; *r; r = *re ? re + 1 : re) {
		re = strchrnul(r, ';');
		eq = memchr(r, '=', (size_t)(re - r));
		if (!eq)
			continue;
		found = false;
		for (p = s; !found && next_param(&p, e, &pm);)
			found = (size_t)(pm.ke - pm.k) == (size_t)(eq - r) &&
				strncasecmp(pm.k, r, (size_t)(eq - r)) == 0 &&
				(size_t)(pm.ve - pm.v) == (size_t)(re - eq - 1) &&
				memcmp(pm.v, eq + 1, (size_t)(re - eq - 1)) == 0;
		if (!found)
			return false;
	}
	return true;
}

bool ps_http_accept_prefers(const char *accept, const char *type, const char *params)
{
	const char *r, *re, *t, *te, *ps, *p;
	double want = 0, text = 0, q;
	struct param pm;

	if (!accept)
		return false;
	for (r = accept; *r; r = *re ? re + 1 : re) {
		re = strchrnul(r, ',');
		/* the media range [t, te), then its parameters [ps, re) */
		ps = memchr(r, ';', (size_t)(re - r));
		if (!ps)
			ps = re;
		t = r, te = ps;
		trim(&t, &te);
		q = 1;
		for (p = ps; next_param(&p, re, &pm);)
			if (token_is(pm.k, pm.ke, "q"))
				q = qvalue(pm.v, pm.ve);
		if (token_is(t, te, type) && has_params(ps, re, params))
			want = q > want ? q : want;
		if (token_is(t, te, "text/plain") || token_is(t, te, "text/*") ||
		    token_is(t, te, "*/*"))
			text = q > text ? q : text;
	}
	return want > 0 && want >= text;
}

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
	if (bind(fd, (const struct sockaddr *)ss, len) || listen(fd, 64)) {
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

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	(void)socket_context;
	if (code == MHD_CONNECTION_NOTIFY_STARTED)
		ps_web_auth_tls_session(cls, c);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	static int seen;
	struct ps_http *h = cls;
	const char *ctype = "text/plain; charset=utf-8", *accept;
	char *body = NULL;
	size_t len = 0;
	int i, status;

	(void)version;
	(void)upload_data;
	if (!*con_cls) { /* headers only so far: answer once the request is complete */
		*con_cls = &seen;
		return MHD_YES;
	}
	if (*upload_data_size) { /* a body nobody asked for: drop it */
		*upload_data_size = 0;
		return MHD_YES;
	}
	/* Who asks, before anything else is looked at (every route, 404s too). */
	switch (h->web ? ps_web_auth_check(h->web, c) : PS_WEB_ALLOW) {
	case PS_WEB_ALLOW:
		break;
	case PS_WEB_DROP:
		return MHD_NO;
	case PS_WEB_UNAUTHORIZED:
		return unauthorized(c);
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n");
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

struct ps_http *ps_http_start(int fd, const struct ps_http_route *routes, int nroutes, void *ctx,
			      struct ps_web_config *web)
{
	struct ps_http *h = calloc(1, sizeof(*h));
	struct MHD_OptionItem o[12];
	unsigned int flags = MHD_USE_AUTO_INTERNAL_THREAD;
	int n = 0;

	if (!h)
		return NULL;
	h->routes = routes;
	h->nroutes = nroutes;
	h->ctx = ctx;
	h->web = web && (web->tls || web->nusers) ? web : NULL;
	o[n++] = (struct MHD_OptionItem){ MHD_OPTION_LISTEN_SOCKET, fd, NULL };
	o[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT, 64, NULL };
	o[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT, 10, NULL };
	if (h->web && web->tls) {
		flags |= MHD_USE_TLS;
		o[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, web->key };
		o[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0, web->cert };
		o[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES, 0, web->priorities };
		if (web->client_ca) {
			o[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_TRUST, 0,
							  web->client_ca };
			o[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_CONNECTION,
							  (intptr_t)on_connection, web };
		}
	}
	o[n++] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	/* One internal thread polls every connection (epoll where there is
	 * one): no busy waiting, and scrapes are served one at a time (and the
	 * password cache has one writer). */
	h->d =
	    MHD_start_daemon(flags, 0, NULL, NULL, handle, h, MHD_OPTION_ARRAY, o, MHD_OPTION_END);
	if (!h->d) {
		free(h);
		return NULL;
	}
	return h;
}

void ps_http_stop(struct ps_http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->d); /* joins its thread; closes the listening socket too */
	free(h);
}
