// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* --web-config's client certificates and basic authentication (see
 * web_auth.h); export/http.c asks before it answers anything. */
#include "export/web_auth.h"

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "export/web_creds.h"

/* The longest Authorization header looked at: a user name and a password of
 * a few hundred bytes each, in base64. Longer is refused unread. */
#define MAX_AUTH_HEADER 1024

/* ---- TLS ------------------------------------------------------------------------- */

static struct ps_web_conn *conn_of_session(gnutls_session_t s)
{
	struct MHD_Connection *conn = gnutls_session_get_ptr(s); /* libmicrohttpd sets it */
	const union MHD_ConnectionInfo *ci;

	if (!conn)
		return NULL;
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci ? ci->socket_context : NULL;
}

/* GnuTLS calls these in the handshake once the client's certificate is in:
 * non-zero fails the handshake. */
static int verify(gnutls_session_t s, bool allow_none)
{
	struct ps_web_conn *wc = conn_of_session(s);

	return wc && wc->web && ps_web_creds_peer_ok(wc->web->creds, s, allow_none) ? 0 : -1;
}

static int verify_required(gnutls_session_t s)
{
	return verify(s, false);
}

static int verify_if_given(gnutls_session_t s)
{
	return verify(s, true);
}

int ps_web_auth_cert(gnutls_session_t s, const gnutls_datum_t *req_ca_dn, int nreqs,
		     const gnutls_pk_algorithm_t *pk_algos, int pk_algos_length,
		     gnutls_pcert_st **pcert, unsigned int *pcert_length, gnutls_privkey_t *key)
{
	struct ps_web_conn *wc = conn_of_session(s);
	struct ps_web_creds *cr = wc && wc->web ? wc->web->creds : NULL;

	(void)req_ca_dn, (void)nreqs, (void)pk_algos, (void)pk_algos_length;
	if (!cr || !cr->npcert)
		return -1;
	/* The config (and so these) lives until the server stops
	 * (export/http.c keeps the configs a reload replaced). */
	*pcert = cr->pcert;
	*pcert_length = cr->npcert;
	*key = cr->key;
	return 0;
}

static gnutls_session_t session_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);

	return ci ? (gnutls_session_t)ci->tls_session : NULL;
}

void ps_web_auth_tls_session(const struct ps_web_config *c, struct MHD_Connection *conn)
{
	gnutls_session_t s = session_of(conn);

	if (!s || c->client_auth == PS_CLIENT_AUTH_NONE)
		return;
	if (c->client_auth == PS_CLIENT_AUTH_REQUIRE_VERIFY) {
		gnutls_certificate_server_set_request(s, GNUTLS_CERT_REQUIRE);
		gnutls_session_set_verify_function(s, verify_required);
	} else {
		gnutls_certificate_server_set_request(s, GNUTLS_CERT_REQUEST);
		gnutls_session_set_verify_function(s, verify_if_given);
	}
}

/* ---- basic authentication ------------------------------------------------------- */

/* HMAC-SHA-256 of user NUL pass under the config's key. */
static bool digest(const struct ps_web_config *c, const char *user, const char *pass,
		   size_t pass_len, unsigned char out[PS_WEB_DIGEST_LEN])
{
	size_t ul = strlen(user);
	char *msg = malloc(ul + 1 + pass_len);
	int rc;

	if (!msg)
		return false;
	memcpy(msg, user, ul + 1);
	memcpy(msg + ul + 1, pass, pass_len);
	rc = gnutls_hmac_fast(GNUTLS_MAC_SHA256, c->cache_key, sizeof(c->cache_key), msg,
			      ul + 1 + pass_len, out);
	explicit_bzero(msg, ul + 1 + pass_len);
	free(msg);
	return rc == 0;
}

static int cost_of(const char *hash)
{
	return (hash[4] - '0') * 10 + (hash[5] - '0'); /* $2b$NN$ (web_config.c checked) */
}

/* The hash an unknown user name is tried against: the dearest, so that
 * the time of a 401 does not tell which names exist. */
static const char *dearest(const struct ps_web_config *c)
{
	const char *h = c->users[0].hash;
	int i;

	for (i = 1; i < c->nusers; i++)
		if (cost_of(c->users[i].hash) > cost_of(h))
			h = c->users[i].hash;
	return h;
}

/* The Basic credentials of the request, decoded: "user:pass" (malloc'd, len
 * bytes, NUL-terminated), or NULL when absent or malformed. */
static char *basic_credentials(struct MHD_Connection *conn, size_t *len)
{
	const char *h =
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	gnutls_datum_t in, out = { 0 };
	char *s;

	if (!h || strlen(h) > MAX_AUTH_HEADER || strncasecmp(h, "Basic ", 6) != 0)
		return NULL;
	h += 6;
	while (*h == ' ')
		h++;
	in = (gnutls_datum_t){ .data = (unsigned char *)h, .size = (unsigned int)strlen(h) };
	if (!in.size || gnutls_base64_decode2(&in, &out) < 0)
		return NULL;
	s = malloc(out.size + 1);
	if (s) {
		memcpy(s, out.data, out.size);
		s[out.size] = '\0';
		*len = out.size;
	}
	explicit_bzero(out.data, out.size);
	gnutls_free(out.data);
	return s;
}

enum ps_web_verdict ps_web_auth_credentials(struct ps_web_config *c, char *cred, size_t len,
					    struct ps_web_ask *ask)
{
	char *colon = memchr(cred, ':', len);
	int i;

	memset(ask, 0, sizeof(*ask));
	ask->user = -1;
	/* A NUL inside: crypt(3) would read a prefix of the password. */
	if (!colon || memchr(cred, '\0', len) || c->nusers == 0)
		return PS_WEB_UNAUTHORIZED;
	*colon = '\0';
	for (i = 0; i < c->nusers; i++)
		if (!strcmp(c->users[i].name, cred))
			ask->user = i;
	ask->pass_len = len - (size_t)(colon + 1 - cred);
	if (!digest(c, cred, colon + 1, ask->pass_len, ask->digest))
		return PS_WEB_UNAUTHORIZED;
	if (ask->user >= 0 && c->users[ask->user].cached &&
	    gnutls_memcmp(ask->digest, c->users[ask->user].digest, PS_WEB_DIGEST_LEN) == 0)
		return PS_WEB_ALLOW;
	ask->pass = malloc(ask->pass_len + 1);
	if (!ask->pass)
		return PS_WEB_UNAUTHORIZED;
	memcpy(ask->pass, colon + 1, ask->pass_len);
	ask->pass[ask->pass_len] = '\0';
	ask->hash = ask->user >= 0 ? c->users[ask->user].hash : dearest(c);
	return PS_WEB_VERIFY;
}

enum ps_web_verdict ps_web_auth_check(struct ps_web_config *c, struct MHD_Connection *conn,
				      struct ps_web_ask *ask)
{
	enum ps_web_verdict v;
	gnutls_session_t s;
	size_t len = 0;
	char *cred;

	memset(ask, 0, sizeof(*ask));
	ask->user = -1;
	if (c->tls && c->client_auth != PS_CLIENT_AUTH_NONE) {
		/* the handshake checked it; a connection without a session or
		 * with a certificate that does not verify (now) gets no answer */
		s = session_of(conn);
		if (!s || !ps_web_creds_peer_ok(c->creds, s,
						c->client_auth == PS_CLIENT_AUTH_VERIFY_IF_GIVEN))
			return PS_WEB_DROP;
	}
	if (c->nusers == 0)
		return PS_WEB_ALLOW;
	cred = basic_credentials(conn, &len);
	if (!cred)
		return PS_WEB_UNAUTHORIZED;
	v = ps_web_auth_credentials(c, cred, len, ask);
	explicit_bzero(cred, len);
	free(cred);
	return v;
}

void ps_web_ask_learn(struct ps_web_config *c, const struct ps_web_ask *ask)
{
	if (ask->user < 0 || ask->user >= c->nusers)
		return;
	memcpy(c->users[ask->user].digest, ask->digest, PS_WEB_DIGEST_LEN);
	c->users[ask->user].cached = true;
}

void ps_web_ask_clear(struct ps_web_ask *ask)
{
	if (ask->pass)
		explicit_bzero(ask->pass, ask->pass_len);
	free(ask->pass);
	explicit_bzero(ask, sizeof(*ask));
	ask->user = -1;
}

void ps_web_auth_carry(struct ps_web_config *new_c, const struct ps_web_config *old_c)
{
	int i, j;

	memcpy(new_c->cache_key, old_c->cache_key, sizeof(new_c->cache_key));
	for (i = 0; i < new_c->nusers; i++)
		for (j = 0; j < old_c->nusers; j++)
			if (old_c->users[j].cached &&
			    !strcmp(new_c->users[i].name, old_c->users[j].name) &&
			    !strcmp(new_c->users[i].hash, old_c->users[j].hash)) {
				memcpy(new_c->users[i].digest, old_c->users[j].digest,
				       PS_WEB_DIGEST_LEN);
				new_c->users[i].cached = true;
			}
}
