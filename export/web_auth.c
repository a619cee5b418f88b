// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* --web-config's client certificates and basic authentication (see
 * web_auth.h); export/http.c asks before it answers anything. */
#include "export/web_auth.h"

#include <crypt.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>

/* ---- TLS client certificates ---------------------------------------------------- */

/* The client's certificate chain verifies against the client CA, for TLS
 * clients (its extended key usage, if it has one, names clientAuth: as Go's
 * crypto/tls asks, and so exporter-toolkit); none at all is fine only when
 * allow_none. */
static bool peer_verified(gnutls_session_t s, bool allow_none)
{
	gnutls_typed_vdata_st purpose = {
		.type = GNUTLS_DT_KEY_PURPOSE_OID,
		.data = (unsigned char *)GNUTLS_KP_TLS_WWW_CLIENT,
	};
	unsigned int n = 0, status = 0;

	if (!gnutls_certificate_get_peers(s, &n) || n == 0)
		return allow_none;
	return gnutls_certificate_verify_peers(s, &purpose, 1, &status) == 0 && status == 0;
}

/* GnuTLS calls these in the handshake once the client's certificate is in:
 * non-zero fails the handshake. */
static int verify_required(gnutls_session_t s)
{
	return peer_verified(s, false) ? 0 : -1;
}

static int verify_if_given(gnutls_session_t s)
{
	return peer_verified(s, true) ? 0 : -1;
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
	/* libmicrohttpd only requests a certificate (GNUTLS_CERT_REQUEST) when
	 * it has a trust store: require one, and verify it in the handshake. */
	if (c->client_auth == PS_CLIENT_AUTH_REQUIRE_VERIFY) {
		gnutls_certificate_server_set_request(s, GNUTLS_CERT_REQUIRE);
		gnutls_session_set_verify_function(s, verify_required);
	} else {
		gnutls_certificate_server_set_request(s, GNUTLS_CERT_REQUEST);
		gnutls_session_set_verify_function(s, verify_if_given);
	}
}

/* ---- basic authentication ------------------------------------------------------- */

static bool same(const char *a, const char *b)
{
	size_t n = strlen(a);

	return n == strlen(b) && gnutls_memcmp(a, b, n) == 0;
}

/* HMAC-SHA-256 of user NUL pass under the config's key. */
static bool digest(const struct ps_web_config *c, const char *user, const char *pass,
		   unsigned char out[PS_WEB_DIGEST_LEN])
{
	size_t ul = strlen(user), pl = strlen(pass);
	char *msg = malloc(ul + 1 + pl);
	int rc;

	if (!msg)
		return false;
	memcpy(msg, user, ul + 1);
	memcpy(msg + ul + 1, pass, pl);
	rc = gnutls_hmac_fast(GNUTLS_MAC_SHA256, c->cache_key, sizeof(c->cache_key), msg,
			      ul + 1 + pl, out);
	explicit_bzero(msg, ul + 1 + pl);
	free(msg);
	return rc == 0;
}

bool ps_web_password_ok(struct ps_web_config *c, const char *user, const char *pass)
{
	unsigned char d[PS_WEB_DIGEST_LEN];
	struct ps_web_user *u = NULL;
	struct crypt_data *cd;
	const char *out;
	bool ok = false, have_d;
	int i;

	if (c->nusers == 0)
		return false;
	for (i = 0; i < c->nusers; i++)
		if (!strcmp(c->users[i].name, user))
			u = &c->users[i];
	have_d = u && digest(c, user, pass, d);
	if (have_d && u->cached && gnutls_memcmp(d, u->digest, sizeof(d)) == 0)
		return true;
	cd = calloc(1, sizeof(*cd));
	if (!cd)
		return false;
	/* An unknown user costs a bcrypt of the first user's cost all the same. */
	out = crypt_rn(pass, u ? u->hash : c->users[0].hash, cd, sizeof(*cd));
	ok = u && out && out[0] == '$' && same(out, u->hash);
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	if (ok && have_d) {
		memcpy(u->digest, d, sizeof(d));
		u->cached = true;
	}
	return ok;
}

enum ps_web_verdict ps_web_auth_check(struct ps_web_config *c, struct MHD_Connection *conn)
{
	char *user, *pass = NULL;
	gnutls_session_t s;
	bool ok;

	if (c->tls && c->client_auth != PS_CLIENT_AUTH_NONE) {
		/* the handshake checked it; a connection without a session or
		 * with a certificate that does not verify gets no answer */
		s = session_of(conn);
		if (!s || !peer_verified(s, c->client_auth == PS_CLIENT_AUTH_VERIFY_IF_GIVEN))
			return PS_WEB_DROP;
	}
	if (c->nusers == 0)
		return PS_WEB_ALLOW;
	user = MHD_basic_auth_get_username_password(conn, &pass);
	ok = user && pass && ps_web_password_ok(c, user, pass);
	if (pass)
		explicit_bzero(pass, strlen(pass));
	MHD_free(user);
	MHD_free(pass);
	return ok ? PS_WEB_ALLOW : PS_WEB_UNAUTHORIZED;
}
