// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* serve --web-config FILE, once parsed (web_config.c): read the file and its PEM
 * files without blocking on a FIFO, and have GnuTLS and crypt(3) check them, so
 * that serve fails before it touches the kernel. */
#include "export/web_config_load.h"

#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/web_creds.h"

#include "lib/util.h"

#define MAX_FILE_BYTES (1 << 20) /* a web config or a PEM file */
#define NOT_REGULAR    1	 /* read_all(): not a regular file */

/* What a file that is not a regular one is, for a message. */
static const char *file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a file";
}

/* The whole of path, NUL-terminated, in *out: 0, or -errno (-EFBIG when
 * larger than MAX_FILE_BYTES), or NOT_REGULAR with its type in *mode. A FIFO
 * would block the read until a writer comes (serve hung at start), and
 * opening a device can have effects of its own: stat first, then open
 * without blocking and look again at what was opened. */
static int read_all(const char *path, char **out, size_t *len, mode_t *mode)
{
	char *buf = NULL, *nb;
	size_t n = 0, cap = 0, got;
	struct stat st;
	int err = 0, fd;
	FILE *f;

	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		*mode = st.st_mode;
		return NOT_REGULAR;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		*mode = st.st_mode;
		return NOT_REGULAR;
	}
	f = fdopen(fd, "r");
	if (!f) {
		err = -errno;
		close(fd);
		return err;
	}
	do {
		if (n + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			if (cap > MAX_FILE_BYTES + 8192) {
				err = -EFBIG;
				break;
			}
			nb = realloc(buf, cap);
			if (!nb) {
				err = -ENOMEM;
				break;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (n > MAX_FILE_BYTES)
			err = -EFBIG;
	} while (!err && got > 0);
	if (!err && ferror(f))
		err = -EIO;
	fclose(f);
	if (err) {
		free(buf);
		return err;
	}
	if (!buf && !(buf = malloc(1)))
		return -ENOMEM;
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

/* Read the PEM file `path` (option `what`) into *pem unless inline. */
static int read_pem(const char *file, const char *what, const char *path, char **pem)
{
	size_t len;
	mode_t mode;
	int err;

	if (!path)
		return 0;
	err = read_all(path, pem, &len, &mode);
	if (err == NOT_REGULAR)
		return ps_error("%s: %s %s: not a regular file (%s)", file, what, path,
				file_kind(mode)),
		       1;
	if (err)
		return ps_error("%s: cannot read %s %s: %s", file, what, path,
				err == -EFBIG ? "larger than 1 MiB" : strerror(-err)),
		       1;
	return 0;
}

static gnutls_datum_t datum(const char *s)
{
	return (gnutls_datum_t){ .data = (unsigned char *)s, .size = (unsigned int)strlen(s) };
}

/* What MHD will hand to GnuTLS, handed to it now: the key pair, the client
 * CA, the priority string. */
static int tls_check_pems(const char *file, const struct ps_web_config *c)
{
	gnutls_certificate_credentials_t cr;
	gnutls_priority_t prio;
	gnutls_datum_t cd = datum(c->cert), kd = datum(c->key), ad;
	const char *where = NULL;
	int rc;

	if (gnutls_certificate_allocate_credentials(&cr) < 0)
		return ps_error("%s: GnuTLS: out of memory", file), 1;
	rc = gnutls_certificate_set_x509_key_mem(cr, &cd, &kd, GNUTLS_X509_FMT_PEM);
	if (rc < 0) {
		ps_error("%s: TLS certificate %s and key %s: %s", file,
			 c->cert_file ? c->cert_file : "(cert)",
			 c->key_file ? c->key_file : "(key)", gnutls_strerror(rc));
		gnutls_certificate_free_credentials(cr);
		return 2;
	}
	if (c->client_ca) {
		ad = datum(c->client_ca);
		rc = gnutls_certificate_set_x509_trust_mem(cr, &ad, GNUTLS_X509_FMT_PEM);
		if (rc <= 0) {
			ps_error("%s: client CA %s: %s", file,
				 c->client_ca_file ? c->client_ca_file : "(client_ca)",
				 rc < 0 ? gnutls_strerror(rc) : "no certificate in it");
			gnutls_certificate_free_credentials(cr);
			return 2;
		}
	}
	gnutls_certificate_free_credentials(cr);
	rc = gnutls_priority_init(&prio, c->priorities, &where);
	if (rc < 0)
		return ps_error("%s: GnuTLS refuses the TLS versions (%s): %s", file, c->priorities,
				gnutls_strerror(rc)),
		       2;
	gnutls_priority_deinit(prio);
	return 0;
}

/* Does libxcrypt take the hash's salt as it is? It rewrites a salt whose
 * last character has bits bcrypt does not use, and then no password would
 * ever match. Checked at the lowest cost (a hash of cost 31 is valid, and
 * would take days). */
static bool bcrypt_salt_ok(const char *hash)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	char setting[30];
	const char *out;
	bool ok;

	if (!cd)
		return false;
	snprintf(setting, sizeof(setting), "%.4s04%.23s", hash, hash + 6); /* $2y$04$<salt> */
	out = crypt_rn("pathscope", setting, cd, sizeof(*cd));
	ok = out && strlen(out) == 60 && !strncmp(out + 6, hash + 6, 23);
	free(cd);
	return ok;
}

/* One line on stderr with ps_error's prefix, whatever a user name holds;
 * serve still starts. */
static void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void warn(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	for (char *s = line; *s; s++)
		if ((unsigned char)*s < ' ')
			*s = '?';
	fprintf(stderr, "pathscope: warning: %s\n", line);
}

int ps_web_config_load(const char *file, struct ps_web_config *c)
{
	char *text;
	size_t len;
	mode_t mode;
	int err, rc, i;

	memset(c, 0, sizeof(*c));
	err = read_all(file, &text, &len, &mode);
	if (err == NOT_REGULAR)
		return ps_error("--web-config %s: not a regular file (%s)", file, file_kind(mode)),
		       1;
	if (err)
		return ps_error("cannot read --web-config %s: %s", file,
				err == -EFBIG ? "larger than 1 MiB" : strerror(-err)),
		       1;
	rc = ps_web_config_parse(text, len, file, c);
	free(text);
	if (rc)
		return ps_error("%s", c->err), 2;
	for (i = 0; i < c->nusers; i++)
		if (!bcrypt_salt_ok(c->users[i].hash))
			return ps_error("%s: basic_auth_users: the hash of '%s' has a salt "
					"crypt(3) does not keep: no password would match",
					file, c->users[i].name),
			       2;
	if (gnutls_rnd(GNUTLS_RND_KEY, c->cache_key, sizeof(c->cache_key)) < 0)
		return ps_error("%s: no random bytes from GnuTLS", file), 1;
	if (c->tls) {
		if (read_pem(file, "cert_file", c->cert_file, &c->cert) ||
		    read_pem(file, "key_file", c->key_file, &c->key) ||
		    read_pem(file, "client_ca_file", c->client_ca_file, &c->client_ca))
			return 1;
		rc = tls_check_pems(file, c);
		if (rc)
			return rc;
	}
	/* Warnings last: a refused file gets its one line, nothing more. */
	for (i = 0; i < c->nusers; i++)
		if (ps_web_bcrypt_cost(c->users[i].hash) < PS_WEB_BCRYPT_COST_WARN)
			warn("%s: basic_auth_users: the hash of '%s' has bcrypt cost %d, below %d "
			     "(htpasswd -B makes cost 5 by default; htpasswd -nBC 10 makes 10)",
			     file, c->users[i].name, ps_web_bcrypt_cost(c->users[i].hash),
			     PS_WEB_BCRYPT_COST_WARN);
	if (!c->tls && !c->nusers)
		warn("%s enables neither TLS nor basic authentication: serving plain HTTP to "
		     "anyone",
		     file);
	return 0;
}

static void free_secret(char *s)
{
	if (s)
		explicit_bzero(s, strlen(s));
	free(s);
}

void ps_web_config_free(struct ps_web_config *c)
{
	int i;

	for (i = 0; i < c->nusers; i++) {
		free(c->users[i].name);
		free(c->users[i].hash);
	}
	free(c->users);
	free(c->cert_file);
	free(c->key_file);
	free(c->client_ca_file);
	free(c->cert);
	free_secret(c->key);
	free(c->client_ca);
	free(c->priorities);
	ps_web_creds_free(c->creds);
	explicit_bzero(c, sizeof(*c));
}
