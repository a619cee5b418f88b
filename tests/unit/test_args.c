// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The parsers of command-line arguments other than --queues (test_queues.c): numbers,
 * seconds, --features, serve --listen, --xdp-join. Each case once a parser accepted
 * too much stays here (also found by tests/fuzz/fuzz_args.c). */
#include <arpa/inet.h>
#include <stdio.h>

#include "tests/lib/check.h"
#include "lib/util.h"
#include "loader/xdp_chain.h"
#include "lib/names.h"
#include "export/http.h"

/* s with its white space visible (\t, \n), for a test name on one line. */
static const char *shown(const char *s)
{
	static char buf[64];
	size_t n = 0;

	for (; *s && n + 3 < sizeof(buf); s++) {
		if (*s == '\t' || *s == '\n') {
			buf[n++] = '\\';
			buf[n++] = *s == '\t' ? 't' : 'n';
		} else {
			buf[n++] = *s;
		}
	}
	buf[n] = '\0';
	return buf;
}

static void number(const char *s, uint64_t max, int ok, uint64_t want)
{
	uint64_t v = 0;
	char name[128];
	bool got = ps_parse_u64(s, max, &v);

	snprintf(name, sizeof(name), "number: '%s' (max %" PRIu64 ") %s", shown(s), max,
		 ok ? "parses" : "is rejected");
	check_report(got == ok && (!ok || v == want), name, "got %d, value %" PRIu64, got, v);
}

static void seconds(const char *s, int ok, double want)
{
	double v = 0;
	char name[128];
	bool got = ps_parse_seconds(s, &v);

	snprintf(name, sizeof(name), "seconds: '%s' %s", shown(s), ok ? "parses" : "is rejected");
	check_report(got == ok && (!ok || v == want), name, "got %d, value %g", got, v);
}

static void listen_addr(const char *s, int family, unsigned int port)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char name[128];
	int rc = ps_http_parse_listen(s, &ss, &len);
	unsigned int got_port = 0;

	if (!rc)
		got_port = ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
							 : ((struct sockaddr_in6 *)&ss)->sin6_port);
	snprintf(name, sizeof(name), "listen: '%s' %s", s, family ? "parses" : "is rejected");
	check_report(family ? rc == 0 && ss.ss_family == family && got_port == port : rc != 0, name,
		     "rc %d, family %d, port %u", rc, rc ? -1 : ss.ss_family, got_port);
}

/* Every parser is fed the inputs it must refuse (a sign, white space, nan, a
 * port 0). */
int main(void)
{
	struct ps_meta m = {};
	__u32 f = 0;

	number("0", 10, 1, 0);
	number("10", 10, 1, 10);
	number("0x10", 65535, 1, 16);
	number("010", 65535, 1, 8);
	number("11", 10, 0, 0);
	number("", 10, 0, 0);
	number("-1", UINT64_MAX, 0, 0);
	number("+1", 10, 0, 0);
	number(" 1", 10, 0, 0);
	number("\t1", 10, 0, 0); /* strtoull skips any white space */
	number("\n1", 10, 0, 0);
	number("1 ", 10, 0, 0);
	number("1x", 10, 0, 0);
	number("99999999999999999999", UINT64_MAX, 0, 0);

	seconds("1", 1, 1);
	seconds("0.5", 1, 0.5);
	seconds(".25", 1, 0.25);
	seconds("1e3", 1, 1000);
	seconds("86400", 1, 86400);
	seconds("86401", 0, 0);
	seconds("0", 0, 0);
	seconds("-1", 0, 0);
	seconds(" 1", 0, 0);
	seconds("\t1", 0, 0);
	seconds("nan", 0, 0);
	seconds("inf", 0, 0);
	seconds("1s", 0, 0);

	CHECK_TRUE("features: 'default,kernel' parses",
		   ps_features_parse("default,kernel", &f) == 0 &&
		       f == (PS_F_DEFAULT | PS_F_KERNEL));
	CHECK_TRUE("features: 'none' is no feature", ps_features_parse("none", &f) == 0 && f == 0);
	CHECK_TRUE("features: 'all' is every feature",
		   ps_features_parse("all", &f) == 0 && f == PS_F_ALL);
	fprintf(stderr, "(two errors on purpose:)\n");
	CHECK_TRUE("features: an unknown name is rejected",
		   ps_features_parse("ecn,bogus", &f) != 0);
	CHECK_TRUE("features: a list of 300 bytes is rejected",
		   ps_features_parse("ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,"
				     "ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,"
				     "ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,"
				     "ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,"
				     "ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn,ecn",
				     &f) != 0);

	listen_addr("127.0.0.1:9464", AF_INET, 9464);
	listen_addr("[2001:db8::1]:80", AF_INET6, 80);
	listen_addr("0.0.0.0:65535", AF_INET, 65535);
	listen_addr("127.0.0.1:0", 0, 0);
	listen_addr("127.0.0.1:65536", 0, 0);
	listen_addr("127.0.0.1: 80", 0, 0);
	listen_addr("127.0.0.1:080", 0, 0); /* octal: not what anyone means by a port */
	listen_addr(":9464", 0, 0);
	listen_addr("localhost:9464", 0, 0);
	listen_addr("[::1:9464", 0, 0);
	listen_addr("2001:db8::1:80", 0, 0);

	fprintf(stderr, "(three errors on purpose:)\n");
	CHECK_TRUE("xdp-join: '/sys/fs/bpf/lb/root:3' parses",
		   ps_xdp_join_parse("/sys/fs/bpf/lb/root:3", &m) == 0 &&
		       strcmp(m.join_path, "/sys/fs/bpf/lb/root") == 0 && m.join_slot == 3);
	CHECK_TRUE("xdp-join: no slot is rejected", ps_xdp_join_parse("/sys/fs/bpf/lb/root", &m));
	CHECK_TRUE("xdp-join: no path is rejected", ps_xdp_join_parse(":3", &m));
	CHECK_TRUE("xdp-join: a slot with a sign is rejected",
		   ps_xdp_join_parse("/sys/fs/bpf/lb/root:-1", &m));
	return check_exit_code();
}
