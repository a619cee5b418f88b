/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Where a UDP socket-latency sample can be waiting (BPF only; feature sock), so that
 * the probes of every datagram of the host leave after one array load. Shared by the tc
 * object (sock.bpf.h) and the probes (probes/pathscope_sock.bpf.c), bpf_map__reuse_fd. */
#ifndef PATHSCOPE_SOCK_ARMED_BPF_H
#define PATHSCOPE_SOCK_ARMED_BPF_H

#define PS_SOCK_ARMED_SLOTS 1024

/* sock:sk_data_ready and sock:sock_recv_length fire for every datagram of
 * the host, and only 1 in PS_SOCK_EVERY is a sample. A sock_pending lookup
 * for each (a 40-byte key hashed, then the LRU's bucket) cost 116 and
 * 148 ns per run (bpf_stats, UDP flood, gross). sock_armed counts the UDP
 * samples waiting behind each slot of a pointer hash:
 *   an skb's slot from tc ingress until sk_data_ready finds it queued,
 *   then its socket's slot until the read that takes it (or its expiry).
 * A slot at zero means no sample can match: the probe leaves after one
 * array load, before the netns test. Two pointers sharing a slot only cost
 * a lookup; a sample the LRU evicts leaves its count behind, which costs a
 * lookup per datagram of that slot, never a missed sample. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PS_SOCK_ARMED_SLOTS);
	__type(key, __u32);
	__type(value, __u32);
} sock_armed SEC(".maps");

/* The verifier allows no arithmetic on a kernel pointer, only on a number:
 * a pointer stored in a map and loaded back is one. This CPU's own slot. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} sock_addr SEC(".maps");

/* The slot of the skb or socket at ptr. skbs are 256-byte slab objects,
 * sockets a few KiB: drop the bits they share, fold in higher ones. */
static __always_inline __u32 *ps_sock_armed_slot(const void *ptr)
{
	__u32 zero = 0, k;
	__u64 *a = bpf_map_lookup_elem(&sock_addr, &zero);

	if (!a)
		return 0;
	*(volatile __u64 *)a = (__u64)ptr;
	k = *(volatile __u64 *)a >> 8;
	k = (k ^ (k >> 10)) & (PS_SOCK_ARMED_SLOTS - 1);
	return bpf_map_lookup_elem(&sock_armed, &k);
}

/* Can a sample be waiting on the skb or socket at ptr? */
static __always_inline int ps_sock_armed(const void *ptr)
{
	__u32 *c = ps_sock_armed_slot(ptr);

	return c && *c;
}

/* One sample more (delta 1) or less (-1) waiting on ptr. */
static __always_inline void ps_sock_arm(const void *ptr, int delta)
{
	__u32 *c = ps_sock_armed_slot(ptr);

	if (c)
		__sync_fetch_and_add(c, delta);
}

#endif /* PATHSCOPE_SOCK_ARMED_BPF_H */
