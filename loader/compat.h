/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Kernel UAPI constants newer than Debian 12's linux-libc-dev (6.1). */
#ifndef PATHSCOPE_COMPAT_H
#define PATHSCOPE_COMPAT_H

#include <linux/bpf.h>

#define PS_BPF_TCX_INGRESS	    46
#define PS_BPF_TCX_EGRESS	    47
#define PS_BPF_F_BEFORE		    (1U << 3) /* mprog placement: first */
#define PS_BPF_F_XDP_DEV_BOUND_ONLY (1U << 6)

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif

#endif /* PATHSCOPE_COMPAT_H */
