// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer: serve --web-config's parser (ps_web_config_parse) on any file an operator
 * could write; reads no other file (the PEM files are ps_web_config_load's). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "export/web_config_load.h"

#define WEB "/etc/pathscope/web.yml"

static void path_ok(const char *p)
{
	if (p && p[0] != '/')
		abort(); /* a relative path was not resolved */
}

/* Does libyaml read a collection nested deeper than the limit before any
 * syntax error? Stops there: the levels after cost nothing. */
static bool too_deep(const uint8_t *data, size_t size)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	int depth = 0;
	bool deep = false, end = false;

	if (!yaml_parser_initialize(&parser))
		abort();
	yaml_parser_set_input_string(&parser, data, size);
	while (!deep && !end && yaml_parser_parse(&parser, &ev)) {
		if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT)
			deep = ++depth > PS_WEB_YAML_MAX_DEPTH;
		else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT)
			depth--;
		end = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return deep;
}

/* "WEB:LINE: YAML nested deeper than 16" and nothing else: a key of the
 * input can hold the words (the fuzzer found one that did). */
static bool depth_error(const char *err)
{
	char want[64];
	const char *s = err + strlen(WEB ":");

	if (strncmp(err, WEB ":", strlen(WEB ":")) || *s < '0' || *s > '9')
		return false;
	while (*s >= '0' && *s <= '9')
		s++;
	snprintf(want, sizeof(want), ": YAML nested deeper than %d", PS_WEB_YAML_MAX_DEPTH);
	return !strcmp(s, want);
}

/* Holds: a result of 0 or -1, an error of one line that names the file, every
 * user a bcrypt hash of a cost at most the maximum, every path absolute or
 * under the file's directory; YAML nested deeper than the limit refused as
 * such, in one line (counted here again, from libyaml's events); nothing leaked
 * either way. Reads no other file (the PEM files are ps_web_config_load's). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bool deep = too_deep(data, size);
	struct ps_web_config c;
	int rc, i;

	rc = ps_web_config_parse((const char *)data, size, WEB, &c);
	if (rc == -1) {
		if (strncmp(c.err, WEB ":", strlen(WEB ":")) != 0 || strchr(c.err, '\n'))
			abort(); /* not one line naming the file */
		if (deep != depth_error(c.err))
			abort(); /* too deep, refused for something else, or the reverse */
	} else if (rc == 0) {
		if (deep)
			abort(); /* too deep, taken */
		for (i = 0; i < c.nusers; i++)
			if (!ps_web_bcrypt_form(c.users[i].hash) ||
			    ps_web_bcrypt_cost(c.users[i].hash) > PS_WEB_BCRYPT_COST_MAX)
				abort();
		path_ok(c.cert_file);
		path_ok(c.key_file);
		path_ok(c.client_ca_file);
		if (c.tls &&
		    (!c.priorities || (!c.cert && !c.cert_file) || (!c.key && !c.key_file)))
			abort();
	} else {
		abort();
	}
	ps_web_config_free(&c);
	return 0;
}
