// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The web config's certificates as GnuTLS objects (see web_creds.h). */
#include "export/web_creds.h"

#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

static gnutls_datum_t datum(const char *s)
{
	return (gnutls_datum_t){ .data = (unsigned char *)s, .size = (unsigned int)strlen(s) };
}

int ps_web_creds_load(const char *file, struct ps_web_config *c)
{
	struct ps_web_creds *cr;
	gnutls_datum_t d;
	int rc;

	if (!c->tls)
		return 0;
	cr = calloc(1, sizeof(*cr));
	if (!cr)
		return ps_error("%s: out of memory", file), 2;
	c->creds = cr;
	cr->npcert = PS_WEB_MAX_CHAIN;
	d = datum(c->cert);
	rc = gnutls_pcert_list_import_x509_raw(cr->pcert, &cr->npcert, &d, GNUTLS_X509_FMT_PEM,
					       GNUTLS_X509_CRT_LIST_FAIL_IF_UNSORTED);
	if (rc < 0) {
		cr->npcert = 0;
		return ps_error("%s: TLS certificate %s: %s", file,
				c->cert_file ? c->cert_file : "(cert)", gnutls_strerror(rc)),
		       2;
	}
	d = datum(c->key);
	if ((rc = gnutls_privkey_init(&cr->key)) < 0 ||
	    (rc = gnutls_privkey_import_x509_raw(cr->key, &d, GNUTLS_X509_FMT_PEM, NULL, 0)) < 0)
		return ps_error("%s: TLS key %s: %s", file, c->key_file ? c->key_file : "(key)",
				gnutls_strerror(rc)),
		       2;
	if (!c->client_ca)
		return 0;
	d = datum(c->client_ca);
	if ((rc = gnutls_x509_trust_list_init(&cr->trust, 0)) < 0 ||
	    (rc = gnutls_x509_trust_list_add_trust_mem(cr->trust, &d, NULL, GNUTLS_X509_FMT_PEM, 0,
						       0)) <= 0)
		return ps_error("%s: client CA %s: %s", file,
				c->client_ca_file ? c->client_ca_file : "(client_ca)",
				rc < 0 ? gnutls_strerror(rc) : "no certificate in it"),
		       2;
	return 0;
}

void ps_web_creds_free(struct ps_web_creds *cr)
{
	unsigned int i;

	if (!cr)
		return;
	for (i = 0; i < cr->npcert; i++)
		gnutls_pcert_deinit(&cr->pcert[i]);
	if (cr->key)
		gnutls_privkey_deinit(cr->key);
	if (cr->trust)
		gnutls_x509_trust_list_deinit(cr->trust, 1);
	free(cr);
}

bool ps_web_creds_peer_ok(const struct ps_web_creds *cr, gnutls_session_t s, bool allow_none)
{
	gnutls_typed_vdata_st purpose = {
		.type = GNUTLS_DT_KEY_PURPOSE_OID,
		.data = (unsigned char *)GNUTLS_KP_TLS_WWW_CLIENT,
	};
	gnutls_x509_crt_t crts[PS_WEB_MAX_CHAIN];
	const gnutls_datum_t *raw;
	unsigned int n = 0, i, got = 0, status = 1;
	bool ok;

	raw = gnutls_certificate_get_peers(s, &n);
	if (!raw || n == 0)
		return allow_none;
	if (!cr || !cr->trust || n > PS_WEB_MAX_CHAIN)
		return false;
	for (; got < n; got++) {
		if (gnutls_x509_crt_init(&crts[got]) < 0)
			break;
		if (gnutls_x509_crt_import(crts[got], &raw[got], GNUTLS_X509_FMT_DER) < 0) {
			gnutls_x509_crt_deinit(crts[got]);
			break;
		}
	}
	ok = got == n &&
	     gnutls_x509_trust_list_verify_crt2(cr->trust, crts, n, &purpose, 1, 0, &status,
						NULL) == 0 &&
	     status == 0;
	for (i = 0; i < got; i++)
		gnutls_x509_crt_deinit(crts[i]);
	return ok;
}
