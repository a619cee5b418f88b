// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* serve's content negotiation: which exposition an Accept header asks for. */
#include "export/http_accept.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- Accept (RFC 9110 12.5.1) -------------------------------------------------- */

/* [s, e) without the spaces and tabs around it. */
static void trim(const char **s, const char **e)
{
	while (*s < *e && (**s == ' ' || **s == '\t'))
		(*s)++;
	while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t'))
		(*e)--;
}

/* Is [s, e) the string z, in any case? */
static bool token_is(const char *s, const char *e, const char *z)
{
	size_t n = strlen(z);

	return (size_t)(e - s) == n && strncasecmp(s, z, n) == 0;
}

/* A q value ("0", "0.5", "1", "1.000"; RFC 9110 12.4.2), or -1 if malformed:
 * below every valid q, such a range never counts. */
static double qvalue(const char *s, const char *e)
{
	double q, scale = 1;
	int digits = 0;

	if (s == e || (*s != '0' && *s != '1'))
		return -1;
	q = *s++ - '0';
	if (s < e && *s++ != '.')
		return -1;
	for (; s < e; s++) {
		if (*s < '0' || *s > '9' || ++digits > 3)
			return -1;
		scale /= 10;
		q += (*s - '0') * scale;
	}
	return q > 1 ? -1 : q;
}

/* One parameter of a media range: key [k, ke), value [v, ve) (unquoted). */
struct param {
	const char *k, *ke, *v, *ve;
};

/* The next parameter of the list [*p, e) ("; k=v; k=v"); false at its end. */
static bool next_param(const char **p, const char *e, struct param *pm)
{
	const char *s, *pe, *eq;

	while (*p < e) {
		s = *p;
		pe = memchr(s, ';', (size_t)(e - s));
		if (!pe)
			pe = e;
		*p = pe < e ? pe + 1 : e;
		eq = memchr(s, '=', (size_t)(pe - s));
		if (!eq)
			continue;
		pm->k = s, pm->ke = eq, pm->v = eq + 1, pm->ve = pe;
		trim(&pm->k, &pm->ke);
		trim(&pm->v, &pm->ve);
		if (pm->ve - pm->v >= 2 && *pm->v == '"' && pm->ve[-1] == '"')
			pm->v++, pm->ve--;
		return true;
	}
	return false;
}

/* Does the parameter list [s, e) hold every pair of params ("k=v;k=v")? */
static bool has_params(const char *s, const char *e, const char *params)
{
	const char *r, *re, *eq, *p;
	struct param pm;
	bool found;

	for (r = params; *r; r = *re ? re + 1 : re) {
		re = strchrnul(r, ';');
		eq = memchr(r, '=', (size_t)(re - r));
		if (!eq)
			continue;
		found = false;
		for (p = s; !found && next_param(&p, e, &pm);)
			found = (size_t)(pm.ke - pm.k) == (size_t)(eq - r) &&
				strncasecmp(pm.k, r, (size_t)(eq - r)) == 0 &&
				(size_t)(pm.ve - pm.v) == (size_t)(re - eq - 1) &&
				memcmp(pm.v, eq + 1, (size_t)(re - eq - 1)) == 0;
		if (!found)
			return false;
	}
	return true;
}

bool ps_http_accept_prefers(const char *accept, const char *type, const char *params)
{
	const char *r, *re, *t, *te, *ps, *p;
	double want = 0, text = 0, q;
	struct param pm;

	if (!accept)
		return false;
	for (r = accept; *r; r = *re ? re + 1 : re) {
		re = strchrnul(r, ',');
		/* the media range [t, te), then its parameters [ps, re) */
		ps = memchr(r, ';', (size_t)(re - r));
		if (!ps)
			ps = re;
		t = r, te = ps;
		trim(&t, &te);
		q = 1;
		for (p = ps; next_param(&p, re, &pm);)
			if (token_is(pm.k, pm.ke, "q"))
				q = qvalue(pm.v, pm.ve);
		if (token_is(t, te, type) && has_params(ps, re, params))
			want = q > want ? q : want;
		if (token_is(t, te, "text/plain") || token_is(t, te, "text/*") ||
		    token_is(t, te, "*/*"))
			text = q > text ? q : text;
	}
	return want > 0 && want >= text;
}
