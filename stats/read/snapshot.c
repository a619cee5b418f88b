// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Read an attachment's pinned per-queue maps, summed over CPUs, into a snapshot (snapshot.h). */
#include "stats/read/snapshot.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stats/read/flow_table.h"
#include "stats/read/kernel_path.h"
#include "stats/read/percpu.h"
#include "nic/read.h"
#include "nic/placement.h"
#include "nic/qdisc.h"
#include "nic/rss.h"
#include "nic/softnet.h"
#include "loader/iface.h"
#include "loader/pins.h"
#include "lib/util.h"

static const char *const hook_pins[PS_HOOK_COUNT] = {
	[PS_HOOK_XDP] = "xdp_stats",
	[PS_HOOK_TC_INGRESS] = "tci_stats",
	[PS_HOOK_TC_EGRESS] = "tce_stats",
};

void ps_qstats_add(struct ps_qstats *dst, const struct ps_qstats *src)
{
	ps_u64s_add(dst, src, sizeof(*dst));
}

void ps_qstats_sub(struct ps_qstats *out, const struct ps_qstats *a, const struct ps_qstats *b)
{
	ps_u64s_sub(out, a, b, sizeof(*out));
}

/* Read a pinned per-queue per-CPU map of nslots values of size bytes into a
 * new array (*out), summed over ncpus CPUs (1 for a map that is not per-CPU);
 * *out stays NULL when the map is not pinned, or has fewer than nslots
 * entries (the loader gives the maps of a feature that is off one entry). */
static int read_per_queue_cpus(const char *dir, const char *name, size_t size, unsigned int nslots,
			       int ncpus, void **out, __u64 **cpu_first);

static int read_per_queue(const char *dir, const char *name, size_t size, unsigned int nslots,
			  int ncpus, void **out)
{
	return read_per_queue_cpus(dir, name, size, nslots, ncpus, out, NULL);
}

/* The same, and with cpu_first the first __u64 of each CPU's value too
 * (nslots x ncpus, slot-major): what the sum would lose. */
static int read_per_queue_cpus(const char *dir, const char *name, size_t size, unsigned int nslots,
			       int ncpus, void **out, __u64 **cpu_first)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);
	void *percpu, *vals;
	int fd, err = 0;
	__u32 q;

	*out = NULL;
	fd = ps_pin_open(dir, name);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 && info.max_entries < nslots) {
		close(fd);
		return 0;
	}
	percpu = calloc(ncpus, size); /* sizes are multiples of 8 */
	vals = calloc(nslots, size);
	if (cpu_first)
		*cpu_first = calloc((size_t)nslots * ncpus, sizeof(__u64));
	if (!percpu || !vals || (cpu_first && !*cpu_first))
		err = -ENOMEM;
	for (q = 0; q < nslots && !err; q++) {
		err = ps_percpu_sum(fd, &q, percpu, size, ncpus, (char *)vals + q * size);
		for (int c = 0; cpu_first && !err && c < ncpus; c++)
			(*cpu_first)[(size_t)q * ncpus + c] = *(__u64 *)((char *)percpu + c * size);
	}
	free(percpu);
	close(fd);
	if (err) {
		free(vals);
		if (cpu_first) {
			free(*cpu_first);
			*cpu_first = NULL;
		}
	} else {
		*out = vals;
	}
	return err;
}

/* Every entry of a pinned hash (at most max) into a new array of entries of
 * entry_size bytes, each its key at offset 0 and its value at value_off. */
static int read_entries(const char *dir, const char *name, size_t key_size, size_t value_off,
			unsigned int max, size_t entry_size, void **out, unsigned int *n)
{
	char key[64], next[64];
	void *prev = NULL;
	char *e;
	int fd;

	*out = NULL;
	*n = 0;
	fd = ps_pin_open(dir, name);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	*out = calloc(max, entry_size);
	if (!*out) {
		close(fd);
		return -ENOMEM;
	}
	while (*n < max && bpf_map_get_next_key(fd, prev, next) == 0) {
		memcpy(key, next, key_size);
		e = (char *)*out + *n * entry_size;
		if (bpf_map_lookup_elem(fd, key, e + value_off) == 0) {
			memcpy(e, key, key_size);
			(*n)++;
		}
		prev = key;
	}
	close(fd);
	return 0;
}

/* How many entries the hash map name holds (keys of key_size bytes). */
static int count_entries(const char *dir, const char *name, size_t key_size, __u64 *n)
{
	char key[64], next[64];
	void *prev = NULL;
	int fd = ps_pin_open(dir, name);

	*n = 0;
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	while (*n < (1U << 24) && bpf_map_get_next_key(fd, prev, next) == 0) {
		memcpy(key, next, key_size);
		prev = key;
		(*n)++;
	}
	close(fd);
	return 0;
}

/* The sock samples still pending, by queue: in flight or past their age. */
static int read_sock_pending(const char *dir, struct ps_snapshot *s)
{
	struct ps_sock_key key, next;
	struct ps_sock_pending v;
	void *prev = NULL;
	unsigned int n = 0, i;
	__u32 q;
	int fd;

	fd = ps_pin_open(dir, "sock_pending");
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	s->sock_pend = calloc(s->nslots, sizeof(*s->sock_pend));
	if (!s->sock_pend) {
		close(fd);
		return -ENOMEM;
	}
	while (n++ < PS_SOCK_PENDING_MAX && bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &v) || key.proto >= PS_SOCK_PROTOS)
			continue;
		for (i = 0; i < PS_SOCK_INFLIGHT; i++) {
			const struct ps_sock_sample *e = &v.s[i];

			if (!e->ts_ns)
				continue;
			q = e->queue < s->nslots ? e->queue : s->nslots - 1;
			if (s->mono_ns > e->ts_ns && s->mono_ns - e->ts_ns > PS_SOCK_MAX_AGE_NS)
				s->sock_pend[q].stale[key.proto]++;
			else
				s->sock_pend[q].inflight[key.proto]++;
		}
	}
	close(fd);
	return 0;
}

static int read_kern(const char *dir, struct ps_snapshot *s)
{
	struct ps_kern_fds fds;
	int err;

	if (ps_kern_fds_open(dir, &fds))
		return 0; /* not attached */
	s->kern = calloc(1, sizeof(*s->kern));
	err = s->kern ? ps_kern_read(&fds, s->nslots, s->kern) : -ENOMEM;
	ps_kern_fds_close(&fds);
	if (err) {
		free(s->kern);
		s->kern = NULL;
	}
	return err;
}

/* The NIC's clock, only when some frame carried its timestamp (firsthop's
 * wire -> XDP is shown only when that clock follows TAI). */
static void read_phc(struct ps_snapshot *s)
{
	for (unsigned int q = 0; q < s->nslots; q++)
		if (s->fh[q].hw_stamped) {
			ps_nic_phc_read(s->nic->ifname, &s->phc);
			return;
		}
}

/* NIC facts and softnet counters: optional, so failures only leave them out.
 * Where the driver says which NAPI instance serves which RX queue, that
 * replaces the mapping the probes learned. */
static void read_nic(struct ps_snapshot *s)
{
	unsigned int i, j;

	if (s->meta.netns_ino == ps_netns_ino()) {
		s->nic = calloc(1, sizeof(*s->nic));
		if (s->nic && ps_nic_read((int)s->meta.ifindex, s->nic)) {
			free(s->nic);
			s->nic = NULL;
		}
		/* RSS only beside the flows it explains (a netlink request and
		 * a few ioctls more per read). */
		if (s->nic && (s->meta.features & PS_F_FLOWS)) {
			s->rss = malloc(sizeof(*s->rss));
			if (s->rss && ps_rss_read(s->nic->ifname, s->rss)) {
				free(s->rss);
				s->rss = NULL;
			}
		}
		s->qdiscs = calloc(1, sizeof(*s->qdiscs));
		if (s->qdiscs && ps_qdisc_read((int)s->meta.ifindex, s->qdiscs)) {
			free(s->qdiscs);
			s->qdiscs = NULL;
		}
	}
	s->nsoftnet = ps_softnet_read(&s->softnet);
	if (s->nsoftnet < 0) {
		free(s->softnet);
		s->softnet = NULL;
		s->nsoftnet = 0;
	}
	for (i = 0; s->nic && s->kern && i < s->kern->nnapi; i++)
		for (j = 0; j < s->nic->queues.n; j++)
			if (s->nic->queues.q[j].type == PS_NIC_Q_RX &&
			    s->nic->queues.q[j].napi_id == s->kern->napi[i].id)
				s->kern->napi[i].queue = s->nic->queues.q[j].id;
}

void ps_snapshot_read_placement(struct ps_snapshot *s)
{
	/* s->nic: the interface is in this network namespace */
	if (!s->nic || !s->xdp_cpu || s->place)
		return;
	s->place = malloc(sizeof(*s->place));
	if (s->place && ps_nic_read_placement("", s->nic->ifname, s->place)) {
		free(s->place);
		s->place = NULL;
	}
	if (s->place)
		ps_nic_read_placement_nl((int)s->meta.ifindex, PS_NIC_PLACE_NAPI, s->place);
}

int ps_snapshot_read(const char *dir, struct ps_snapshot *s)
{
	int ncpus = libbpf_num_possible_cpus(), h, err = 0;

	memset(s, 0, sizeof(*s));
	snprintf(s->dir, sizeof(s->dir), "%s", dir);
	if (ncpus <= 0)
		return -EINVAL;
	err = ps_meta_read(dir, &s->meta);
	if (err)
		return err;
	s->nslots = s->meta.nqueues + 1;
	s->mono_ns = ps_now_ns(CLOCK_MONOTONIC);
	s->real_ns = ps_now_ns(CLOCK_REALTIME);
	/* The XDP hook keeps each CPU's packets too: where each RX queue runs. */
	_Static_assert(offsetof(struct ps_qstats, packets) == 0, "cpu_first reads packets");
	for (h = 0; h < PS_HOOK_COUNT && !err; h++)
		err = read_per_queue_cpus(dir, hook_pins[h], sizeof(struct ps_qstats), s->nslots,
					  ncpus, (void **)&s->hook[h],
					  h == PS_HOOK_XDP ? &s->xdp_cpu : NULL);
	s->ncpus = s->xdp_cpu ? ncpus : 0;
	if (!err)
		err = read_per_queue(dir, "icmp_stats", sizeof(struct ps_icmp_qstats), s->nslots,
				     ncpus, (void **)&s->echo);
	if (!err)
		err = read_per_queue(dir, "txlat_stats", sizeof(struct ps_txlat_qstats), s->nslots,
				     ncpus, (void **)&s->txlat);
	if (!err)
		err = read_per_queue(dir, "d2s_stats", sizeof(struct ps_d2s_qstats), s->nslots,
				     ncpus, (void **)&s->d2s);
	if (!err)
		err = read_per_queue(dir, "fh_stats", sizeof(struct ps_fh_qstats), s->nslots, ncpus,
				     (void **)&s->fh);
	if (!err)
		err = read_entries(dir, "icmp_peers", sizeof(struct ps_peer_key),
				   offsetof(struct ps_peer_entry, stats), PS_ICMP_PEERS_MAX + 1,
				   sizeof(struct ps_peer_entry), (void **)&s->peers, &s->npeers);
	if (!err)
		err = read_per_queue(dir, "tcp_stats", sizeof(struct ps_tcp_qstats), s->nslots,
				     ncpus, (void **)&s->tcp);
	if (!err) /* one copy for all CPUs */
		err = read_per_queue(dir, "tcp_hist", sizeof(struct ps_tcp_qhist), s->nslots, 1,
				     (void **)&s->tcp_hist);
	if (!err)
		err = read_entries(dir, "tcp_peers", sizeof(struct ps_tcp_peer_key),
				   offsetof(struct ps_tcp_peer_entry, stats), PS_TCP_PEERS_MAX + 1,
				   sizeof(struct ps_tcp_peer_entry), (void **)&s->tcp_peers,
				   &s->ntcp_peers);
	if (!err && s->tcp)
		err = count_entries(dir, "tcp_halfopen", sizeof(struct ps_tcp_flow_key),
				    &s->tcp_halfopen);
	if (!err)
		err = read_per_queue(dir, "sock_stats", sizeof(struct ps_sock_qstats), s->nslots,
				     ncpus, (void **)&s->sock);
	if (!err)
		err = read_per_queue(dir, "sock_hist", sizeof(struct ps_sock_qhist), s->nslots, 1,
				     (void **)&s->sock_hist);
	if (!err)
		err = read_sock_pending(dir, s);
	if (!err)
		err = read_entries(dir, "sock_ports", sizeof(struct ps_sock_port_key),
				   offsetof(struct ps_sock_port_entry, stats),
				   PS_SOCK_PORTS_MAX + 1, sizeof(struct ps_sock_port_entry),
				   (void **)&s->sock_ports, &s->nsock_ports);
	if (!err && (s->meta.features & PS_F_FLOWS))
		err = ps_flows_snapshot_read(dir, s, ncpus);
	if (!err)
		err = read_kern(dir, s);
	if (!err)
		read_nic(s);
	if (!err && s->nic && s->fh)
		read_phc(s);
	if (err)
		ps_snapshot_free(s);
	return err;
}

void ps_snapshot_free(struct ps_snapshot *s)
{
	int h;

	free(s->xdp_cpu);
	s->xdp_cpu = NULL;
	for (h = 0; h < PS_HOOK_COUNT; h++) {
		free(s->hook[h]);
		s->hook[h] = NULL;
	}
	free(s->echo);
	s->echo = NULL;
	free(s->txlat);
	s->txlat = NULL;
	free(s->d2s);
	s->d2s = NULL;
	free(s->fh);
	s->fh = NULL;
	free(s->peers);
	s->peers = NULL;
	s->npeers = 0;
	free(s->tcp);
	s->tcp = NULL;
	free(s->tcp_hist);
	s->tcp_hist = NULL;
	free(s->tcp_peers);
	s->tcp_peers = NULL;
	s->ntcp_peers = 0;
	free(s->sock);
	s->sock = NULL;
	free(s->sock_hist);
	s->sock_hist = NULL;
	free(s->sock_pend);
	s->sock_pend = NULL;
	free(s->sock_ports);
	s->sock_ports = NULL;
	s->nsock_ports = 0;
	free(s->flows_q);
	s->flows_q = NULL;
	free(s->rx_hash);
	s->rx_hash = NULL;
	free(s->flows);
	s->flows = NULL;
	s->nflows = 0;
	if (s->kern)
		ps_kern_free(s->kern);
	free(s->kern);
	s->kern = NULL;
	if (s->nic)
		ps_nic_free(s->nic);
	free(s->nic);
	s->nic = NULL;
	free(s->rss);
	s->rss = NULL;
	free(s->place);
	s->place = NULL;
	if (s->qdiscs)
		ps_qdisc_free(s->qdiscs);
	free(s->qdiscs);
	s->qdiscs = NULL;
	free(s->softnet);
	s->softnet = NULL;
	s->nsoftnet = 0;
}

int ps_snapshot_dir(const char *ifname, char *dir, size_t len)
{
	struct ps_iface ifc;
	int err = ps_iface_get(ifname, 0, &ifc);

	if (err)
		return err;
	ps_pin_dir(dir, len, ps_netns_ino(), ifc.ifindex);
	return access(dir, F_OK) ? -ENOENT : 0;
}

void ps_per_queue_total(const void *vals, size_t size, unsigned int nslots, unsigned int q,
			void *out)
{
	unsigned int i;

	memset(out, 0, size);
	if (q < nslots) {
		memcpy(out, (const char *)vals + q * size, size);
		return;
	}
	for (i = 0; i < nslots; i++)
		ps_u64s_add(out, (const char *)vals + i * size, size);
}

void ps_snapshot_total(const struct ps_snapshot *s, int hook, struct ps_qstats *out)
{
	unsigned int q;

	memset(out, 0, sizeof(*out));
	if (!s->hook[hook])
		return;
	for (q = 0; q < s->nslots; q++)
		ps_qstats_add(out, &s->hook[hook][q]);
}
