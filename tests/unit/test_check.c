// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The C tests' CI detection (tests/lib/check.h): CI set to anything but "", "0" or
 * "false" (any case) is CI, where a skip is a failure; the same rule as
 * tests/integration/lib.sh's ps_in_ci (checked in test_runner.sh). */
#include <stdlib.h>
#include "../lib/check.h"

int main(void)
{
	static const struct {
		const char *ci; /* NULL: unset */
		int want;
	} cases[] = {
		{ NULL, 0 }, { "", 0 },	    { "0", 0 },	  { "false", 0 }, { "FALSE", 0 },
		{ "1", 1 },  { "true", 1 }, { "yes", 1 }, { "TRUE", 1 },  { "00", 1 },
	};
	char name[64];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (cases[i].ci)
			setenv("CI", cases[i].ci, 1);
		else
			unsetenv("CI");
		snprintf(name, sizeof(name), "check: CI=%s%s%s is %s", cases[i].ci ? "'" : "",
			 cases[i].ci ? cases[i].ci : "(unset)", cases[i].ci ? "'" : "",
			 cases[i].want ? "CI" : "not CI");
		CHECK_EQ_U64(name, check_in_ci(), cases[i].want);
	}
	unsetenv("CI");
	return check_exit_code();
}
