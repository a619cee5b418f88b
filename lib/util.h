/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Small helpers shared by the subcommands. */
#ifndef PATHSCOPE_LIB_UTIL_H
#define PATHSCOPE_LIB_UTIL_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

/* Print "pathscope: MESSAGE" on stderr, one line. Returns -1 for chaining. */
int ps_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The one wording of an interface name this namespace does not have; -1. */
int ps_error_unknown_iface(const char *name);

/* Fail with a message naming what is missing unless we may load BPF and
 * change links (CAP_BPF or CAP_SYS_ADMIN, and CAP_NET_ADMIN). */
int ps_require_privileges(void);

/* The same, for commands that load programs: also CAP_PERFMON (or
 * CAP_SYS_ADMIN). Without it the verifier refuses the programs' packet and
 * kernel reads (EACCES), an error far from its cause. */
int ps_require_load_privileges(void);

/* Fail unless the kernel exposes BTF (/sys/kernel/btf/vmlinux). */
int ps_require_btf(void);

/* Make sure tracefs is mounted at /sys/kernel/tracing (classic tracepoint
 * programs are attached by the event ids found there). */
int ps_tracefs_ensure(void);

uint64_t ps_now_ns(int clock);

/* The integer at the start of a file (e.g. a sysctl), or -1. */
int ps_read_int_file(const char *path);

/* Set by SIGINT and SIGTERM once ps_stop_on_signals() is called, for
 * commands that run until told to stop. */
extern volatile sig_atomic_t ps_stop;
void ps_stop_on_signals(void);
/* Sleep s seconds, or less when ps_stop is set meanwhile. */
void ps_sleep_s(double s);
uint64_t ps_netns_ino(void);

/* An open fd of the named network namespace (/var/run/netns/NAME) whose
 * inode is ino, or -1. */
int ps_netns_open(uint64_t ino);

/* Enter the network namespace of the open fd target (left open). Returns an
 * fd of the thread's namespace before, for ps_netns_leave(), or -errno
 * (-EBADF, or -EINVAL when target is no network namespace). */
int ps_netns_enter_fd(int target);

/* Enter the named network namespace of inode ino. Returns an fd of the
 * original namespace to pass to ps_netns_leave(); -1 when ino is already
 * the current namespace (nothing to do); -2 when it cannot be entered. */
int ps_netns_enter(uint64_t ino);
void ps_netns_leave(int self);

/* Is a preferred kernel capability forced off for testing the fallbacks?
 * PATHSCOPE_FORCE_FALLBACK is a comma list of: tcx (use clsact), tp_btf (use
 * classic tracepoints), dispatcher (libxdp's single-program mode). */
bool ps_fallback_forced(const char *what);

/* Test hook: with PATHSCOPE_KILL_AT=NAME the process SIGKILLs itself when
 * it reaches the point NAME of attach (dir-created, meta-pinned,
 * xdp-attached, xdp-done, clsact-created, tc-ingress-added, tc-egress-added,
 * tc-done, sock-done, txlat-done, kernel-done, attached), so tests/integration/
 * test_faults.sh interrupts attach at every step, not by timing. With
 * PATHSCOPE_STOP_AT=NAME it stops there (SIGSTOP) until sent SIGCONT. */
void ps_kill_point(const char *name);

/* Parse a number of digits (decimal, 0x hex or 0 octal) up to max; false on
 * junk, a sign, white space or overflow. */
bool ps_parse_u64(const char *s, uint64_t max, uint64_t *out);
/* Parse "V4,V6" prefix lengths, 0..32 and 0..128; false otherwise. */
bool ps_parse_prefixes(const char *s, unsigned int *v4, unsigned int *v6);
/* Parse seconds, 0 < s <= 86400 (a day), e.g. "0.5" or "10"; false otherwise. */
bool ps_parse_seconds(const char *s, double *out);

#endif /* PATHSCOPE_LIB_UTIL_H */
