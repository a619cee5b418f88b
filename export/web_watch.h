/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* serve --web-config without restarts: the config file and its PEM files, watched
 * for a change, so that a rotated certificate or a new user takes effect with no
 * detach and no gap in the scrapes. SIGHUP reloads too. */
#ifndef PATHSCOPE_EXPORT_WEB_WATCH_H
#define PATHSCOPE_EXPORT_WEB_WATCH_H

#include <stdbool.h>
#include <sys/stat.h>

#include "export/web_config.h"

#define PS_WEB_WATCH_FILES 4 /* the config, cert_file, key_file, client_ca_file */

/* A stat a second of each file: a change of inode, size or times is a reload. */
struct ps_web_watch {
	const char *file; /* --web-config */
	char *paths[PS_WEB_WATCH_FILES];
	struct stat st[PS_WEB_WATCH_FILES];
	bool there[PS_WEB_WATCH_FILES];
	int n;
};

/* Read file, check it and make its GnuTLS objects (ps_web_config_load, then
 * ps_web_creds_load): 0, or 1 or 2 after one line on stderr. */
int ps_web_load(const char *file, struct ps_web_config *c);

/* Watch file and the files c names, as they are now. */
void ps_web_watch_init(struct ps_web_watch *w, const char *file, const struct ps_web_config *c);

/* Has any of them changed since it was last looked at? (Then they are
 * looked at as they are now.) */
bool ps_web_watch_changed(struct ps_web_watch *w);

void ps_web_watch_free(struct ps_web_watch *w);

#endif /* PATHSCOPE_EXPORT_WEB_WATCH_H */
