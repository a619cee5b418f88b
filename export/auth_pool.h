/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A bounded pool of threads that run bcrypt for serve's basic authentication, so
 * that the HTTP thread never does: a flood of wrong passwords queues here (refused
 * once the queue is full) while /healthz and cached credentials are answered at once. */
#ifndef PATHSCOPE_EXPORT_AUTH_POOL_H
#define PATHSCOPE_EXPORT_AUTH_POOL_H

#include <stdbool.h>
#include <stddef.h>

#define PS_AUTH_POOL_WORKERS 2	/* bcrypt is CPU: more than the cores buys nothing */
#define PS_AUTH_POOL_QUEUE   32 /* waiting jobs; more are refused (503) at once */

struct ps_auth_pool;

/* A job carries everything the worker needs (its own copies of the password
 * and the hash), so a worker touches nothing else: a job still running when
 * serve stops is cancelled, not waited for, and the process may exit under it. */
struct ps_auth_job {
	/* Set by the submitter; the worker reads them. */
	char *pass;
	size_t pass_len;
	char *hash;
	bool known; /* a user of that name exists (else the answer is no) */
	void (*done)(void *arg);
	void *arg;
	/* The answer, once done() was called. */
	bool match;
	/* The pool's. */
	int refs;
	bool cancelled;
	struct ps_auth_job *next;
};

/* Is pass (len bytes, no NUL inside) the password of the bcrypt hash? What
 * a worker runs; slow by design. */
bool ps_auth_bcrypt_match(const char *pass, const char *hash);

/* NULL when the threads cannot be made. */
struct ps_auth_pool *ps_auth_pool_start(void);

/* A job for pass (len bytes) against hash; NULL when out of memory. */
struct ps_auth_job *ps_auth_job_new(const char *pass, size_t len, const char *hash, bool known,
				    void (*done)(void *arg), void *arg);

/* Queue the job: done(arg) is called from a worker once job->match is set,
 * unless the job was cancelled before. false: the queue is full (the job is
 * still the caller's to put). */
bool ps_auth_pool_submit(struct ps_auth_pool *p, struct ps_auth_job *job);

/* The caller's reference goes; done() is no longer called for a job put
 * before it ran. */
void ps_auth_job_put(struct ps_auth_pool *p, struct ps_auth_job *job);

/* Cancel every job queued or running (their done() will not be called)
 * after calling fn(arg) for each; no job is taken after. Workers end once
 * their bcrypt returns: stop does not wait for them. */
void ps_auth_pool_stop(struct ps_auth_pool *p, void (*fn)(void *arg));

/* The caller's reference to a stopped pool goes: the last of it and its
 * workers frees it. */
void ps_auth_pool_put(struct ps_auth_pool *p);

#endif /* PATHSCOPE_EXPORT_AUTH_POOL_H */
