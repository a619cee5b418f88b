/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* An attachment's state in a few words, for status, serve's /healthz and detach --gone. */
#ifndef PATHSCOPE_LOADER_STATUS_H
#define PATHSCOPE_LOADER_STATUS_H

#include <stdbool.h>
#include <linux/types.h>

#include "pathscope/meta.h"

/* The states that make an attachment a leftover for `detach --gone` (with
 * "attach interrupted"): the words they start with. */
#define PS_STATE_IFACE_GONE "interface gone"
#define PS_STATE_NETNS_GONE "namespace gone"

/* The state of an attachment in a few words ("ok", "ok (interface down)",
 * "interface gone", "xdp replaced by someone else", ...), checked in its own
 * network namespace; *in_reach is false when that cannot be entered (its
 * pinned TCX links may still tell: "namespace gone", "interface gone"). */
const char *ps_attachment_health(const char *dir, const struct ps_meta *m, bool *in_reach);

/* In the attachment's network namespace: the first of its tc links or
 * filters and tracepoint links that is no longer attached and its own, as
 * a state ("tc ingress detached by someone else", "clsact filters gone
, ...); NULL when all are. */
const char *ps_hooks_missing(const char *dir, const struct ps_meta *m);

#endif /* PATHSCOPE_LOADER_STATUS_H */
