/* SPDX-License-Identifier: GPL-2.0 */
/* The XDP and tc objects of pathscope loaded for BPF_PROG_TEST_RUN as the loader loads
 * them, sharing their maps (bpf_map__reuse_fd: what one sees, the other finds):
 * skel_pair_open(), the test's own rodata, skel_pair_load(). With the headers tests need. */
#ifndef PATHSCOPE_TESTS_LIB_SKEL_PAIR_H
#define PATHSCOPE_TESTS_LIB_SKEL_PAIR_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "loader/features.h"
#include "pathscope/abi.h"
#include "pathscope_tc.skel.h"
#include "pathscope_xdp.skel.h"
#include "tests/lib/check.h"
#include "tests/lib/frame.h"

/* Open both objects for features, with tc's kernel-context flag as the
 * loader sets it: 0, or -1. */
static inline int skel_pair_open(struct pathscope_xdp **xdp, struct pathscope_tc **tc,
				 __u32 features)
{
	*xdp = pathscope_xdp__open();
	*tc = pathscope_tc__open();
	if (!*xdp || !*tc)
		return -1;
	(*xdp)->rodata->ps_features = features;
	(*tc)->rodata->ps_features = features;
	(*tc)->rodata->ps_kern_ctx = ps_kern_ctx_supported();
	return 0;
}

/* Load xdp, make tc use its instance of each map named in shared
 * (NULL-terminated), load tc: 0 or a negative error. */
static inline int skel_pair_load(struct pathscope_xdp *xdp, struct pathscope_tc *tc,
				 const char *const *shared)
{
	int err = pathscope_xdp__load(xdp);

	for (; !err && *shared; shared++)
		err = bpf_map__reuse_fd(bpf_object__find_map_by_name(tc->obj, *shared),
					bpf_object__find_map_fd_by_name(xdp->obj, *shared));
	return err ? err : pathscope_tc__load(tc);
}

/* libbpf's warnings only with PS_TEST_VERBOSE set: a test that cannot load
 * says so itself. */
static inline int skel_pair_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN && getenv("PS_TEST_VERBOSE"))
		return vfprintf(stderr, fmt, ap);
	return 0;
}

/* Not root, or the load failed (err): a skip outside CI, a failure in it
 * (tests/lib/check.h). Returns whether the test can go on. */
static inline bool skel_pair_ready(const char *name, int err)
{
	if (geteuid() == 0 && !err)
		return true;
	check_skip(name, geteuid() ? "needs root" : "cannot load the programs");
	return false;
}

#endif /* PATHSCOPE_TESTS_LIB_SKEL_PAIR_H */
