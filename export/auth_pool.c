// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* bcrypt off the HTTP thread (see auth_pool.h). One mutex guards the queue, the
 * jobs' references and the cancellation; a worker calls done() under it, so that
 * a stop that cancels a job and a worker that finishes it cannot both act on it. */
#include "export/auth_pool.h"

#include <crypt.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <gnutls/gnutls.h>

struct ps_auth_pool {
	pthread_mutex_t lock;
	pthread_cond_t work;
	struct ps_auth_job *head, *tail; /* queued */
	int queued;
	struct ps_auth_job *running[PS_AUTH_POOL_WORKERS];
	int nworkers;
	bool stopping;
	int refs; /* the owner and each worker */
};

static void pool_unref(struct ps_auth_pool *p)
{
	bool last;

	last = --p->refs == 0;
	pthread_mutex_unlock(&p->lock);
	if (last) {
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->work);
		free(p);
	}
}

static void job_free(struct ps_auth_job *j)
{
	explicit_bzero(j->pass, j->pass_len);
	free(j->pass);
	free(j->hash);
	free(j);
}

/* With p->lock held. */
static void job_unref(struct ps_auth_job *j)
{
	if (--j->refs == 0)
		job_free(j);
}

/* crypt(3) takes a C string: a password with a NUL inside never reaches it
 * (web_auth.c refuses those first). */
bool ps_auth_bcrypt_match(const char *pass, const char *hash)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	const char *out;
	size_t n;
	bool ok;

	if (!cd)
		return false;
	out = crypt_rn(pass, hash, cd, sizeof(*cd));
	n = strlen(hash);
	ok = out && out[0] == '$' && strlen(out) == n && gnutls_memcmp(out, hash, n) == 0;
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return ok;
}

static void *worker(void *arg)
{
	struct ps_auth_pool *p = arg;
	struct ps_auth_job *j;
	bool match;
	int slot;

	pthread_mutex_lock(&p->lock);
	slot = p->nworkers++;
	for (;;) {
		while (!p->head && !p->stopping)
			pthread_cond_wait(&p->work, &p->lock);
		if (p->stopping)
			break;
		j = p->head;
		p->head = j->next;
		if (!p->head)
			p->tail = NULL;
		p->queued--;
		if (j->cancelled) { /* its request is gone: no bcrypt for nobody */
			job_unref(j);
			continue;
		}
		p->running[slot] = j;
		pthread_mutex_unlock(&p->lock);
		match = ps_auth_bcrypt_match(j->pass, j->hash) && j->known;
		pthread_mutex_lock(&p->lock);
		p->running[slot] = NULL;
		if (!j->cancelled) {
			j->match = match;
			j->done(j->arg);
		}
		job_unref(j);
	}
	pool_unref(p);
	return NULL;
}

struct ps_auth_pool *ps_auth_pool_start(void)
{
	struct ps_auth_pool *p = calloc(1, sizeof(*p));
	pthread_attr_t attr;
	pthread_t t;
	int i;

	if (!p)
		return NULL;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	p->refs = 1;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_mutex_lock(&p->lock);
	for (i = 0; i < PS_AUTH_POOL_WORKERS; i++) {
		p->refs++;
		if (pthread_create(&t, &attr, worker, p)) {
			p->refs--;
			break;
		}
	}
	pthread_mutex_unlock(&p->lock);
	pthread_attr_destroy(&attr);
	if (i == 0) {
		ps_auth_pool_stop(p, NULL);
		ps_auth_pool_put(p);
		return NULL;
	}
	return p;
}

struct ps_auth_job *ps_auth_job_new(const char *pass, size_t len, const char *hash, bool known,
				    void (*done)(void *arg), void *arg)
{
	struct ps_auth_job *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->pass = malloc(len + 1);
	j->hash = strdup(hash);
	if (!j->pass || !j->hash) {
		free(j->pass);
		free(j->hash);
		free(j);
		return NULL;
	}
	memcpy(j->pass, pass, len);
	j->pass[len] = '\0';
	j->pass_len = len;
	j->known = known;
	j->done = done;
	j->arg = arg;
	j->refs = 1;
	return j;
}

bool ps_auth_pool_submit(struct ps_auth_pool *p, struct ps_auth_job *job)
{
	bool ok;

	pthread_mutex_lock(&p->lock);
	ok = !p->stopping && p->queued < PS_AUTH_POOL_QUEUE;
	if (ok) {
		job->refs++;
		job->next = NULL;
		if (p->tail)
			p->tail->next = job;
		else
			p->head = job;
		p->tail = job;
		p->queued++;
		pthread_cond_signal(&p->work);
	}
	pthread_mutex_unlock(&p->lock);
	return ok;
}

void ps_auth_job_put(struct ps_auth_pool *p, struct ps_auth_job *job)
{
	pthread_mutex_lock(&p->lock);
	job->cancelled = true;
	job_unref(job);
	pthread_mutex_unlock(&p->lock);
}

void ps_auth_pool_stop(struct ps_auth_pool *p, void (*fn)(void *arg))
{
	struct ps_auth_job *j;
	int i;

	pthread_mutex_lock(&p->lock);
	p->stopping = true;
	while ((j = p->head)) {
		p->head = j->next;
		if (!j->cancelled && fn)
			fn(j->arg);
		j->cancelled = true;
		job_unref(j);
	}
	p->tail = NULL;
	p->queued = 0;
	for (i = 0; i < PS_AUTH_POOL_WORKERS; i++) {
		j = p->running[i];
		if (j && !j->cancelled) {
			if (fn)
				fn(j->arg);
			j->cancelled = true;
		}
	}
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
}

void ps_auth_pool_put(struct ps_auth_pool *p)
{
	pthread_mutex_lock(&p->lock);
	pool_unref(p);
}
