// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Small helpers shared by the subcommands (util.h). */
#include "lib/util.h"

#include <bpf/libbpf.h>
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <errno.h>
#include <signal.h>
#include <linux/capability.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

int ps_error(const char *fmt, ...)
{
	va_list ap;

	fputs("pathscope: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

int ps_error_unknown_iface(const char *name)
{
	return ps_error("unknown interface '%s' (in this network namespace)", name);
}

static bool has_cap(const struct __user_cap_data_struct data[2], int cap)
{
	return data[cap / 32].effective & (1U << (cap % 32));
}

/* Names what is missing, every one of them, in one line. */
static int require_caps(bool load)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = {};
	const char *missing[3];
	char list[160] = "";
	bool admin;
	int n = 0;

	if (syscall(SYS_capget, &hdr, data))
		return ps_error("cannot read capabilities: %s", strerror(errno));
	admin = has_cap(data, CAP_SYS_ADMIN);
	if (!admin && !has_cap(data, CAP_BPF))
		missing[n++] = "CAP_BPF (or CAP_SYS_ADMIN)";
	if (!has_cap(data, CAP_NET_ADMIN))
		missing[n++] = "CAP_NET_ADMIN";
	if (load && !admin && !has_cap(data, CAP_PERFMON))
		missing[n++] = "CAP_PERFMON (or CAP_SYS_ADMIN)";
	if (!n)
		return 0;
	for (int i = 0; i < n; i++) {
		strcat(list, i == 0 ? "" : i == n - 1 ? " and " : ", ");
		strcat(list, missing[i]);
	}
	return ps_error("missing privileges: need %s (run as root, or with sudo)", list);
}

int ps_require_privileges(void)
{
	return require_caps(false);
}

int ps_require_load_privileges(void)
{
	return require_caps(true);
}

int ps_require_btf(void)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK) == 0)
		return 0;
	return ps_error("no kernel BTF (/sys/kernel/btf/vmlinux): this kernel was built without "
			"CONFIG_DEBUG_INFO_BTF, which pathscope needs");
}

int ps_tracefs_ensure(void)
{
	if (access("/sys/kernel/tracing/events", F_OK) == 0)
		return 0;
	if (mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0)
		return 0;
	return ps_error("tracefs is not mounted at /sys/kernel/tracing and mounting it failed: %s",
			strerror(errno));
}

uint64_t ps_now_ns(int clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t ps_netns_ino(void)
{
	struct stat st;

	if (stat("/proc/self/ns/net", &st))
		return 0;
	return st.st_ino;
}

bool ps_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	/* A digit first: strtoull would skip white space and take a sign. */
	if (!s || !isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > max)
		return false;
	*out = v;
	return true;
}

bool ps_parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !(isdigit((unsigned char)*s) || *s == '.'))
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v <= 0 || v > 86400)
		return false;
	*out = v;
	return true;
}

int ps_netns_open(uint64_t ino)
{
	char path[300];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd = -1;

	d = opendir("/var/run/netns");
	if (!d)
		return -1;
	while (fd < 0 && (de = readdir(d))) {
		snprintf(path, sizeof(path), "/var/run/netns/%s", de->d_name);
		if (de->d_name[0] != '.' && stat(path, &st) == 0 && st.st_ino == ino)
			fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	closedir(d);
	return fd;
}

int ps_netns_enter_fd(int target)
{
	int self, err;

	/* The thread's own: setns moves only the calling thread. */
	self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0)
		return -errno;
	if (setns(target, CLONE_NEWNET)) {
		err = -errno;
		close(self);
		return err;
	}
	return self;
}

int ps_netns_enter(uint64_t ino)
{
	int self, target;

	if (ino == ps_netns_ino())
		return -1;
	target = ps_netns_open(ino);
	if (target < 0)
		return -2;
	self = ps_netns_enter_fd(target);
	close(target);
	return self < 0 ? -2 : self;
}

void ps_netns_leave(int self)
{
	if (self < 0)
		return;
	if (setns(self, CLONE_NEWNET))
		ps_error("cannot return to the original network namespace: %s", strerror(errno));
	close(self);
}

volatile sig_atomic_t ps_stop;

static void on_stop_signal(int sig)
{
	(void)sig;
	ps_stop = 1;
}

void ps_stop_on_signals(void)
{
	signal(SIGINT, on_stop_signal);
	signal(SIGTERM, on_stop_signal);
}

void ps_sleep_s(double s)
{
	struct timespec ts = { .tv_sec = (time_t)s, .tv_nsec = (long)((s - (time_t)s) * 1e9) };

	while (!ps_stop && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

bool ps_fallback_forced(const char *what)
{
	const char *list = getenv("PATHSCOPE_FORCE_FALLBACK"), *p;
	size_t n = strlen(what);

	for (p = list; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		if (strncmp(p, what, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return true;
	}
	return false;
}

void ps_kill_point(const char *name)
{
	const char *kill_at = getenv("PATHSCOPE_KILL_AT");
	const char *stop_at = getenv("PATHSCOPE_STOP_AT");

	if (kill_at && strcmp(kill_at, name) == 0)
		raise(SIGKILL);
	if (stop_at && strcmp(stop_at, name) == 0)
		raise(SIGSTOP); /* until SIGCONT */
}

int ps_read_int_file(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

bool ps_parse_prefixes(const char *s, unsigned int *v4, unsigned int *v6)
{
	const char *comma = strchr(s, ',');
	char first[8];
	uint64_t a, b;

	if (!comma || (size_t)(comma - s) >= sizeof(first))
		return false;
	memcpy(first, s, (size_t)(comma - s));
	first[comma - s] = '\0';
	if (!ps_parse_u64(first, 32, &a) || !ps_parse_u64(comma + 1, 128, &b))
		return false;
	*v4 = (unsigned int)a;
	*v6 = (unsigned int)b;
	return true;
}
