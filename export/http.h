/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The HTTP side of `pathscope serve`: libmicrohttpd on its own thread, a
 * few GET routes, 404 for anything else. */
#ifndef PATHSCOPE_EXPORT_HTTP_H
#define PATHSCOPE_EXPORT_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/* A route handler: sets *body (malloc'd; freed by the server), *len and
 * *ctype, and returns the HTTP status. accept: the request's Accept header,
 * or NULL. Runs on the server's thread. */
typedef int (*ps_http_fn)(void *ctx, const char *accept, char **body, size_t *len,
			  const char **ctype);

struct ps_http_route {
	const char *path; /* exact match, e.g. "/metrics" */
	ps_http_fn fn;
};

struct ps_http;

/* Parse "A.B.C.D:PORT" or "[IPV6]:PORT" (numeric, port 1..65535). */
int ps_http_parse_listen(const char *spec, struct sockaddr_storage *ss, socklen_t *len);

/* Bind and listen (before anything is attached, so a busy port fails
 * early). Returns the socket or -errno. */
int ps_http_listen(const struct sockaddr_storage *ss, socklen_t len);

struct ps_web_config;

/* Serve routes on the listening socket fd until ps_http_stop(), which
 * closes fd (on failure, NULL: fd is still the caller's). The routes array
 * must outlive the server, and so must web: --web-config's TLS and
 * authentication (NULL, or one with neither: plain HTTP, anyone), with its
 * ps_web_creds loaded.
 *
 * Against clients that hold connections: a connection has 5 s from its
 * start (or its last answer) to send a request's headers, 16 connections
 * per address, 1024 in all (when RLIMIT_NOFILE lets it raise its soft limit
 * that far); a request with a body is refused (413) before any of it is
 * read, after its credentials. Passwords are checked on a pool of threads
 * (auth_pool.h), never on the one that answers. */
struct ps_http *ps_http_start(int fd, const struct ps_http_route *routes, int nroutes, void *ctx,
			      struct ps_web_config *web);

/* Serve the config web from the next connection and request on (a reload:
 * new certificates, client CA, users). web is the server's from here on
 * (it frees it when it stops). -1 with *why when web differs in what only a
 * restart changes (TLS on or off, its versions): web is still the
 * caller's. */
int ps_http_set_web(struct ps_http *h, struct ps_web_config *web, const char **why);

/* Stop: waits for a request being handled, then closes every connection
 * and the listening socket. A request waiting for its password check is
 * closed unanswered. */
void ps_http_stop(struct ps_http *h);

#endif /* PATHSCOPE_EXPORT_HTTP_H */
