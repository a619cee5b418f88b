// SPDX-License-Identifier: GPL-2.0
/* Someone else's XDP program written for libxdp: drops UDP to port 9, passes the rest
 * (portdrop.h), and declares libxdp's run config as xdp-tools' own programs do. */
#include "portdrop.h"
#include <xdp/xdp_helpers.h>

/* Its priority in a dispatcher, and that XDP_PASS goes on to the next
 * program; the run config stays in the program's BTF in the kernel, where
 * pathscope sees it. */
struct {
	__uint(priority, 20);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(standin_lxdrop);

SEC("xdp")
int standin_lxdrop(struct xdp_md *ctx)
{
	return portdrop(ctx);
}
