// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "export/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/util.h"

struct ps_http {
	struct MHD_Daemon *d;
	const struct ps_http_route *routes;
	int nroutes;
	void *ctx;
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

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	static int seen;
	struct ps_http *h = cls;
	const char *ctype = "text/plain; charset=utf-8";
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
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n");
	for (i = 0; i < h->nroutes; i++)
		if (strcmp(url, h->routes[i].path) == 0)
			break;
	if (i == h->nroutes)
		return text(c, MHD_HTTP_NOT_FOUND, "not found (try /metrics or /healthz)\n");
	status = h->routes[i].fn(h->ctx, &body, &len, &ctype);
	if (!body)
		return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	return reply(c, status, body, len, ctype);
}

struct ps_http *ps_http_start(int fd, const struct ps_http_route *routes, int nroutes, void *ctx)
{
	struct ps_http *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->routes = routes;
	h->nroutes = nroutes;
	h->ctx = ctx;
	/* One internal thread polls every connection (epoll where there is
	 * one): no busy waiting, and scrapes are served one at a time. */
	h->d =
	    MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD, 0, NULL, NULL, handle, h,
			     MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd, MHD_OPTION_CONNECTION_LIMIT,
			     64U, MHD_OPTION_CONNECTION_TIMEOUT, 10U, MHD_OPTION_END);
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
