// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The --queues list parser and formatter. */
#include <linux/types.h>

#include "tests/lib/check.h"
#include "lib/queues.h"

static void expect_ok(const char *list, unsigned int limit, const char *formatted)
{
	__u64 mask[PS_QMASK_WORDS];
	char err[160], buf[256], name[128];
	int rc = ps_queues_parse(list, limit, mask, err, sizeof(err));

	snprintf(name, sizeof(name), "queues: '%s' parses", list);
	check_report(rc == 0, name, "%s", err);
	if (rc)
		return;
	ps_queues_format(mask, buf, sizeof(buf));
	snprintf(name, sizeof(name), "queues: '%s' formats as '%s'", list, formatted);
	check_report(strcmp(buf, formatted) == 0, name, "got '%s'", buf);
}

static void expect_error(const char *list, unsigned int limit, const char *fragment)
{
	__u64 mask[PS_QMASK_WORDS];
	char err[160] = "", name[128];
	int rc = ps_queues_parse(list, limit, mask, err, sizeof(err));

	snprintf(name, sizeof(name), "queues: '%s' is rejected (%s)", list ? list : "(null)",
		 fragment);
	check_report(rc == -1 && strstr(err, fragment) && !strchr(err, '\n'), name,
		     "rc %d, error '%s'", rc, err);
}

int main(void)
{
	__u64 mask[PS_QMASK_WORDS];
	char err[160];
	unsigned int q, n = 0;

	expect_ok("0", 4, "0");
	expect_ok("3", 4, "3");
	expect_ok("0-3", 4, "0-3");
	expect_ok("0-3,7", 8, "0-3,7");
	expect_ok("7,0-3", 8, "0-3,7");
	expect_ok("1,2,3,5", 8, "1-3,5");
	expect_ok("0-1,1-2", 8, "0-2");
	expect_ok("all", 4, "0-3");
	expect_ok("1023", 1024, "1023");
	expect_ok("0-1023", 1024, "0-1023");

	expect_error("", 4, "empty");
	expect_error(NULL, 4, "empty");
	expect_error("4", 4, "does not exist");
	expect_error("0-4", 4, "does not exist");
	expect_error("3-1", 4, "reversed");
	expect_error("a", 4, "expected numbers");
	expect_error("1,", 4, "expected numbers");
	expect_error(",1", 4, "expected numbers");
	expect_error("1--2", 4, "expected numbers");
	expect_error("-1", 4, "expected numbers");
	expect_error("1 ", 4, "expected numbers");
	expect_error("0x1", 4, "expected numbers");
	expect_error("1024", 2048, "below 1024");
	expect_error("99999999999999999999", 4, "below 1024");

	ps_queues_parse("0-3,7,64,1000-1001", 1024, mask, err, sizeof(err));
	for (q = 0; q < PS_MAX_QUEUES + 10; q++)
		n += ps_queue_selected(mask, q);
	CHECK_EQ_U64("queues: 0-3,7,64,1000-1001 selects 8 queues", n, 8);
	CHECK_TRUE("queues: 64 selected (second mask word)", ps_queue_selected(mask, 64));
	CHECK_TRUE("queues: 63 not selected", !ps_queue_selected(mask, 63));

	memset(mask, 0, sizeof(mask));
	ps_queues_format(mask, err, sizeof(err));
	check_report(strcmp(err, "none") == 0, "queues: empty mask formats as 'none'", "got '%s'",
		     err);
	return check_exit_code();
}
