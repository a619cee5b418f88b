/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The kernel's sk_buff behind a tc program's __sk_buff (BPF only):
 * bpf_cast_to_kern_ctx() (Linux 6.2) makes it a typed pointer, a field one load. */
#ifndef PATHSCOPE_KSKB_BPF_H
#define PATHSCOPE_KSKB_BPF_H

#include <bpf/bpf_core_read.h>

extern void *bpf_cast_to_kern_ctx(void *obj) __ksym __weak;

/* Does the kernel have bpf_cast_to_kern_ctx()? (Set by the loader.) The kfunc
 * is declared weak, so that the tc object still loads on a kernel without it;
 * there the loader clears ps_kern_ctx, the verifier drops every call of it as
 * dead code, and what needs it takes the slower way below or is refused by
 * attach (feature sock). */
const volatile __u32 ps_kern_ctx = 1;

#define PS_NO_QUEUE_MAPPING 0xffff /* the kernel's NO_QUEUE_MAPPING */

/* Before 6.2: the socket's sock_common read whole from its start up to
 * the field (the verifier allows no arithmetic on the socket pointer), at
 * the field's offset in the running kernel (120 on 6.1 and 6.18). A function
 * of its own, so that its buffer does not add to the stack of the program's
 * other calls (the kernel allows 512 bytes for a chain of calls). */
__attribute__((noinline)) int ps_sk_tx_queue_read(struct __sk_buff *skb)
{
	__u32 off = bpf_core_field_offset(struct sock_common, skc_tx_queue_mapping);
	struct bpf_sock *sk = skb->sk;
	__u8 head[192];
	__u16 q;

	if (!sk || off > sizeof(head) - sizeof(q) ||
	    bpf_probe_read_kernel(head, off + sizeof(q), sk))
		return PS_NO_QUEUE_MAPPING;
	return *(__u16 *)(head + off);
}

/* The TX queue the socket of skb has cached (sk_tx_queue_mapping), or
 * PS_QUEUE_UNKNOWN. */
static __always_inline __u32 ps_sk_tx_queue(struct __sk_buff *skb)
{
	__u16 q;

	if (ps_kern_ctx) {
		/* Plain loads through the kernel's skb (CO-RE relocated,
		 * fault-safe BTF pointer reads), no helper call: make bench
		 * measured counters only at 4-7 ns above an empty program, 65-78
		 * ns with two BPF_CORE_READs. */
		struct sk_buff *kskb = bpf_cast_to_kern_ctx(skb);
		struct sock *sk = kskb->sk;

		if (!sk)
			return PS_QUEUE_UNKNOWN;
		q = sk->__sk_common.skc_tx_queue_mapping;
	} else {
		q = (__u16)ps_sk_tx_queue_read(skb);
	}
	return q == PS_NO_QUEUE_MAPPING ? PS_QUEUE_UNKNOWN : q;
}

#endif /* PATHSCOPE_KSKB_BPF_H */
