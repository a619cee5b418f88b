/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Who may ask serve for anything, as --web-config says: the TLS client
 * certificate and HTTP basic authentication. All of it runs on libmicrohttpd's
 * thread and is quick: what only bcrypt decides goes to export/auth_pool.h. */
#ifndef PATHSCOPE_EXPORT_WEB_AUTH_H
#define PATHSCOPE_EXPORT_WEB_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#include <gnutls/abstract.h>

#include "export/web_config.h"

struct MHD_Connection;

/* The client certificate is checked in the TLS handshake and again per
 * request; basic authentication against the config's bcrypt hashes. */
enum ps_web_verdict {
	PS_WEB_ALLOW,
	PS_WEB_DROP,	     /* close the connection, answer nothing */
	PS_WEB_UNAUTHORIZED, /* 401 with WWW-Authenticate: Basic realm="pathscope" */
	PS_WEB_VERIFY,	     /* only bcrypt can tell: see the ps_web_ask */
};

#define PS_WEB_REALM "pathscope"

/* A connection's socket context (libmicrohttpd's) starts with this: the
 * web config in force when the connection came, whose certificate and
 * client CA its TLS handshake uses. */
struct ps_web_conn {
	struct ps_web_config *web;
};

/* Credentials that only bcrypt can decide. */
struct ps_web_ask {
	int user;	  /* index in the config's users; -1: no such user */
	const char *hash; /* the user's, or the dearest user's for an unknown name */
	char *pass;	  /* malloc'd; no NUL inside */
	size_t pass_len;
	unsigned char digest[PS_WEB_DIGEST_LEN]; /* for the cache, once it matched */
};

/* The request on conn, complete: may it have an answer? PS_WEB_VERIFY fills
 * *ask (free it with ps_web_ask_clear()). A password or user name with a NUL
 * inside, or an Authorization header that is not one Basic credential, is
 * refused (401) at once. */
enum ps_web_verdict ps_web_auth_check(struct ps_web_config *c, struct MHD_Connection *conn,
				      struct ps_web_ask *ask);

/* The same for credentials already decoded: cred is "user:pass" (len
 * bytes; written to). */
enum ps_web_verdict ps_web_auth_credentials(struct ps_web_config *c, char *cred, size_t len,
					    struct ps_web_ask *ask);

/* ask's password matched: the next request with it is answered from the
 * cache (an HMAC of it) without bcrypt. */
void ps_web_ask_learn(struct ps_web_config *c, const struct ps_web_ask *ask);

void ps_web_ask_clear(struct ps_web_ask *ask);

/* A new connection's TLS session (before its handshake): its certificate
 * from the connection's config, and the client's certificate required or
 * requested and verified in the handshake, as client_auth_type says. */
void ps_web_auth_tls_session(const struct ps_web_config *c, struct MHD_Connection *conn);

/* For libmicrohttpd's MHD_OPTION_HTTPS_CERT_CALLBACK: the certificate chain
 * and key of the connection's config. */
int ps_web_auth_cert(gnutls_session_t s, const gnutls_datum_t *req_ca_dn, int nreqs,
		     const gnutls_pk_algorithm_t *pk_algos, int pk_algos_length,
		     gnutls_pcert_st **pcert, unsigned int *pcert_length, gnutls_privkey_t *key);

/* new takes over from old what still holds (the cache's key, and a user's
 * cached password when the hash is the same). */
void ps_web_auth_carry(struct ps_web_config *new_c, const struct ps_web_config *old_c);

#endif /* PATHSCOPE_EXPORT_WEB_AUTH_H */
