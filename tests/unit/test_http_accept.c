// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* serve's content negotiation (ps_http_accept_prefers): the protobuf exposition only
 * for a client that names it, with its parameters, above 0 and at least as high as
 * text/plain; Prometheus' own Accept headers, curl's; q values and their syntax. */
#include <stdbool.h>

#include "tests/lib/check.h"
#include "export/http.h"
#include "export/http_accept.h"

#define PB	  "application/vnd.google.protobuf"
#define PB_PARAMS "proto=io.prometheus.client.MetricFamily;encoding=delimited"

int main(void)
{
	static const struct {
		const char *name, *accept;
		bool want;
	} cases[] = {
		{ "Prometheus 2.42 with native histograms",
		  "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
		  "encoding=delimited,application/openmetrics-text;version=1.0.0;q=0.8,"
		  "application/openmetrics-text;version=0.0.1;q=0.75,text/"
		  "plain;version=0.0.4;q=0.5,"
		  "*/*;q=0.1",
		  true },
		{ "Prometheus 2.42 without",
		  "application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
		  "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
		  false },
		{ "curl's */*", "*/*", false },
		{ "empty", "", false },
		{ "spaces, quotes and the type's case",
		  " Application/Vnd.Google.Protobuf ; proto=\"io.prometheus.client.MetricFamily\" ;"
		  " encoding=delimited ; q=0.9 , text/plain;q=0.9",
		  true },
		{ "q=0 refuses it", PB ";" PB_PARAMS ";q=0", false },
		{ "lower than text/plain", PB ";" PB_PARAMS ";q=0.4, text/plain;q=0.5", false },
		{ "lower than */*", PB ";" PB_PARAMS ";q=0.4, */*", false },
		{ "lower than text/*", PB ";" PB_PARAMS ";q=0.4, text/*;q=0.6", false },
		{ "equal to text/plain", PB ";" PB_PARAMS ";q=0.5, text/plain;q=0.5", true },
		{ "without encoding=delimited", PB ";proto=io.prometheus.client.MetricFamily",
		  false },
		{ "another encoding",
		  PB ";"
		     "proto=io.prometheus.client.MetricFamily;encoding=text",
		  false },
		{ "another encoding of the same length (values compared, not only their lengths)",
		  PB ";proto=io.prometheus.client.MetricFamily;encoding=unlimited", false },
		{ "another message", PB ";proto=io.prometheus.client.Metric;encoding=delimited",
		  false },
		{ "malformed q (2) does not count", PB ";" PB_PARAMS ";q=2", false },
		{ "malformed q (0.1234) does not count", PB ";" PB_PARAMS ";q=0.1234", false },
		{ "q=1.000 counts", PB ";" PB_PARAMS ";q=1.000, text/plain", true },
		{ "only commas and semicolons", ",;,;;=,", false },
		{ "the type without parameters", PB, false },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_report(ps_http_accept_prefers(cases[i].accept, PB, PB_PARAMS) ==
				 cases[i].want,
			     cases[i].name, "'%s': %s", cases[i].accept,
			     cases[i].want ? "not chosen" : "chosen");
	check_report(!ps_http_accept_prefers(NULL, PB, PB_PARAMS), "no Accept header: text",
		     "chosen");
	return check_exit_code();
}
