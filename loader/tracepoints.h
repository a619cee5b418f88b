/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Tracepoint programs that exist twice in one BPF object, as tp_btf (typed
 * arguments, preferred) and as classic tracepoints (the fallback): one of the two
 * is loaded, attached, and its links pinned by name. */
#ifndef PATHSCOPE_LOADER_TRACEPOINTS_H
#define PATHSCOPE_LOADER_TRACEPOINTS_H

#include <bpf/libbpf.h>
#include <stdbool.h>

#include "loader/attach_common.h"

struct ps_tp_prog {
	const char *pin_name; /* the link's pin under the attachment directory */
	struct bpf_program *btf;
	struct bpf_program *tp;
};

/* Which set a request means on this kernel: *classic is true for classic
 * tracepoints (tracefs is mounted then). -1 with a message when impossible. */
int ps_tp_choose_mode(enum ps_probe_request req, bool *classic);

/* The same for programs whose links attach pins: classic tracepoint links can
 * be pinned only as perf-event links (Linux 5.15); before, -1 with a message
 * that names tp_btf. */
int ps_tp_choose_pinned_mode(enum ps_probe_request req, bool *classic);

/* Before load: only the chosen set is loaded. */
void ps_tp_set_autoload(const struct ps_tp_prog *p, unsigned int n, bool classic);

/* Attach the chosen programs. With dir, pin each link as dir/pin_name and let
 * the pins hold them; without, hand the links back in links[n]. On failure
 * everything attached here is undone (pins stay for the caller's cleanup). */
int ps_tp_attach(const struct ps_tp_prog *p, unsigned int n, bool classic, const char *dir,
		 struct bpf_link **links);

/* Detach pinned links by name (missing ones are skipped). */
void ps_tp_detach_pinned(const char *dir, const char *const *names, unsigned int n);

#endif /* PATHSCOPE_LOADER_TRACEPOINTS_H */
