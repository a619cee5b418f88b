/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* serve --web-config FILE: the web configuration file of Prometheus'
 * exporter-toolkit (node_exporter's --web.config.file), parsed with libyaml. */
#ifndef PATHSCOPE_EXPORT_WEB_CONFIG_H
#define PATHSCOPE_EXPORT_WEB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

enum ps_client_auth {
	PS_CLIENT_AUTH_NONE,		/* NoClientCert (the default) */
	PS_CLIENT_AUTH_VERIFY_IF_GIVEN, /* VerifyClientCertIfGiven */
	PS_CLIENT_AUTH_REQUIRE_VERIFY,	/* RequireAndVerifyClientCert */
};

#define PS_WEB_DIGEST_LEN 32 /* SHA-256 */

/* The format nests 3 deep (the file, tls_server_config, a list in it); YAML
 * nested deeper than this is refused before libyaml builds the document
 * (libyaml has no limit of its own: 100,000 levels of [ took 37 s). */
#define PS_WEB_YAML_MAX_DEPTH 16

/* bcrypt costs: above the maximum a hash is refused at start (each wrong
 * password costs 2^cost rounds of CPU, and serve verifies on a small pool of
 * workers: cost 14 took 1.4 s of a CPU, 31 would take days); below the
 * warning cost serve warns and starts (10 is Go's bcrypt.DefaultCost, what
 * exporter-toolkit's docs use; `htpasswd -B` makes 5 by default). */
#define PS_WEB_BCRYPT_COST_MAX	14
#define PS_WEB_BCRYPT_COST_WARN 10

struct ps_web_user {
	char *name;
	char *hash; /* bcrypt: $2y$, $2b$ or $2a$, 60 characters */
	/* The last password that matched hash, as an HMAC under the config's
	 * key (bcrypt is slow by design; a scrape a second would pay for it
	 * every time). Written by the server's one thread only. */
	bool cached;
	unsigned char digest[PS_WEB_DIGEST_LEN];
};

/* What pathscope does with the file: TLS (tls_server_config: cert, key,
 * client_auth_type, client CA, min_version, max_version) and basic
 * authentication (basic_auth_users, bcrypt hashes). A key of that format
 * pathscope does not implement is refused by name, as an unknown key is. */
struct ps_web_config {
	bool tls; /* tls_server_config given */
	/* As written, or resolved against the file's directory when relative
	 * (NULL when the PEM is inline or absent). */
	char *cert_file, *key_file, *client_ca_file;
	/* The PEM text (from the file, or inline: cert, key, client_ca). */
	char *cert, *key, *client_ca;
	enum ps_client_auth client_auth;
	char *priorities; /* GnuTLS priority string for min_version..max_version */
	struct ps_web_user *users;
	int nusers;
	unsigned char cache_key[PS_WEB_DIGEST_LEN];
	char err[320]; /* the one-line reason of a failure */
	/* The TLS material as GnuTLS objects (export/web_creds.h), made by
	 * ps_web_creds_load() after ps_web_config_load(); freed with the rest. */
	struct ps_web_creds *creds;
};

/* Parse the text of a web config file (len bytes) named file (for messages
 * and for the directory relative paths resolve against): 0, or -1 with the
 * reason in c->err ("FILE: ..."; also YAML nested deeper than
 * PS_WEB_YAML_MAX_DEPTH and a bcrypt cost above PS_WEB_BCRYPT_COST_MAX). Reads no other file: the
 * PEM files named are read by ps_web_config_load(). c is zeroed first; free it with
 * ps_web_config_free() in both cases. */
int ps_web_config_parse(const char *text, size_t len, const char *file, struct ps_web_config *c);

/* Is s a bcrypt hash crypt(3) takes ($2a$, $2b$ or $2y$, cost 04..31, 53
 * characters of its base64)? */
bool ps_web_bcrypt_form(const char *s);

/* The cost of a hash of bcrypt's form (its two digits). */
int ps_web_bcrypt_cost(const char *hash);

#endif /* PATHSCOPE_EXPORT_WEB_CONFIG_H */
