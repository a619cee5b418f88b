// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* serve --web-config FILE: its YAML, read by libyaml's document loader; this file
 * walks the three mappings the format has and refuses what it does not know by
 * name (FILE:LINE: ...). Reading files and GnuTLS's checks are web_config_load.c's. */
#include "export/web_config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* tls_server_config's values that become something else once all are read */
struct tls_parse {
	char *client_auth, *min_version, *max_version;
	bool any; /* any key given */
};

struct parse {
	struct ps_web_config *c;
	const char *file;
	yaml_document_t *doc;
	struct tls_parse tls;
};

static int fail(struct parse *p, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct parse *p, const yaml_node_t *n, const char *fmt, ...)
{
	size_t off;
	va_list ap;
	int w;

	if (n)
		w = snprintf(p->c->err, sizeof(p->c->err), "%s:%zu: ", p->file,
			     n->start_mark.line + 1);
	else
		w = snprintf(p->c->err, sizeof(p->c->err), "%s: ", p->file);
	off = w > 0 && (size_t)w < sizeof(p->c->err) ? (size_t)w : sizeof(p->c->err) - 1;
	va_start(ap, fmt);
	vsnprintf(p->c->err + off, sizeof(p->c->err) - off, fmt, ap);
	va_end(ap);
	/* one line, whatever the YAML held */
	for (char *s = p->c->err; *s; s++)
		if (*s == '\n' || *s == '\r' || (unsigned char)*s < ' ')
			*s = '?';
	return -1;
}

/* A plain scalar YAML reads as null: "", ~, null. */
static bool is_null(const yaml_node_t *n)
{
	const char *v;

	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	v = (const char *)n->data.scalar.value;
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
	       !strcmp(v, "NULL");
}

/* The value of a scalar node (no NUL inside), or NULL after fail(). */
static const char *scalar(struct parse *p, const yaml_node_t *n, const char *what)
{
	if (n->type != YAML_SCALAR_NODE)
		return fail(p, n, "%s: expected a string", what), NULL;
	if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length)
		return fail(p, n, "%s: a NUL character in the string", what), NULL;
	return (const char *)n->data.scalar.value;
}

/* A string option: its copy in *out (NULL when null or ""); 0 or -1. */
static int string_opt(struct parse *p, const yaml_node_t *n, const char *what, char **out)
{
	const char *v;

	if (*out)
		return fail(p, n, "%s given twice", what);
	if (is_null(n))
		return 0;
	v = scalar(p, n, what);
	if (!v)
		return -1;
	if (*v && !(*out = strdup(v)))
		return fail(p, n, "out of memory");
	return 0;
}

/* A file name relative to the config file's directory, as exporter-toolkit
 * resolves it. */
static int path_opt(struct parse *p, const yaml_node_t *n, const char *what, char **out)
{
	const char *slash = strrchr(p->file, '/');
	char *rel = NULL, *abs;

	if (string_opt(p, n, what, &rel))
		return -1;
	if (!rel || rel[0] == '/' || !slash) {
		*out = rel;
		return 0;
	}
	if (asprintf(&abs, "%.*s/%s", (int)(slash - p->file), p->file, rel) < 0) {
		free(rel);
		return fail(p, n, "out of memory");
	}
	free(rel);
	*out = abs;
	return 0;
}

/* A mapping's pairs: each key a string, none twice. Calls fn for each. */
typedef int (*pair_fn)(struct parse *p, const char *key, const yaml_node_t *k,
		       const yaml_node_t *v);

static int each_pair(struct parse *p, const yaml_node_t *map, const char *what, pair_fn fn)
{
	yaml_node_pair_t *pr, *q;
	const yaml_node_t *k, *v, *k2;
	const char *key;

	if (is_null(map))
		return 0;
	if (map->type != YAML_MAPPING_NODE)
		return fail(p, map, "%s: expected a mapping", what);
	for (pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top; pr++) {
		k = yaml_document_get_node(p->doc, pr->key);
		v = yaml_document_get_node(p->doc, pr->value);
		if (!k || !v)
			return fail(p, map, "%s: a broken mapping", what);
		key = scalar(p, k, what);
		if (!key)
			return -1;
		for (q = map->data.mapping.pairs.start; q < pr; q++) {
			k2 = yaml_document_get_node(p->doc, q->key);
			if (k2 && k2->type == YAML_SCALAR_NODE &&
			    !strcmp((const char *)k2->data.scalar.value, key))
				return fail(p, k, "%s: key '%s' given twice", what, key);
		}
		if (fn(p, key, k, v))
			return -1;
	}
	return 0;
}

/* ---- tls_server_config ------------------------------------------------------- */

static int tls_pair(struct parse *p, const char *key, const yaml_node_t *k, const yaml_node_t *v)
{
	struct ps_web_config *c = p->c;
	struct tls_parse *t = &p->tls;
	static const char *const unsupported[] = {
		"client_allowed_sans",
		"cipher_suites",
		"prefer_server_cipher_suites",
		"curve_preferences",
	};
	unsigned int i;

	t->any = true;
	if (!strcmp(key, "cert_file"))
		return path_opt(p, v, key, &c->cert_file);
	if (!strcmp(key, "key_file"))
		return path_opt(p, v, key, &c->key_file);
	if (!strcmp(key, "client_ca_file"))
		return path_opt(p, v, key, &c->client_ca_file);
	if (!strcmp(key, "cert"))
		return string_opt(p, v, key, &c->cert);
	if (!strcmp(key, "key"))
		return string_opt(p, v, key, &c->key);
	if (!strcmp(key, "client_ca"))
		return string_opt(p, v, key, &c->client_ca);
	if (!strcmp(key, "client_auth_type"))
		return string_opt(p, v, key, &t->client_auth);
	if (!strcmp(key, "min_version"))
		return string_opt(p, v, key, &t->min_version);
	if (!strcmp(key, "max_version"))
		return string_opt(p, v, key, &t->max_version);
	for (i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++)
		if (!strcmp(key, unsupported[i]))
			return fail(p, k, "tls_server_config: %s is not supported by pathscope",
				    key);
	return fail(p, k, "unknown key '%s' in tls_server_config", key);
}

/* TLS10..TLS13 -> 0..3, or -1. */
static int tls_version(const char *v)
{
	static const char *const names[] = { "TLS10", "TLS11", "TLS12", "TLS13" };
	int i;

	for (i = 0; i < 4; i++)
		if (!strcmp(v, names[i]))
			return i;
	return -1;
}

static int tls_check(struct parse *p, const yaml_node_t *n, struct tls_parse *t)
{
	struct ps_web_config *c = p->c;
	const char *ca = c->client_ca_file ? "client_ca_file" : "client_ca";
	int lo = 2, hi = 3, v; /* exporter-toolkit's defaults: TLS12..TLS13 */
	char buf[96];

	if (!t->any)
		return 0; /* tls_server_config: {} or null: plain HTTP */
	c->tls = true;
	if (c->cert && c->cert_file)
		return fail(p, n, "tls_server_config: cert and cert_file both given");
	if (c->key && c->key_file)
		return fail(p, n, "tls_server_config: key and key_file both given");
	if (c->client_ca && c->client_ca_file)
		return fail(p, n, "tls_server_config: client_ca and client_ca_file both given");
	if (!c->cert && !c->cert_file)
		return fail(p, n, "tls_server_config: missing cert_file");
	if (!c->key && !c->key_file)
		return fail(p, n, "tls_server_config: missing key_file");
	if (!t->client_auth || !strcmp(t->client_auth, "NoClientCert"))
		c->client_auth = PS_CLIENT_AUTH_NONE;
	else if (!strcmp(t->client_auth, "VerifyClientCertIfGiven"))
		c->client_auth = PS_CLIENT_AUTH_VERIFY_IF_GIVEN;
	else if (!strcmp(t->client_auth, "RequireAndVerifyClientCert"))
		c->client_auth = PS_CLIENT_AUTH_REQUIRE_VERIFY;
	else if (!strcmp(t->client_auth, "RequestClientCert") ||
		 !strcmp(t->client_auth, "RequireAnyClientCert"))
		return fail(p, n,
			    "tls_server_config: client_auth_type %s is not supported by pathscope "
			    "(it takes certificates no CA signed): use RequireAndVerifyClientCert",
			    t->client_auth);
	else
		return fail(p, n,
			    "tls_server_config: bad client_auth_type '%s' (NoClientCert, "
			    "VerifyClientCertIfGiven or RequireAndVerifyClientCert)",
			    t->client_auth);
	if (c->client_auth != PS_CLIENT_AUTH_NONE && !c->client_ca && !c->client_ca_file)
		return fail(p, n, "tls_server_config: client_auth_type %s needs client_ca_file",
			    t->client_auth);
	if (c->client_auth == PS_CLIENT_AUTH_NONE && (c->client_ca || c->client_ca_file))
		return fail(p, n,
			    "tls_server_config: %s given but client_auth_type is NoClientCert "
			    "(set RequireAndVerifyClientCert)",
			    ca);
	if (t->min_version && (lo = tls_version(t->min_version)) < 0)
		return fail(p, n, "tls_server_config: bad min_version '%s' (TLS10 .. TLS13)",
			    t->min_version);
	if (t->max_version && (hi = tls_version(t->max_version)) < 0)
		return fail(p, n, "tls_server_config: bad max_version '%s' (TLS10 .. TLS13)",
			    t->max_version);
	if (lo > hi)
		return fail(p, n, "tls_server_config: min_version %s is above max_version %s",
			    t->min_version ? t->min_version : "TLS12",
			    t->max_version ? t->max_version : "TLS13");
	snprintf(buf, sizeof(buf), "NORMAL:-VERS-ALL");
	for (v = hi; v >= lo; v--)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ":+VERS-TLS1.%d", v);
	c->priorities = strdup(buf);
	if (!c->priorities)
		return fail(p, n, "out of memory");
	return 0;
}

/* ---- http_server_config, basic_auth_users, the top ------------------------------ */

static int http_pair(struct parse *p, const char *key, const yaml_node_t *k, const yaml_node_t *v)
{
	static const char *const bools[] = { "true",  "false", "True", "False", "TRUE",
					     "FALSE", "yes",   "no",   "on",	"off" };
	const char *s;
	unsigned int i;

	if (!strcmp(key, "http2")) {
		/* pathscope speaks HTTP/1.1 only, which every client of
		 * http2: true speaks too: either value is honoured. */
		s = scalar(p, v, "http_server_config: http2");
		if (!s)
			return -1;
		for (i = 0; i < sizeof(bools) / sizeof(bools[0]); i++)
			if (!strcmp(s, bools[i]))
				return 0;
		return fail(p, v, "http_server_config: http2: expected true or false, not '%s'", s);
	}
	if (!strcmp(key, "headers"))
		return fail(p, k, "http_server_config: headers is not supported by pathscope");
	return fail(p, k, "unknown key '%s' in http_server_config", key);
}

bool ps_web_bcrypt_form(const char *s)
{
	static const char b64[] =
	    "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	int cost, i;

	if (strlen(s) != 60 || s[0] != '$' || s[1] != '2' || !strchr("aby", s[2]) || s[3] != '$' ||
	    s[4] < '0' || s[4] > '9' || s[5] < '0' || s[5] > '9' || s[6] != '$')
		return false;
	cost = ps_web_bcrypt_cost(s);
	if (cost < 4 || cost > 31)
		return false;
	for (i = 7; i < 60; i++)
		if (!strchr(b64, s[i]))
			return false;
	return true;
}

int ps_web_bcrypt_cost(const char *hash)
{
	return (hash[4] - '0') * 10 + (hash[5] - '0');
}

static int user_pair(struct parse *p, const char *key, const yaml_node_t *k, const yaml_node_t *v)
{
	struct ps_web_config *c = p->c;
	struct ps_web_user *u;
	const char *hash;

	(void)k;
	hash = scalar(p, v, "basic_auth_users");
	if (!hash)
		return -1;
	if (!ps_web_bcrypt_form(hash))
		return fail(p, v,
			    "basic_auth_users: the hash of '%s' is not bcrypt ($2y$, $2b$ or $2a$, "
			    "60 characters, e.g. from htpasswd -nBC 10)",
			    key);
	if (ps_web_bcrypt_cost(hash) > PS_WEB_BCRYPT_COST_MAX)
		return fail(p, v,
			    "basic_auth_users: the hash of '%s' has bcrypt cost %d, above the "
			    "maximum %d: each wrong password would cost that much CPU, and serve "
			    "verifies on a small worker pool (htpasswd -nBC 10 makes cost 10)",
			    key, ps_web_bcrypt_cost(hash), PS_WEB_BCRYPT_COST_MAX);
	u = realloc(c->users, (size_t)(c->nusers + 1) * sizeof(*u));
	if (!u)
		return fail(p, v, "out of memory");
	c->users = u;
	u = &c->users[c->nusers];
	memset(u, 0, sizeof(*u));
	u->name = strdup(key);
	u->hash = strdup(hash);
	c->nusers++;
	if (!u->name || !u->hash)
		return fail(p, v, "out of memory");
	return 0;
}

static int top_pair(struct parse *p, const char *key, const yaml_node_t *k, const yaml_node_t *v)
{
	if (!strcmp(key, "tls_server_config"))
		return each_pair(p, v, key, tls_pair) ? -1 : tls_check(p, k, &p->tls);
	if (!strcmp(key, "http_server_config"))
		return each_pair(p, v, key, http_pair);
	if (!strcmp(key, "basic_auth_users"))
		return each_pair(p, v, key, user_pair);
	if (!strcmp(key, "rate_limit"))
		return fail(p, k, "rate_limit is not supported by pathscope");
	return fail(p, k, "unknown key '%s'", key);
}

/* libyaml's reason for refusing the text. */
static int yaml_fail(struct parse *p, const yaml_parser_t *parser)
{
	yaml_node_t at = { .start_mark = parser->problem_mark };

	return fail(p, &at, "bad YAML: %s", parser->problem ? parser->problem : "?");
}

/* libyaml's loader builds every level it reads, and in flow style its
 * scanner slows down with each (100,000 levels of '[' took 37 s to refuse):
 * a first pass over the events stops at the first collection nested deeper
 * than PS_WEB_YAML_MAX_DEPTH. A syntax error is left to the loader, which
 * meets the same one. 0, or -1 after fail(). */
static int depth_check(struct parse *p, const char *text, size_t len)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	yaml_node_t at;
	int depth = 0, rc = 0;
	bool done = false;

	if (!yaml_parser_initialize(&parser))
		return fail(p, NULL, "out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	while (!done && yaml_parser_parse(&parser, &ev)) {
		if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT) {
			if (++depth > PS_WEB_YAML_MAX_DEPTH) {
				at = (yaml_node_t){ .start_mark = ev.start_mark };
				rc = fail(p, &at, "YAML nested deeper than %d",
					  PS_WEB_YAML_MAX_DEPTH);
				done = true;
			}
		} else if (ev.type == YAML_SEQUENCE_END_EVENT ||
			   ev.type == YAML_MAPPING_END_EVENT) {
			depth--;
		} else if (ev.type == YAML_STREAM_END_EVENT) {
			done = true;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return rc;
}

int ps_web_config_parse(const char *text, size_t len, const char *file, struct ps_web_config *c)
{
	struct parse p = { .c = c, .file = file };
	yaml_document_t doc, more;
	yaml_parser_t parser;
	yaml_node_t *root;
	int rc = -1;

	memset(c, 0, sizeof(*c));
	if (depth_check(&p, text, len))
		return -1;
	if (!yaml_parser_initialize(&parser))
		return fail(&p, NULL, "out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		yaml_fail(&p, &parser);
		yaml_parser_delete(&parser);
		return -1;
	}
	p.doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		rc = 0; /* an empty file: plain HTTP, no authentication */
	} else if (!yaml_parser_load(&parser, &more)) {
		yaml_fail(&p, &parser);
	} else {
		if (yaml_document_get_root_node(&more))
			fail(&p, yaml_document_get_root_node(&more), "more than one YAML document");
		else
			rc = each_pair(&p, root, "the file", top_pair);
		yaml_document_delete(&more);
	}
	free(p.tls.client_auth);
	free(p.tls.min_version);
	free(p.tls.max_version);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return rc;
}
