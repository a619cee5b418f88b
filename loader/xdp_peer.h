/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Someone else's XDP program, as far as pathscope can tell: chain mode uses it to
 * refuse programs whose control plane it would mislead; status uses it to name
 * the program pathscope is chained in front of. */
#ifndef PATHSCOPE_LOADER_XDP_PEER_H
#define PATHSCOPE_LOADER_XDP_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* Its id and name, whether libxdp manages it, and the tool that loaded it.
 * libxdp-based tools decide what runs on an interface from the one program
 * the kernel reports attached there (libxdp: xdp_multiprog__get_from_ifindex,
 * and xdp_program__is_attached compares program ids with it). xdp-tools'
 * xdp-filter also pins its program per interface, as
 * <bpffs>/xdp-filter/programs/IFNAME/PROGNAME (lib/util/util.c,
 * attach_xdp_program), and its status, load, port and unload commands unlink
 * that pin when the program attached is not the pinned one
 * (get_pinned_program, called through iterate_pinned_programs). Chained in
 * front, pathscope's program is the one attached: one `xdp-filter status`
 * removes the filter's pin, and `xdp-filter unload` no longer finds its
 * program, also after pathscope has put it back. */
struct ps_xdp_peer {
	__u32 id;
	char name[16];	 /* the kernel's name (BPF_OBJ_NAME_LEN) */
	bool libxdp;	 /* managed through libxdp: see above */
	bool dispatcher; /* libxdp's multi-program dispatcher itself */
	/* Who loaded it, where that can be told: a tool that pins its programs
	 * per interface as xdp-tools do ("xdp-filter"), "libxdp" for a
	 * program written for libxdp (its BTF has libxdp's ".xdp_run_config"
	 * or "xdp_metadata" section), else "". */
	char tool[32];
	char pin[256]; /* a pin of the program outside pathscope's, or "" */
};

/* Describe the program prog_fd, attached to (or chained from) ifname. Best
 * effort: what cannot be read (a program's BTF is opened by id, which needs
 * CAP_SYS_ADMIN) is left out. Looks through at most a few thousand entries
 * of /sys/fs/bpf for pins of it. */
void ps_xdp_peer_describe(int prog_fd, const char *ifname, struct ps_xdp_peer *p);

/* Open the program by id and describe it; -1 when it cannot be opened. */
int ps_xdp_peer_describe_id(__u32 id, const char *ifname, struct ps_xdp_peer *p);

/* "XDP program 26774 'xdpfilt_alw_all' (xdp-filter, pinned at PATH)" */
void ps_xdp_peer_format(const struct ps_xdp_peer *p, char *buf, size_t len);

#endif /* PATHSCOPE_LOADER_XDP_PEER_H */
