/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Who may ask serve for anything, as --web-config says (export/web_config.h):
 * the TLS client certificate, checked in the handshake and again per request,
 * and HTTP basic authentication against the bcrypt hashes. Runs on
 * libmicrohttpd's one thread (the password cache is written there only). */
#ifndef PATHSCOPE_EXPORT_WEB_AUTH_H
#define PATHSCOPE_EXPORT_WEB_AUTH_H

#include <stdbool.h>

#include "export/web_config.h"

struct MHD_Connection;

enum ps_web_verdict {
	PS_WEB_ALLOW,
	PS_WEB_DROP,	     /* close the connection, answer nothing */
	PS_WEB_UNAUTHORIZED, /* 401 with WWW-Authenticate: Basic realm="pathscope" */
};

#define PS_WEB_REALM "pathscope"

/* The request on conn, complete: may it have an answer? */
enum ps_web_verdict ps_web_auth_check(struct ps_web_config *c, struct MHD_Connection *conn);

/* A new connection's TLS session (before its handshake): require or request
 * the client's certificate and verify it against the client CA in the
 * handshake, as client_auth_type says. */
void ps_web_auth_tls_session(const struct ps_web_config *c, struct MHD_Connection *conn);

/* Is pass user's password? bcrypt through libxcrypt, compared in constant
 * time; a match is cached (by an HMAC of the password) so that the next
 * check of the same password is fast. An unknown user costs a bcrypt all the
 * same. */
bool ps_web_password_ok(struct ps_web_config *c, const char *user, const char *pass);

#endif /* PATHSCOPE_EXPORT_WEB_AUTH_H */
