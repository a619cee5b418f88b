// SPDX-License-Identifier: GPL-2.0
/* Someone else's XDP program, written without libxdp in mind: drops UDP to
 * port 9, passes the rest (portdrop.h). Nothing in it tells who loaded it. */
#include "portdrop.h"

SEC("xdp")
int standin_pdrop(struct xdp_md *ctx)
{
	return portdrop(ctx);
}
