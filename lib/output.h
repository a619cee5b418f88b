/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Writes that fail are said, with their reason, and end the command with a
 * non-zero status: no output is reported as written when it was not. */
#ifndef PATHSCOPE_LIB_OUTPUT_H
#define PATHSCOPE_LIB_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/* The exit status of a command whose reader went away (EPIPE, SIGPIPE
 * ignored): that of one SIGPIPE ends, as a shell reports it. */
#define PS_EXIT_PIPE 141

/* A stdio stream over fd (closed with it, but for 0-2) that keeps the
 * reason of its first failed write for ps_out_flush(); line-buffered on a
 * terminal. NULL with errno. */
FILE *ps_out_stream(int fd);
/* stdout becomes such a stream (main, before anything is written). */
void ps_out_stdout_init(void);

/* Flush f and check that nothing written to it failed: 0, or -1 with errno
 * (that of its first failed write where f is one of ps_out_stream's, else
 * EIO where the error came at an earlier write). */
int ps_out_flush(FILE *f);

/* Standard output so far: 0 when all of it was written; PS_EXIT_PIPE,
 * quietly, when its reader went away; else 1 after one line "cannot write
 * standard output: REASON". Once it failed, it says so again without a
 * second line. */
int ps_out_stdout(void);

/* A file written whole or not at all: into a temporary file beside PATH,
 * renamed to PATH once complete, so that PATH never holds a truncated one.
 * Where PATH is not a regular file (a pipe, /dev/stdout, /dev/full) it is
 * written in place. */
struct ps_out_file {
	FILE *f;
	const char *path;
	char *tmp; /* NULL: written in place */
};

/* 0, or 1 after one line "cannot write PATH: REASON". */
int ps_out_file_open(struct ps_out_file *o, const char *path);
/* Flush, close and rename: 0, or 1 after one line "cannot write PATH:
 * REASON", the temporary file removed. */
int ps_out_file_commit(struct ps_out_file *o);
/* Give up: the temporary file removed, PATH as it was. */
void ps_out_file_abort(struct ps_out_file *o);

/* A file of lines (JSON lines) that can be read while written (tail -f):
 * each line is flushed whole, and a write that fails (a full disk) cuts
 * off what it left of its line, so that the file ends on a complete line. */
struct ps_out_lines {
	FILE *f; /* NULL: closed after a failed write */
	const char *path;
	int fd;
	off_t end; /* the end of its last complete line */
};

/* Created, or emptied (append false) or appended to: 0, or -1 with errno. */
int ps_out_lines_open(struct ps_out_lines *l, const char *path, bool append);
/* The lines written since the last call are complete: 0 when they are in
 * the file; 1 after one line "cannot write PATH: REASON", the file cut back
 * to its last complete line and closed. */
int ps_out_lines_end(struct ps_out_lines *l);
void ps_out_lines_close(struct ps_out_lines *l);

#endif /* PATHSCOPE_LIB_OUTPUT_H */
