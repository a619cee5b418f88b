// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* serve --web-config: the parser of exporter-toolkit's web config on valid and invalid
 * files, ps_web_config_load on files it cannot read, the password check, and the pool
 * of threads that runs bcrypt. */
#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/lib/check.h"
#include "export/auth_pool.h"
#include "export/web_auth.h"
#include "export/web_config_load.h"

#define SALT_HASH "mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJPze"
#define HASH	  "$2y$10$" SALT_HASH
#define WEB	  "/etc/pathscope/web.yml"

static int parse(const char *text, struct ps_web_config *c)
{
	return ps_web_config_parse(text, strlen(text), WEB, c);
}

static void valid(void)
{
	struct ps_web_config c;
	int rc;

	rc = parse("tls_server_config:\n  cert_file: server.pem\n  key_file: /k/server.key\n"
		   "basic_auth_users:\n  alice: " HASH "\n  bob: '" HASH "'\n",
		   &c);
	check_report(rc == 0, "TLS and two users: parsed", "%s", c.err);
	check_report(c.tls && c.cert_file && !strcmp(c.cert_file, "/etc/pathscope/server.pem"),
		     "a relative cert_file: against the file's directory", "%s", c.cert_file);
	check_report(c.key_file && !strcmp(c.key_file, "/k/server.key"),
		     "an absolute key_file: as written", "%s", c.key_file);
	check_report(c.client_auth == PS_CLIENT_AUTH_NONE && !c.client_ca_file,
		     "client_auth_type: NoClientCert by default", "%d", c.client_auth);
	check_report(c.priorities &&
			 !strcmp(c.priorities, "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"),
		     "TLS versions: TLS12..TLS13 by default", "%s", c.priorities);
	check_report(c.nusers == 2 && !strcmp(c.users[0].name, "alice") &&
			 !strcmp(c.users[1].name, "bob") && !strcmp(c.users[1].hash, HASH),
		     "two users with their hashes", "%d users", c.nusers);
	ps_web_config_free(&c);

	rc = ps_web_config_parse(
	    "tls_server_config:\n  cert_file: s.pem\n  key_file: s.key\n",
	    strlen("tls_server_config:\n  cert_file: s.pem\n  key_file: s.key\n"), "web.yml", &c);
	check_report(rc == 0 && !strcmp(c.cert_file, "s.pem"),
		     "a file name without a directory: paths as written", "%s", c.err);
	ps_web_config_free(&c);

	rc = parse("tls_server_config:\n  cert_file: a\n  key_file: b\n"
		   "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.pem\n"
		   "  min_version: TLS13\n",
		   &c);
	check_report(rc == 0 && c.client_auth == PS_CLIENT_AUTH_REQUIRE_VERIFY &&
			 !strcmp(c.client_ca_file, "/etc/pathscope/ca.pem") &&
			 !strcmp(c.priorities, "NORMAL:-VERS-ALL:+VERS-TLS1.3"),
		     "RequireAndVerifyClientCert, client CA, min_version TLS13", "%s", c.err);
	ps_web_config_free(&c);

	rc = parse("tls_server_config:\n  cert: \"-----BEGIN CERTIFICATE-----\\n\"\n  key: k\n"
		   "  client_auth_type: VerifyClientCertIfGiven\n  client_ca: c\n"
		   "  min_version: TLS10\n  max_version: TLS11\n",
		   &c);
	check_report(rc == 0 && c.client_auth == PS_CLIENT_AUTH_VERIFY_IF_GIVEN && !c.cert_file &&
			 !strcmp(c.cert, "-----BEGIN CERTIFICATE-----\n") &&
			 !strcmp(c.priorities, "NORMAL:-VERS-ALL:+VERS-TLS1.1:+VERS-TLS1.0"),
		     "inline PEM, VerifyClientCertIfGiven, TLS10..TLS11", "%s", c.err);
	ps_web_config_free(&c);

	rc = parse("", &c);
	check_report(rc == 0 && !c.tls && !c.nusers, "an empty file: plain HTTP, no users", "%s",
		     c.err);
	ps_web_config_free(&c);
	rc = parse("# nothing\ntls_server_config:\nbasic_auth_users: {}\nhttp_server_config:\n"
		   "  http2: false\n",
		   &c);
	check_report(rc == 0 && !c.tls && !c.nusers,
		     "null and empty sections, http2: false: plain HTTP, no users", "%s", c.err);
	ps_web_config_free(&c);
	rc = parse("tls_server_config: {}\n", &c);
	check_report(rc == 0 && !c.tls, "tls_server_config: {}: plain HTTP", "%s", c.err);
	ps_web_config_free(&c);
	rc = parse("basic_auth_users:\n  a: &h " HASH "\n  b: *h\n", &c);
	check_report(rc == 0 && c.nusers == 2 && !strcmp(c.users[1].hash, HASH),
		     "an alias for a hash", "%s", c.err);
	ps_web_config_free(&c);
}

static void invalid(void)
{
	static const struct {
		const char *name, *yaml, *want;
	} cases[] = {
		{ "bad YAML", "tls_server_config: [\n", WEB ":2: bad YAML: " },
		{ "a tab in the indentation", "tls_server_config:\n\tcert_file: a\n", "bad YAML" },
		{ "a list at the top", "- a\n- b\n", WEB ":1: the file: expected a mapping" },
		{ "a string at the top", "hello\n", "the file: expected a mapping" },
		{ "unknown key at the top", "basic_auth_user:\n  a: b\n",
		  WEB ":1: unknown key 'basic_auth_user'" },
		{ "unknown key in tls_server_config",
		  "tls_server_config:\n  cert_file: a\n  keyfile: b\n",
		  WEB ":3: unknown key 'keyfile' in tls_server_config" },
		{ "unknown key in http_server_config", "http_server_config:\n  http3: true\n",
		  "unknown key 'http3' in http_server_config" },
		{ "http2 not a boolean", "http_server_config:\n  http2: maybe\n",
		  "http2: expected true or false, not 'maybe'" },
		{ "headers", "http_server_config:\n  headers:\n    X-Frame-Options: deny\n",
		  "headers is not supported by pathscope" },
		{ "rate_limit", "rate_limit:\n  interval: 1s\n", "rate_limit is not supported" },
		{ "cipher_suites", "tls_server_config:\n  cert_file: a\n  cipher_suites: [x]\n",
		  "cipher_suites is not supported" },
		{ "client_allowed_sans",
		  "tls_server_config:\n  cert_file: a\n  client_allowed_sans: [x]\n",
		  "client_allowed_sans is not supported" },
		{ "a key twice", "basic_auth_users:\n  a: " HASH "\n  a: " HASH "\n",
		  WEB ":3: basic_auth_users: key 'a' given twice" },
		{ "a section twice", "tls_server_config: {}\ntls_server_config: {}\n",
		  "key 'tls_server_config' given twice" },
		{ "no cert_file", "tls_server_config:\n  key_file: b\n", "missing cert_file" },
		{ "no key_file", "tls_server_config:\n  cert_file: a\n", "missing key_file" },
		{ "cert and cert_file", "tls_server_config:\n  cert_file: a\n  cert: x\n  key: y\n",
		  "cert and cert_file both given" },
		{ "bad client_auth_type",
		  "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: Yes\n",
		  "bad client_auth_type 'Yes' (NoClientCert, VerifyClientCertIfGiven or "
		  "RequireAndVerifyClientCert)" },
		{ "RequireAnyClientCert",
		  "tls_server_config:\n  cert_file: a\n  key_file: b\n"
		  "  client_auth_type: RequireAnyClientCert\n  client_ca_file: c\n",
		  "client_auth_type RequireAnyClientCert is not supported by pathscope" },
		{ "a verifying client_auth_type without a CA",
		  "tls_server_config:\n  cert_file: a\n  key_file: b\n"
		  "  client_auth_type: VerifyClientCertIfGiven\n",
		  "client_auth_type VerifyClientCertIfGiven needs client_ca_file" },
		{ "a CA without client_auth_type",
		  "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_ca_file: c\n",
		  "client_ca_file given but client_auth_type is NoClientCert" },
		{ "bad min_version",
		  "tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS1.2\n",
		  "bad min_version 'TLS1.2'" },
		{ "min_version above max_version",
		  "tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS13\n"
		  "  max_version: TLS12\n",
		  "min_version TLS13 is above max_version TLS12" },
		{ "a list for a file name", "tls_server_config:\n  cert_file: [a]\n",
		  "cert_file: expected a string" },
		{ "a NUL in a string", "tls_server_config:\n  cert_file: \"a\\0b\"\n",
		  "a NUL character in the string" },
		{ "a hash that is not bcrypt", "basic_auth_users:\n  alice: $1$abc$def\n",
		  WEB ":2: basic_auth_users: the hash of 'alice' is not bcrypt" },
		{ "a password for a hash", "basic_auth_users:\n  alice: secret\n",
		  "is not bcrypt" },
		{ "users as a list", "basic_auth_users:\n  - alice\n",
		  "basic_auth_users: expected a mapping" },
		{ "two documents", "basic_auth_users: {}\n---\nrate_limit: {}\n",
		  "more than one YAML document" },
		{ "a control character in a key", "\"a\\nb\": 1\n", "unknown key 'a?b'" },
		{ "a NUL in a key", "basic_auth_users:\n  \"a\\0b\": " HASH "\n",
		  "a NUL character in the string" },
		{ "a NUL in a hash", "basic_auth_users:\n  a: \"$2y$10$\\0" SALT_HASH "\"\n",
		  "a NUL character in the string" },
		/* Depth: the file is 1, each [ or { or - one more. */
		{ "nested 16 deep: not refused for its depth",
		  "a: [[[[[[[[[[[[[[[x]]]]]]]]]]]]]]]\n", WEB ":1: unknown key 'a'" },
		{ "nested 17 deep, flow", "a: [[[[[[[[[[[[[[[[x]]]]]]]]]]]]]]]]\n",
		  WEB ":1: YAML nested deeper than 16" },
		{ "nested 17 deep, flow mappings",
		  "tls_server_config: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: {a: "
		  "{a: {a: 1}}}}}}}}}}}}}}}}\n",
		  WEB ":1: YAML nested deeper than 16" },
		{ "nested 17 deep, block",
		  "basic_auth_users:\n  - - - - - - - - - - - - - - - - x\n",
		  WEB ":2: YAML nested deeper than 16" },
		{ "nested 17 deep, block mappings",
		  "a:\n b:\n  c:\n   d:\n    e:\n     f:\n      g:\n       h:\n        i:\n"
		  "         j:\n          k:\n           l:\n            m:\n             n:\n"
		  "              o:\n               p:\n                q: 1\n",
		  WEB ":17: YAML nested deeper than 16" },
		{ "nested 17 deep after a syntax error: the syntax error",
		  "a: ]\nb: [[[[[[[[[[[[[[[[x]]]]]]]]]]]]]]]]\n", "bad YAML" },
		{ "bcrypt cost 15", "basic_auth_users:\n  alice: $2b$15$" SALT_HASH "\n",
		  WEB ":2: basic_auth_users: the hash of 'alice' has bcrypt cost 15, above the "
		      "maximum 14: each wrong password would cost that much CPU" },
		{ "bcrypt cost 31",
		  "basic_auth_users:\n  ok: " HASH "\n  bob: '$2y$31$" SALT_HASH "'\n",
		  WEB
		  ":3: basic_auth_users: the hash of 'bob' has bcrypt cost 31, above the maximum "
		  "14" },
	};
	static const char nul[] = "basic_auth_users:\n  a: b\0c\n";
	struct ps_web_config c;
	unsigned int i;
	int rc;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rc = parse(cases[i].yaml, &c);
		check_report(rc == -1 && strstr(c.err, cases[i].want) && !strchr(c.err, '\n'),
			     cases[i].name, "rc %d, '%s', want '%s'", rc, c.err, cases[i].want);
		ps_web_config_free(&c);
	}
	/* libyaml takes no control character but tab and line breaks */
	rc = ps_web_config_parse(nul, sizeof(nul) - 1, WEB, &c);
	check_report(rc == -1 && strstr(c.err, "bad YAML: control characters are not allowed") &&
			 !strchr(c.err, '\n'),
		     "a NUL byte in the text", "rc %d, '%s'", rc, c.err);
	ps_web_config_free(&c);
}

/* 100,000 deep, as the audit wrote it: refused at the first level too deep,
 * before libyaml reads the rest (in flow style that took 37 s). */
static void deep(void)
{
	static const char *const shapes[][3] = {
		{ "tls_server_config: ", "[", "]" },
		{ "tls_server_config: ", "{a: ", "}" },
		{ "basic_auth_users:\n  ", "- ", "" },
	};
	const int n = 100000;
	struct ps_web_config c;
	size_t len, i;
	char *text, name[96];
	int rc, k, j;

	for (k = 0; k < 3; k++) {
		len = strlen(shapes[k][0]) +
		      (size_t)n * (strlen(shapes[k][1]) + strlen(shapes[k][2])) + 3;
		text = malloc(len);
		if (!text)
			return check_report(0, "deep: memory", "none");
		strcpy(text, shapes[k][0]);
		for (j = 0, i = strlen(text); j < n; j++, i += strlen(shapes[k][1]))
			memcpy(text + i, shapes[k][1], strlen(shapes[k][1]));
		text[i++] = 'x';
		for (j = 0; j < n; j++, i += strlen(shapes[k][2]))
			memcpy(text + i, shapes[k][2], strlen(shapes[k][2]));
		text[i++] = '\n';
		text[i] = '\0';
		rc = ps_web_config_parse(text, i, WEB, &c);
		snprintf(name, sizeof(name), "nested 100,000 deep (%s%s): refused in one line",
			 shapes[k][1], shapes[k][2]);
		check_report(rc == -1 && strstr(c.err, "YAML nested deeper than 16") &&
				 !strchr(c.err, '\n'),
			     name, "rc %d, '%s'", rc, c.err);
		ps_web_config_free(&c);
		free(text);
	}
}

static void bcrypt_form(void)
{
	static const struct {
		const char *s;
		bool want;
	} cases[] = {
		{ HASH, true },
		{ "$2b$04$" SALT_HASH, true },
		{ "$2a$31$" SALT_HASH, true }, /* bcrypt's form; the parser refuses the cost */
		{ "$2x$10$" SALT_HASH, false },
		{ "$2y$03$" SALT_HASH, false },
		{ "$2y$32$" SALT_HASH, false },
		{ "$2y$1a$" SALT_HASH, false },
		{ HASH "x", false },
		{ "$2y$10$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJPz!", false },
		{ "", false },
	};
	unsigned int i;
	char name[128];

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(name, sizeof(name), "bcrypt form of '%s': %s", cases[i].s,
			 cases[i].want ? "yes" : "no");
		check_report(ps_web_bcrypt_form(cases[i].s) == cases[i].want, name, "wrong");
	}
	check_report(ps_web_bcrypt_cost(HASH) == 10 &&
			 ps_web_bcrypt_cost("$2a$31$" SALT_HASH) == 31 &&
			 ps_web_bcrypt_cost("$2b$04$" SALT_HASH) == 4,
		     "bcrypt cost: its two digits", "%d", ps_web_bcrypt_cost(HASH));
}

/* ps_web_config_load(path) with its stderr in err: its result. */
static int load_err(const char *path, struct ps_web_config *c, char *err, size_t size)
{
	char tmp[] = "/tmp/ps-web-config-err-XXXXXX";
	int fd = mkstemp(tmp), saved = dup(2), rc;
	ssize_t n;

	fflush(stderr);
	dup2(fd, 2);
	rc = ps_web_config_load(path, c);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, err, size - 1, 0);
	err[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(tmp);
	return rc;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* A FIFO would block the read until a writer came (serve hung at start); a
 * directory said "Input/output error". Neither is opened for reading. */
static void not_regular(const char *dir, const char *web)
{
	char fifo[128], sub[128], text[512], err[1024], want[512];
	struct ps_web_config c;
	const struct {
		const char *what, *path, *kind;
	} cases[] = {
		{ "a FIFO", fifo, "a FIFO" },
		{ "a directory", sub, "a directory" },
		{ "/dev/null", "/dev/null", "a character device" },
	};
	unsigned int i;
	int rc;

	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	if (mkfifo(fifo, 0600) || mkdir(sub, 0700)) {
		check_report(0, "load: a FIFO and a directory", "%s", strerror(errno));
		return;
	}
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rc = load_err(cases[i].path, &c, err, sizeof(err));
		snprintf(want, sizeof(want),
			 "pathscope: --web-config %s: not a regular file (%s)\n", cases[i].path,
			 cases[i].kind);
		snprintf(text, sizeof(text), "load: %s as the web config: 1, one line",
			 cases[i].what);
		check_report(rc == 1 && !strcmp(err, want), text, "%d '%s'", rc, err);
		ps_web_config_free(&c);
		/* cert_file: any regular file (its content is checked later) */
		snprintf(text, sizeof(text),
			 "tls_server_config:\n  cert_file: %s\n  key_file: %s\n", web,
			 cases[i].path);
		write_file(web, text);
		rc = load_err(web, &c, err, sizeof(err));
		snprintf(want, sizeof(want),
			 "pathscope: %s: key_file %s: not a regular file (%s)\n", web,
			 cases[i].path, cases[i].kind);
		snprintf(text, sizeof(text), "load: %s as a PEM file: 1, one line", cases[i].what);
		check_report(rc == 1 && !strcmp(err, want), text, "%d '%s'", rc, err);
		ps_web_config_free(&c);
	}
	unlink(fifo);
	rmdir(sub);
}

/* Loaded, serve would start; one line on stderr for each. */
static void warnings(const char *web)
{
	static const struct {
		const char *what, *yaml, *want;
	} cases[] = {
		{ "an empty file", "",
		  "enables neither TLS nor basic authentication: serving "
		  "plain HTTP to anyone\n" },
		{ "basic_auth_users: with nobody", "basic_auth_users:\n",
		  "enables neither TLS nor basic authentication" },
		{ "tls_server_config: {}", "tls_server_config: {}\nbasic_auth_users: {}\n",
		  "enables neither TLS nor basic authentication" },
		{ "cost 5 (htpasswd -B)", "basic_auth_users:\n  alice: $2y$05$" SALT_HASH "\n",
		  ": basic_auth_users: the hash of 'alice' has bcrypt cost 5, below 10 (htpasswd "
		  "-B "
		  "makes cost 5 by default; htpasswd -nBC 10 makes 10)\n" },
		{ "cost 10: no warning", "basic_auth_users:\n  alice: " HASH "\n", "" },
		{ "cost 14, the maximum: no warning",
		  "basic_auth_users:\n  alice: $2y$14$" SALT_HASH "\n", "" },
	};
	struct ps_web_config c;
	char err[1024], name[128];
	unsigned int i;
	int rc;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		write_file(web, cases[i].yaml);
		rc = load_err(web, &c, err, sizeof(err));
		snprintf(name, sizeof(name), "load: %s: 0, %s", cases[i].what,
			 *cases[i].want ? "one warning line" : "stderr empty");
		check_report(rc == 0 &&
				 (*cases[i].want ? !strncmp(err, "pathscope: warning: ", 20) &&
						       strstr(err, cases[i].want) &&
						       strchr(err, '\n') == err + strlen(err) - 1
						 : !*err),
			     name, "%d '%s'", rc, err);
		ps_web_config_free(&c);
	}
}

static void load(void)
{
	char dir[] = "/tmp/ps-web-config-XXXXXX", path[128];
	struct ps_web_config c;
	FILE *f;
	int rc;

	if (!mkdtemp(dir)) {
		check_report(0, "load: a temporary directory", "%s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/nosuch.yml", dir);
	rc = ps_web_config_load(path, &c);
	check_report(rc == 1, "load: a missing file: 1", "%d", rc);
	ps_web_config_free(&c);

	snprintf(path, sizeof(path), "%s/web.yml", dir);
	f = fopen(path, "w");
	fputs("tls_server_config:\n  cert_file: nosuch.pem\n  key_file: nosuch.key\n", f);
	fclose(f);
	rc = ps_web_config_load(path, &c);
	check_report(rc == 1, "load: a cert_file that is missing: 1", "%d", rc);
	ps_web_config_free(&c);

	f = fopen(path, "w");
	fputs("basic_auth_users:\n  alice: " HASH "\n", f);
	fclose(f);
	rc = ps_web_config_load(path, &c);
	check_report(rc == 0 && c.nusers == 1 && !c.tls, "load: users only: 0", "%d", rc);
	ps_web_config_free(&c);

	f = fopen(path, "w");
	fputs("basic_auth_users:\n  alice: "
	      "$2y$10$mDwo.lAisC94iLAyP81MCzsa29IzH37oigHC/42V2pdJlUprsJPze\n",
	      f);
	fclose(f);
	rc = ps_web_config_load(path, &c);
	check_report(rc == 2, "load: a salt libxcrypt would rewrite (never matches): 2", "%d", rc);
	ps_web_config_free(&c);
	not_regular(dir, path);
	warnings(path);
	unlink(path);
	rmdir(dir);
}

/* What serve decides for user:pass (plen bytes): the cache, or bcrypt as a
 * worker of the pool runs it. VERIFY with *hash set when bcrypt ran. */
static bool password_ok(struct ps_web_config *c, const char *user, const char *pass, size_t plen,
			const char **hash)
{
	struct ps_web_ask ask;
	enum ps_web_verdict v;
	char cred[256];
	size_t n = strlen(user);
	bool ok;

	memcpy(cred, user, n);
	cred[n] = ':';
	memcpy(cred + n + 1, pass, plen);
	v = ps_web_auth_credentials(c, cred, n + 1 + plen, &ask);
	ok = v == PS_WEB_ALLOW ||
	     (v == PS_WEB_VERIFY && ask.user >= 0 && ps_auth_bcrypt_match(ask.pass, ask.hash));
	if (hash)
		*hash = v == PS_WEB_VERIFY ? ask.hash : NULL;
	if (v == PS_WEB_VERIFY && ok)
		ps_web_ask_learn(c, &ask);
	ps_web_ask_clear(&ask);
	return ok;
}

#define OK(c, u, p) password_ok(c, u, p, strlen(p), NULL)

static void make_hash(int cost, const char *pass, char out[CRYPT_OUTPUT_SIZE])
{
	char salt[CRYPT_GENSALT_OUTPUT_SIZE];
	struct crypt_data *cd = calloc(1, sizeof(*cd));

	out[0] = '\0';
	if (cd && crypt_gensalt_rn("$2b$", cost, NULL, 0, salt, sizeof(salt)) &&
	    crypt_rn(pass, salt, cd, sizeof(*cd)))
		snprintf(out, CRYPT_OUTPUT_SIZE, "%s", cd->output);
	free(cd);
}

static void passwords(void)
{
	struct ps_web_user users[3] = { { .name = "alice" },
					{ .name = "bob" },
					{ .name = "carl" } };
	struct ps_web_config c = { .users = users, .nusers = 2 };
	char a[CRYPT_OUTPUT_SIZE], b[CRYPT_OUTPUT_SIZE], d[CRYPT_OUTPUT_SIZE];
	const char *hash;

	make_hash(4, "alice's password", a);
	make_hash(4, "", b);
	make_hash(6, "carl's", d);
	if (!a[0] || !b[0] || !d[0]) {
		check_report(0, "libxcrypt makes bcrypt hashes", "no");
		return;
	}
	users[0].hash = a;
	users[1].hash = b;
	check_report(ps_web_bcrypt_form(a), "libxcrypt's hash has bcrypt's form", "%s", a);
	check_report(OK(&c, "alice", "alice's password"), "the right password", "refused");
	check_report(users[0].cached, "a match is cached", "not cached");
	check_report(password_ok(&c, "alice", "alice's password", 16, &hash) && !hash,
		     "the right password again: from the cache, no bcrypt", "refused or bcrypt");
	check_report(!OK(&c, "alice", "alice's passwor"), "a prefix of it", "taken");
	check_report(!OK(&c, "alice", "alice's password "), "with a space more", "taken");
	check_report(!password_ok(&c, "alice", "alice's password\0junk", 21, NULL),
		     "the right password, a NUL and more: refused", "taken");
	users[0].cached = false;
	check_report(!password_ok(&c, "alice", "alice's password\0junk", 21, &hash) && !hash,
		     "... also uncached, and without bcrypt", "taken");
	check_report(!password_ok(&c, "al\0ice", "alice's password", 16, NULL),
		     "a NUL in the user name: refused", "taken");
	check_report(!OK(&c, "bob", "alice's password"), "another user's password", "taken");
	check_report(!OK(&c, "carol", "alice's password"), "an unknown user with a known password",
		     "taken");
	check_report(OK(&c, "bob", ""), "an empty password that is bob's", "refused");
	check_report(!OK(&c, "alice", ""), "an empty password that is not alice's", "taken");
	/* Mixed costs: an unknown name pays for the dearest hash, not the first. */
	users[2].hash = d;
	c.nusers = 3;
	check_report(!password_ok(&c, "nobody", "x", 1, &hash) && hash == d,
		     "an unknown user: bcrypt against the dearest hash (cost 6, not the first's 4)",
		     "%s", hash ? hash : "(no bcrypt)");
	check_report(OK(&c, "carl", "carl's"), "the dearest user's own password", "refused");
	c.nusers = 0;
	check_report(!OK(&c, "alice", "alice's password"), "no users: nobody", "taken");
}

/* ---- the pool --------------------------------------------------------------------- */

struct waiter {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done;
};

static void job_done(void *arg)
{
	struct waiter *w = arg;

	pthread_mutex_lock(&w->lock);
	w->done++;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

static int resumed;

static void count_resumed(void *arg)
{
	(void)arg;
	resumed++;
}

static void pool(void)
{
	struct waiter w = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
	struct ps_auth_job *jobs[PS_AUTH_POOL_QUEUE + PS_AUTH_POOL_WORKERS + 8];
	struct ps_auth_pool *p = ps_auth_pool_start();
	char a[CRYPT_OUTPUT_SIZE], slow[CRYPT_OUTPUT_SIZE];
	int i, taken = 0, n = (int)(sizeof(jobs) / sizeof(jobs[0]));

	make_hash(4, "right", a);
	make_hash(12, "right", slow);
	if (!p || !a[0] || !slow[0]) {
		check_report(0, "a pool and hashes", "none");
		return;
	}
	jobs[0] = ps_auth_job_new("right", 5, a, true, job_done, &w);
	jobs[1] = ps_auth_job_new("wrong", 5, a, true, job_done, &w);
	jobs[2] = ps_auth_job_new("right", 5, a, false, job_done, &w);
	for (i = 0; i < 3; i++)
		ps_auth_pool_submit(p, jobs[i]);
	pthread_mutex_lock(&w.lock);
	while (w.done < 3)
		pthread_cond_wait(&w.cond, &w.lock);
	pthread_mutex_unlock(&w.lock);
	check_report(jobs[0]->match && !jobs[1]->match && !jobs[2]->match,
		     "pool: the right password matches; a wrong one, and an unknown user, not",
		     "%d %d %d", jobs[0]->match, jobs[1]->match, jobs[2]->match);
	for (i = 0; i < 3; i++)
		ps_auth_job_put(p, jobs[i]);
	/* Cost 12 keeps the workers busy while the queue fills. */
	for (i = 0; i < n; i++) {
		jobs[i] = ps_auth_job_new("x", 1, slow, true, job_done, &w);
		if (ps_auth_pool_submit(p, jobs[i]))
			taken++;
	}
	check_report(taken >= PS_AUTH_POOL_QUEUE &&
			 taken <= PS_AUTH_POOL_QUEUE + PS_AUTH_POOL_WORKERS,
		     "pool: a full queue refuses (32 waiting, 2 running at most)", "%d of %d taken",
		     taken, n);
	ps_auth_pool_stop(p, count_resumed);
	check_report(resumed == taken - (w.done - 3),
		     "pool: stop hands back every job queued or running", "%d of %d", resumed,
		     taken - (w.done - 3));
	check_report(!ps_auth_pool_submit(p, jobs[n - 1]), "pool: a stopped pool takes no job",
		     "taken");
	for (i = 0; i < n; i++)
		ps_auth_job_put(p, jobs[i]);
	ps_auth_pool_put(p);
}

/* The parser (ps_web_config_parse) on valid files (relative paths against the
 * file's directory, the client auth types, the TLS versions as a GnuTLS
 * priority string, users) and invalid ones (each refused in one line naming the
 * file, the line and the key); YAML nested deeper than the limit, block and
 * flow, 100,000 deep; bcrypt costs above the maximum; the bcrypt form;
 * ps_web_config_load on files it cannot read or that are not regular files (a
 * FIFO, a directory, a device), and its warnings (a low cost, neither TLS nor
 * users); the password check (libxcrypt's bcrypt, the cache, a NUL in the
 * credentials, the cost an unknown name pays); the pool of threads that runs
 * bcrypt (answers, a full queue, a stop that cancels). */
int main(void)
{
	valid();
	invalid();
	deep();
	bcrypt_form();
	load();
	passwords();
	pool();
	return check_exit_code();
}
