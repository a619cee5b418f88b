/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The kernel's types that pathscope's BPF programs use (BPF only), in place of a
 * vmlinux.h of the build host's kernel: the objects do not depend on the kernel they
 * are built on, and this file lists every field pathscope reads inside the kernel. */
#ifndef PATHSCOPE_KERNEL_TYPES_BPF_H
#define PATHSCOPE_KERNEL_TYPES_BPF_H

#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>

/* The UAPI (program contexts, map and program types) comes from Debian's
 * linux-libc-dev. The kernel's own structs are declared with only the fields
 * pathscope reads, under preserve_access_index: each access is a CO-RE
 * relocation that libbpf resolves against the running kernel's BTF at load
 * time, wherever the field sits there (nested anonymous unions included).
 * A field a kernel lacks fails its relocation: the code that reads one
 * which is not in every supported kernel guards it with
 * bpf_core_field_exists() or a loader-set switch. */
#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

struct net_device;
struct sock;
struct bpf_prog;

typedef struct {
	struct net *net;
} possible_net_t;

struct ns_common {
	unsigned int inum;
};

struct net {
	struct ns_common ns;
};

struct net_device {
	int ifindex;
	possible_net_t nd_net;
};

struct napi_struct {
	unsigned int napi_id;
	struct net_device *dev;
};

struct sk_buff {
	struct net_device *dev;
	struct sock *sk;
	unsigned int len;
	__u16 queue_mapping;
	int skb_iif;
	unsigned int napi_id;
	unsigned int end; /* sk_buff_data_t: an offset from head on 64-bit kernels */
	unsigned char *head;
};

struct skb_shared_info {
	unsigned short gso_segs;
};

struct sk_buff_head {
	struct sk_buff *next;
	struct sk_buff *prev;
	__u32 qlen;
};

struct sock_common {
	__be32 skc_daddr;
	__be32 skc_rcv_saddr;
	__be16 skc_dport;
	__u16 skc_num;
	unsigned short skc_family;
	possible_net_t skc_net;
	struct in6_addr skc_v6_daddr;
	struct in6_addr skc_v6_rcv_saddr;
	unsigned short skc_tx_queue_mapping;
};

struct sock {
	struct sock_common __sk_common;
	struct sk_buff_head sk_receive_queue;
	__u16 sk_protocol;
};

struct tcp_sock {
	__u32 copied_seq;
};

struct udp_sock {
	struct sk_buff_head reader_queue;
};

/* Only the enumerator names matter: bpf_core_enum_value() relocates each to
 * the running kernel's value. */
enum skb_drop_reason {
	SKB_CONSUMED = 1,
};

/* Classic tracepoints' records (include/trace/events/), the fields read. */
struct trace_event_raw_napi_poll {
	struct napi_struct *napi;
	int work;
	int budget;
};

struct trace_event_raw_net_dev_rx_verbose_template {
	unsigned int napi_id;
	__u16 queue_mapping;
	const void *skbaddr;
};

struct trace_event_raw_net_dev_template {
	void *skbaddr;
};

struct trace_event_raw_net_dev_start_xmit {
	const void *skbaddr;
};

struct trace_event_raw_net_dev_xmit {
	void *skbaddr;
	unsigned int len;
	int rc;
};

struct trace_event_raw_kfree_skb {
	void *skbaddr;
	enum skb_drop_reason reason; /* Linux 5.17 */
};

struct trace_event_raw_consume_skb {
	void *skbaddr;
};

struct trace_event_raw_xdp_exception {
	__u32 act;
	int ifindex;
};

struct trace_event_raw_softirq {
	unsigned int vec;
};

struct trace_event_raw_irq_handler_entry {
	int irq;
};

struct trace_event_raw_skb_copy_datagram_iovec {
	const void *skbaddr;
	int len;
};

struct trace_event_raw_sk_data_ready { /* Linux 6.3 */
	const void *skaddr;
	__u16 protocol;
};

struct trace_event_raw_sock_msg_length { /* Linux 6.3 */
	void *sk;
	__u16 protocol;
	int ret;
	int flags;
};

#pragma clang attribute pop

/* The RX hash's type that bpf_xdp_metadata_rx_hash() reports (Linux 6.3,
 * include/net/xdp.h): which headers the NIC hashed. The L4 bit is set for
 * every L4 type; a type with an L3 bit and no L4 bit is a hash of the
 * addresses only. */
enum xdp_rss_hash_type {
	XDP_RSS_L3_IPV4 = 1U << 0,
	XDP_RSS_L3_IPV6 = 1U << 1,
	XDP_RSS_L3_DYNHDR = 1U << 2,
	XDP_RSS_L4 = 1U << 3,
	XDP_RSS_L4_TCP = 1U << 4,
	XDP_RSS_L4_UDP = 1U << 5,
	XDP_RSS_L4_SCTP = 1U << 6,
	XDP_RSS_L4_IPSEC = 1U << 7,
	XDP_RSS_L4_ICMP = 1U << 8,
	XDP_RSS_TYPE_NONE = 0,
};

#endif /* PATHSCOPE_KERNEL_TYPES_BPF_H */
