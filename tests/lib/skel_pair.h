/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The XDP and tc objects of pathscope loaded for BPF_PROG_TEST_RUN as the
 * loader loads them: the tc object reuses the XDP object's instance of each
 * map the two share (bpf_map__reuse_fd), so a packet seen by one is found by
 * the other: load the XDP skeleton, skel_share_maps(), load the tc one.
 */
#ifndef PATHSCOPE_TEST_SKEL_PAIR_H
#define PATHSCOPE_TEST_SKEL_PAIR_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <bpf/libbpf.h>

/* Make tc, not loaded yet, use the instance of loaded xdp of each map named
 * in shared (NULL-terminated): 0 or a negative error. */
static inline int skel_share_maps(struct bpf_object *xdp, struct bpf_object *tc,
				  const char *const *shared)
{
	int err = 0;

	for (; !err && *shared; shared++)
		err = bpf_map__reuse_fd(bpf_object__find_map_by_name(tc, *shared),
					bpf_object__find_map_fd_by_name(xdp, *shared));
	return err;
}

/* libbpf's warnings only with PS_TEST_VERBOSE set: a test that cannot load
 * says so itself. */
static inline int skel_pair_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN && getenv("PS_TEST_VERBOSE"))
		return vfprintf(stderr, fmt, ap);
	return 0;
}

#endif /* PATHSCOPE_TEST_SKEL_PAIR_H */
