// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Checked writes (output.h): the reason of a failed write is said once. */
#include "lib/output.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util.h"

int ps_out_flush(FILE *f)
{
	errno = 0;
	if (fflush(f) == 0 && !ferror(f))
		return 0;
	if (!errno)
		errno = EIO;
	return -1;
}

int ps_out_stdout(void)
{
	if (!ps_out_flush(stdout))
		return 0;
	if (errno == EPIPE)
		return PS_EXIT_PIPE;
	ps_error("cannot write standard output: %s", strerror(errno));
	return 1;
}

int ps_out_file_open(struct ps_out_file *o, const char *path)
{
	struct stat st;
	int fd;

	o->path = path;
	o->tmp = NULL;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		o->f = fopen(path, "w");
		if (!o->f)
			return ps_error("cannot write %s: %s", path, strerror(errno)), 1;
		return 0;
	}
	if (asprintf(&o->tmp, "%s.XXXXXX", path) < 0)
		return o->tmp = NULL, ps_error("cannot write %s: %s", path, strerror(ENOMEM)), 1;
	fd = mkstemp(o->tmp);
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		ps_error("cannot write %s: %s", path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(o->tmp);
		}
		free(o->tmp);
		o->tmp = NULL;
		return 1;
	}
	/* mkstemp's 0600 made what a plain fopen would: 0666 less the umask. */
	{
		mode_t mask = umask(0);

		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	return 0;
}

int ps_out_file_commit(struct ps_out_file *o)
{
	int err = 0;

	if (ps_out_flush(o->f))
		err = errno;
	if (fclose(o->f) && !err)
		err = errno ? errno : EIO;
	o->f = NULL;
	if (!err && o->tmp && rename(o->tmp, o->path))
		err = errno;
	if (err && o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
	if (err)
		return ps_error("cannot write %s: %s", o->path, strerror(err)), 1;
	return 0;
}

void ps_out_file_abort(struct ps_out_file *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
}
