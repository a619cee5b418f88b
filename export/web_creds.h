/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A web config's TLS material as GnuTLS uses it in a handshake: the server's
 * certificate chain and key, and the client CA as a trust list. */
#ifndef PATHSCOPE_EXPORT_WEB_CREDS_H
#define PATHSCOPE_EXPORT_WEB_CREDS_H

#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdbool.h>

#include "export/web_config.h"

#define PS_WEB_MAX_CHAIN 16

/* The chain and key are handed to each new TLS session by a callback, so that
 * a reloaded config serves its new certificate without a restart; each client
 * certificate is verified against the trust list of the config in force. */
struct ps_web_creds {
	gnutls_pcert_st pcert[PS_WEB_MAX_CHAIN];
	unsigned int npcert;
	gnutls_privkey_t key;
	gnutls_x509_trust_list_t trust; /* NULL: no client CA */
};

/* c->creds from c->cert, c->key and c->client_ca (PEM, already checked by
 * ps_web_config_load): 0, or 2 after one line on stderr. */
int ps_web_creds_load(const char *file, struct ps_web_config *c);

void ps_web_creds_free(struct ps_web_creds *cr);

/* Does the peer's certificate chain of session s verify against trust, for
 * a TLS client (its extended key usage, if any, names clientAuth)? None at
 * all is fine only when allow_none. */
bool ps_web_creds_peer_ok(const struct ps_web_creds *cr, gnutls_session_t s, bool allow_none);

#endif /* PATHSCOPE_EXPORT_WEB_CREDS_H */
