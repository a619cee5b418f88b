// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* JSON pieces every family uses (json.h). */
#include "stats/format/json.h"

#include <stdio.h>

#include "pathscope/hist.h"
#include "stats/format/hist.h"

void ps_json_add_u64(json_object *o, const char *k, __u64 v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

static bool pretty;

void ps_json_set_pretty(bool on)
{
	pretty = on;
}

void ps_json_print(FILE *out, json_object *o)
{
	fprintf(out, "%s\n",
		json_object_to_json_string_ext(
		    o, (pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
			       : JSON_C_TO_STRING_PLAIN) |
			   JSON_C_TO_STRING_NOSLASHESCAPE));
}

json_object *ps_json_double(double v, int decimals)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	return json_object_new_double_s(v, buf);
}

json_object *ps_json_counts(const __u64 *v, const char *const *names, int n)
{
	json_object *o = json_object_new_object();
	int i;

	for (i = 0; i < n; i++)
		ps_json_add_u64(o, names[i], v[i]);
	return o;
}

/* Non-empty buckets as [{"low": L, "high": H, "count": N}], high exclusive. */
static json_object *hist_array(const __u64 *b, unsigned int n)
{
	json_object *a = json_object_new_array();
	unsigned int i;

	for (i = 0; i < n; i++) {
		json_object *e;

		if (!b[i])
			continue;
		e = json_object_new_object();
		ps_json_add_u64(e, "low", ps_hist_bucket_low(i));
		if (i == n - 1)
			json_object_object_add(e, "high", NULL); /* clamped: no upper bound */
		else
			ps_json_add_u64(e, "high", ps_hist_bucket_high(i));
		ps_json_add_u64(e, "count", b[i]);
		json_object_array_add(a, e);
	}
	return a;
}

json_object *ps_json_dist(const __u64 *b, unsigned int n)
{
	json_object *o = json_object_new_object();
	__u64 count = ps_hist_count(b, n);

	ps_json_add_u64(o, "count", count);
	if (count) {
		ps_json_add_u64(o, "p50", ps_hist_percentile(b, n, 50));
		ps_json_add_u64(o, "p90", ps_hist_percentile(b, n, 90));
		ps_json_add_u64(o, "p99", ps_hist_percentile(b, n, 99));
		ps_json_add_u64(o, "p99_9", ps_hist_percentile(b, n, 99.9));
		ps_json_add_u64(o, "max", ps_hist_max(b, n));
	} else {
		json_object_object_add(o, "p50", NULL);
		json_object_object_add(o, "p90", NULL);
		json_object_object_add(o, "p99", NULL);
		json_object_object_add(o, "p99_9", NULL);
		json_object_object_add(o, "max", NULL);
	}
	json_object_object_add(o, "hist", hist_array(b, n));
	return o;
}
