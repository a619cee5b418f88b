/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The pinned state of pathscope under /sys/fs/bpf/pathscope/, and the attach lock
 * that every attach and detach holds while it looks at and changes the pins. */
#ifndef PATHSCOPE_LOADER_PINS_H
#define PATHSCOPE_LOADER_PINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>
#include "pathscope/meta.h"

/* The pins of one attachment:
 *   <netns inode>/<ifindex>/meta        struct ps_meta (one-entry array)
 *                           xdp_stats   per-queue maps (struct ps_qstats)
 *                           tci_stats, tce_stats
 *                           xdp_prog    the XDP program (for detach checks)
 *                           tci_link, tce_link   TCX links
 *                           tci_prog, tce_prog   clsact programs */
#define PS_PIN_ROOT "/sys/fs/bpf/pathscope"

void ps_pin_dir(char *buf, size_t len, uint64_t netns_ino, int ifindex);
void ps_pin_path(char *buf, size_t len, const char *dir, const char *name);

/* Make sure /sys/fs/bpf is a bpf filesystem (mount one if nothing is there). */
int ps_bpffs_ensure(void);

/* Create the interface directory (and parents). -EEXIST when present. */
int ps_pin_dir_create(const char *dir);

/* Create, fill and pin the meta map in dir. */
int ps_meta_pin(const char *dir, const struct ps_meta *meta);
/* Read meta back; -EPROTO when another pathscope version wrote it, -EBADMSG
 * when it fails ps_meta_problem() (then *why, if given, says why). */
int ps_meta_read(const char *dir, struct ps_meta *meta);
int ps_meta_read_checked(const char *dir, struct ps_meta *meta, const char **why);
/* Every attach and detach holds the lock from its first look at the pins to
 * its last change, so a second one on the same interface waits for the first
 * and then finds it attached (or gone); meanwhile `status` shows an attach at
 * work by its meta (PS_META_ATTACHING).
 * Take the attach lock (waits up to 2 minutes; 0, or -1 after one line on
 * stderr). Released by ps_pins_unlock() or when the process exits. */
int ps_pins_lock(void);
void ps_pins_unlock(void);
/* Is the loader recorded in m (PS_META_ATTACHING) still at work: its process
 * is there and the lock is held? Always false for the lock's holder. */
bool ps_loader_alive(const struct ps_meta *m);

/* Update the pinned meta map of dir (attach records each step in it). */
int ps_meta_write(const char *dir, const struct ps_meta *meta);

/* Pin the object fd as dir/name; -errno on failure. */
int ps_pin_fd(const char *dir, const char *name, int fd);

/* Open a pinned object of dir; -errno when absent. */
int ps_pin_open(const char *dir, const char *name);

/* What an open pin is, from its fd's anon inode name (as bpftool tells). */
#define PS_PIN_PROG "anon_inode:bpf-prog"
#define PS_PIN_LINK "anon_inode:bpf-link"
#define PS_PIN_MAP  "anon_inode:bpf-map"
bool ps_pin_is(int fd, const char *kind);

/* The program of an open pinned program or link (a new fd); -1 for maps and
 * on failure (a link's program is opened by id: CAP_SYS_ADMIN). */
int ps_pin_prog_fd(int fd);

/* Remove every pin in dir, then dir and its empty parents. */
int ps_pin_dir_remove(const char *dir);

/* Call fn for every attachment directory; stops when fn returns non-zero. */
int ps_pin_foreach(int (*fn)(const char *dir, void *ctx), void *ctx);

#endif /* PATHSCOPE_LOADER_PINS_H */
