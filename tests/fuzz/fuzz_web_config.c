// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer: serve --web-config's parser (ps_web_config_parse) on any file
 * an operator could write: a result of 0 or -1, an error of one line that
 * names the file, every user a bcrypt hash, every path absolute or under
 * the file's directory; nothing leaked either way. Reads no other file (the
 * PEM files are ps_web_config_load's). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "export/web_config.h"

#define WEB "/etc/pathscope/web.yml"

static void path_ok(const char *p)
{
	if (p && p[0] != '/')
		abort(); /* a relative path was not resolved */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_web_config c;
	int rc, i;

	rc = ps_web_config_parse((const char *)data, size, WEB, &c);
	if (rc == -1) {
		if (strncmp(c.err, WEB ":", strlen(WEB ":")) != 0 || strchr(c.err, '\n'))
			abort(); /* not one line naming the file */
	} else if (rc == 0) {
		for (i = 0; i < c.nusers; i++)
			if (!ps_web_bcrypt_form(c.users[i].hash))
				abort();
		path_ok(c.cert_file);
		path_ok(c.key_file);
		path_ok(c.client_ca_file);
		if (c.tls &&
		    (!c.priorities || (!c.cert && !c.cert_file) || (!c.key && !c.key_file)))
			abort();
	} else {
		abort();
	}
	ps_web_config_free(&c);
	return 0;
}
