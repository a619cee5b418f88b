/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Reading kernel objects in the tracepoint probes (BPF only): a plain load in tp_btf
 * programs, bpf_probe_read_kernel() in classic ones; the shared helpers take `btf`,
 * a constant at each call site, and read with PS_KREAD, so clang keeps one way each. */
#ifndef PATHSCOPE_KREAD_BPF_H
#define PATHSCOPE_KREAD_BPF_H

#include <bpf/bpf_core_read.h>

/* p->field: a plain load in tp_btf programs (btf 1), CO-RE probe read else.
 * tp_btf programs get typed pointers: a field is one load, which the JIT
 * guards against faults. Classic tracepoint programs get bare addresses: each
 * field costs a bpf_probe_read_kernel() call. With every read a call, the
 * tp_btf programs cost 170 to 350 ns per run (bpf_stats, live, this VM), and
 * most of that in the first test, "is this our interface?", which runs for
 * every packet of the host. */
#define PS_KREAD(btf, p, field) ((btf) ? (p)->field : BPF_CORE_READ(p, field))

/* The interface the probes measure (set by the loader). */
const volatile __u32 ps_ifindex = 0;
const volatile __u32 ps_netns_ino = 0;

/* Is net the measured interface's network namespace? */
static __always_inline int ps_our_net(const struct net *net, int btf)
{
	return PS_KREAD(btf, net, ns.inum) == ps_netns_ino;
}

/* Is dev the measured interface? The ifindex first: other interfaces leave
 * after one load. */
static __always_inline int ps_our_dev(const struct net_device *dev, int btf)
{
	if (!dev || PS_KREAD(btf, dev, ifindex) != (int)ps_ifindex)
		return 0;
	return ps_our_net(PS_KREAD(btf, dev, nd_net.net), btf);
}

#endif /* PATHSCOPE_KREAD_BPF_H */
