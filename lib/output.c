// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Checked writes (output.h): stdio forgets why a write failed, so the streams
 * here keep the errno of their first failed write, for the error said later. */
#include "lib/output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util.h"

/* A stdio stream over the file descriptor (fopencookie): glibc drops the
 * buffer of a failed write and errno moves on, so err keeps the reason. */
struct stream {
	FILE *f;
	int fd;
	int err; /* errno of the first failed write; 0: none */
};

#define MAX_STREAMS 8
static struct stream streams[MAX_STREAMS];

static ssize_t stream_write(void *cookie, const char *buf, size_t len)
{
	struct stream *s = cookie;
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = write(s->fd, buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!s->err)
				s->err = n < 0 ? errno : EIO;
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static int stream_close(void *cookie)
{
	struct stream *s = cookie;
	int rc = s->fd > STDERR_FILENO ? close(s->fd) : 0;

	memset(s, 0, sizeof(*s));
	return rc;
}

FILE *ps_out_stream(int fd)
{
	static const cookie_io_functions_t io = { .write = stream_write, .close = stream_close };
	struct stream *s = NULL;
	int i;

	for (i = 0; i < MAX_STREAMS && !s; i++)
		if (!streams[i].f)
			s = &streams[i];
	if (!s)
		return fdopen(fd, "w"); /* checked still, without the reason */
	s->fd = fd;
	s->err = 0;
	s->f = fopencookie(s, "w", io);
	if (!s->f)
		return NULL;
	if (isatty(fd))
		setvbuf(s->f, NULL, _IOLBF, 0);
	return s->f;
}

void ps_out_stdout_init(void)
{
	FILE *f = ps_out_stream(STDOUT_FILENO);

	if (f)
		stdout = f;
}

int ps_out_flush(FILE *f)
{
	int i;

	errno = 0;
	if (fflush(f) == 0 && !ferror(f))
		return 0;
	for (i = 0; i < MAX_STREAMS; i++)
		if (streams[i].f == f && streams[i].err)
			errno = streams[i].err;
	if (!errno)
		errno = EIO;
	return -1;
}

int ps_out_stdout(void)
{
	static int status; /* said once: a later call gives the same */

	if (status || !ps_out_flush(stdout))
		return status;
	if (errno == EPIPE)
		return status = PS_EXIT_PIPE;
	ps_error("cannot write standard output: %s", strerror(errno));
	return status = 1;
}

int ps_out_file_open(struct ps_out_file *o, const char *path)
{
	struct stat st;
	mode_t mask;
	int fd;

	o->path = path;
	o->tmp = NULL;
	o->f = NULL;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	} else {
		if (asprintf(&o->tmp, "%s.XXXXXX", path) < 0) {
			o->tmp = NULL;
			errno = ENOMEM;
			return ps_error("cannot write %s: %s", path, strerror(errno)), 1;
		}
		fd = mkostemp(o->tmp, O_CLOEXEC);
		if (fd >= 0) { /* 0600 made what a plain open makes: 0666 less the umask */
			mask = umask(0);
			umask(mask);
			fchmod(fd, 0666 & ~mask);
		}
	}
	if (fd >= 0)
		o->f = ps_out_stream(fd);
	if (!o->f) {
		ps_error("cannot write %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		ps_out_file_abort(o);
		return 1;
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
	if (err) {
		ps_out_file_abort(o);
		return ps_error("cannot write %s: %s", o->path, strerror(err)), 1;
	}
	free(o->tmp);
	o->tmp = NULL;
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

int ps_out_lines_open(struct ps_out_lines *l, const char *path, bool append)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0666);

	l->path = path;
	l->fd = fd;
	l->f = fd < 0 ? NULL : ps_out_stream(fd);
	if (!l->f) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	l->end = lseek(fd, 0, SEEK_END);
	return 0;
}

int ps_out_lines_end(struct ps_out_lines *l)
{
	if (!ps_out_flush(l->f)) {
		l->end = lseek(l->fd, 0, SEEK_END);
		return 0;
	}
	ps_error("cannot write %s: %s", l->path, strerror(errno));
	fclose(l->f); /* what stdio still holds of the line goes with it */
	l->f = NULL;
	if (l->end >= 0 && truncate(l->path, l->end))
		return 1; /* not a regular file (/dev/full): nothing to cut */
	return 1;
}

void ps_out_lines_close(struct ps_out_lines *l)
{
	if (l->f)
		fclose(l->f);
	l->f = NULL;
}
