/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A web config's whole life: read with its PEM files and checked, and freed
 * with its GnuTLS objects (web_creds.h), above its parser (web_config.h). */
#ifndef PATHSCOPE_EXPORT_WEB_CONFIG_LOAD_H
#define PATHSCOPE_EXPORT_WEB_CONFIG_LOAD_H

#include "export/web_config.h"

/* Read file, parse it, read the PEM files it names and check them (the key
 * matches the certificate, the client CA holds a certificate, GnuTLS takes
 * the TLS versions): 0, or 1 (a file cannot be read, or is not a regular
 * file: a FIFO would block, a directory or a device is no config) or 2 (bad
 * content) after one line on stderr. Warns on stderr, one line each, and
 * returns 0 for a bcrypt cost below PS_WEB_BCRYPT_COST_WARN and for a file
 * that enables neither TLS nor basic authentication. */
int ps_web_config_load(const char *file, struct ps_web_config *c);

/* Everything c holds, the GnuTLS objects too. */
void ps_web_config_free(struct ps_web_config *c);

#endif /* PATHSCOPE_EXPORT_WEB_CONFIG_LOAD_H */
