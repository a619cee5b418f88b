// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The web config's files, watched for a reload (see web_watch.h). */
#include "export/web_watch.h"
#include "export/web_config_load.h"

#include <stdlib.h>
#include <string.h>

#include "export/web_creds.h"

int ps_web_load(const char *file, struct ps_web_config *c)
{
	int rc = ps_web_config_load(file, c);

	return rc ? rc : ps_web_creds_load(file, c);
}

/* What a change shows in: a new file (rename over it), another size, a
 * write (mtime) or a chmod (ctime). */
static bool same(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

static void add(struct ps_web_watch *w, const char *path)
{
	if (path && w->n < PS_WEB_WATCH_FILES && (w->paths[w->n] = strdup(path))) {
		w->there[w->n] = stat(path, &w->st[w->n]) == 0;
		w->n++;
	}
}

void ps_web_watch_init(struct ps_web_watch *w, const char *file, const struct ps_web_config *c)
{
	ps_web_watch_free(w);
	w->file = file;
	add(w, file);
	add(w, c->cert_file);
	add(w, c->key_file);
	add(w, c->client_ca_file);
}

bool ps_web_watch_changed(struct ps_web_watch *w)
{
	bool changed = false, there;
	struct stat st;
	int i;

	for (i = 0; i < w->n; i++) {
		there = stat(w->paths[i], &st) == 0;
		if (there != w->there[i] || (there && !same(&st, &w->st[i])))
			changed = true;
		w->there[i] = there;
		if (there)
			w->st[i] = st;
	}
	return changed;
}

void ps_web_watch_free(struct ps_web_watch *w)
{
	int i;

	for (i = 0; i < w->n; i++)
		free(w->paths[i]);
	memset(w, 0, sizeof(*w));
}
