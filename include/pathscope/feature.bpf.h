/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The calls from the XDP and tc programs into each feature's work (BPF only), each a
 * global function that the verifier checks once, on its own, instead of once for
 * every state the header parser leaves (all inline, they would pass its limit). */
#ifndef PATHSCOPE_FEATURE_BPF_H
#define PATHSCOPE_FEATURE_BPF_H

#include "parse.h"

/* A call costs a few instructions. Before Linux 5.12 a global function takes
 * no pointer but its context ("Arg#1 type PTR in ... is not supported yet"),
 * so the packet's parse result travels by value, as two scalars, and is a
 * struct again inside. */
union ps_pkt_regs {
	struct ps_pkt pkt;
	__u64 w[2];
};

_Static_assert(sizeof(struct ps_pkt) <= sizeof(__u64[2]), "struct ps_pkt fits in two registers");

/* int name(CTX_TYPE *ctx, <the packet>, __u32 slot): body runs with p (the
 * parse result), data and data_end (the packet) and slot. */
#define PS_FEATURE(name, ctx_type, ctx, body)                                                 \
	__attribute__((noinline)) int name(ctx_type *ctx, __u64 pkt0, __u64 pkt1, __u32 slot) \
	{                                                                                     \
		union ps_pkt_regs regs = { .w = { pkt0, pkt1 } };                             \
		const struct ps_pkt *p = &regs.pkt;                                           \
		void *data = (void *)(long)ctx->data;                                         \
		void *data_end = (void *)(long)ctx->data_end;                                 \
                                                                                              \
		/* slot is used: clang must not leave it undefined */                         \
		asm volatile("" : : "r"(slot));                                               \
		body;                                                                         \
		return 0;                                                                     \
	}

/* Call feature function fn on ctx, for the packet parsed into *pkt. */
#define PS_FEATURE_CALL(fn, ctx_, pkt_, slot_)               \
	({                                                   \
		union ps_pkt_regs regs_ = { .w = { 0, 0 } }; \
                                                             \
		regs_.pkt = *(pkt_);                         \
		fn(ctx_, regs_.w[0], regs_.w[1], slot_);     \
	})

#endif /* PATHSCOPE_FEATURE_BPF_H */
