/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The meta map is read back from bpffs, where anyone with CAP_BPF could have
 * rewritten it: every reader takes it only after this check. */
#ifndef PATHSCOPE_LOADER_META_CHECK_H
#define PATHSCOPE_LOADER_META_CHECK_H

#include <linux/types.h>

#include "pathscope/meta.h"

/* NULL when m is a meta this pathscope could have written, otherwise what is
 * wrong with it in a few words ("ifname not terminated", ...). */
const char *ps_meta_problem(const struct ps_meta *m);

#endif /* PATHSCOPE_LOADER_META_CHECK_H */
