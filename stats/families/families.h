/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The measurement families, one module each. A family's metric is born in
 * its BPF header (include/pathscope/) or probe (probes/), stored in its part
 * of the ABI (include/pathscope/abi.h), and shown by its module here, which
 * owns all its outputs: table rows, --hist histograms, JSON and Prometheus.
 * The composers (stats/render_*.c) call the families in their order; the
 * formats are shared helpers (stats/format/).
 *
 * Conventions: q is a queue slot, q == nslots means all queues; *_on() says
 * whether a snapshot has the family's data; *_slot_active() whether slot q
 * has anything to show (the JSON lists queue "other" when one has).
 */
#ifndef PATHSCOPE_FAMILIES_H
#define PATHSCOPE_FAMILIES_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

#include "stats/read/flow_table.h"
#include "stats/format/prom.h"
#include "stats/read/report.h"

/* ---- counters and classes (counters.c): packets, bytes, L3/L4 classes,
 * parse errors, VLAN tags and ECN codepoints per hook and queue; born in
 * count.bpf.h, stored in struct ps_qstats. The hook table is theirs; the
 * sizes family adds its columns to each row. */
void ps_counters_table(FILE *out, const struct ps_report *r);
void ps_counters_other_note(FILE *out, const struct ps_report *r);
json_object *ps_counters_hook_json(const struct ps_report *r, int hook, unsigned int q);
bool ps_counters_slot_active(const struct ps_snapshot *s, unsigned int q);
void ps_counters_prom(struct ps_prom *p, const struct ps_snapshot *s, int n);

/* ---- sizes and GRO/GSO (sizes.c): frame and skb size histograms, segments
 * per skb and gso_size at tc (count.bpf.h and tc/; struct ps_qstats). */
void ps_sizes_table_header(FILE *out);
void ps_sizes_table_cells(FILE *out, const struct ps_meta *m, int hook, const struct ps_qstats *t);
void ps_sizes_hist(FILE *out, const struct ps_report *r);
void ps_sizes_json(json_object *total, const struct ps_qstats *t, __u32 features, int hook);
void ps_sizes_prom(struct ps_prom *p, const struct ps_snapshot *s, int n);

/* ---- ICMP echo (echo.c): RTT and response time per RX queue and peer;
 * born in echo.bpf.h, stored in struct ps_echo_qstats and ps_peer_stats. */
bool ps_echo_on(const struct ps_snapshot *s);
void ps_echo_table(FILE *out, const struct ps_report *r);
void ps_echo_hist(FILE *out, const struct ps_report *r);
json_object *ps_echo_json(const struct ps_report *r, unsigned int q);
json_object *ps_echo_peers_json(const struct ps_snapshot *s);
bool ps_echo_slot_active(const struct ps_snapshot *s, unsigned int q);
void ps_echo_prom(struct ps_prom *p, const struct ps_snapshot *s, int n);

/* ---- TCP latency (tcp.c): network RTT, handshake RTT and this host's
 * response time per RX queue and peer subnet; born in tcp.bpf.h, stored in
 * struct ps_tcp_qstats, ps_tcp_qhist and ps_tcp_peer_stats. */
bool ps_tcp_on(const struct ps_snapshot *s);
void ps_tcp_table(FILE *out, const struct ps_report *r);
void ps_tcp_hist(FILE *out, const struct ps_report *r);
json_object *ps_tcp_json(const struct ps_report *r, unsigned int q);
json_object *ps_tcp_peers_json(const struct ps_snapshot *s);
bool ps_tcp_slot_active(const struct ps_snapshot *s, unsigned int q);
void ps_tcp_prom(struct ps_prom *p, const struct ps_snapshot *s, int n);

/* ---- socket read (sock.c): tc ingress to the application's read per RX
 * queue and local port, sampled; born in sock.bpf.h (tc ingress) and
 * probes/pathscope_sock.bpf.c, stored in ps_sock_qstats, ps_sock_qhist and
 * ps_sock_port_stats. */
bool ps_sock_on(const struct ps_snapshot *s);
void ps_sock_table(FILE *out, const struct ps_report *r);
void ps_sock_hist(FILE *out, const struct ps_report *r);
json_object *ps_sock_json(const struct ps_report *r, unsigned int q);
json_object *ps_sock_ports_json(const struct ps_snapshot *s);
bool ps_sock_slot_active(const struct ps_snapshot *s, unsigned int q);
void ps_sock_prom(struct ps_prom *p, const struct ps_snapshot *s, int n);

/* ---- flows (flows.c): per RX queue the distinct flows (HyperLogLog) and
 * the top flows, sampled at XDP; born in flows.bpf.h, stored in
 * ps_flows_qstate and the flow table; read by stats/flows.c (whose API
 * `pathscope flows` uses too). ps_flows_on() is in stats/flows.h. */
void ps_flows_table(FILE *out, const struct ps_report *r);
json_object *ps_flows_json(const struct ps_report *r, unsigned int q);
/* A queue's RX hash types, {"l4", "l3", "none"}; NULL (null) when not measured. */
json_object *ps_flows_rx_hash_json(const struct ps_flows_q *q);
bool ps_flows_slot_active(const struct ps_snapshot *s, unsigned int q);
void ps_flows_prom(struct ps_prom *p, const struct ps_snapshot *s, int n);

/* ---- driver to stack (d2s.c): XDP -> tc ingress latency per RX queue,
 * sampled; born in d2s.bpf.h, stored in struct ps_d2s_qstats. */
bool ps_d2s_on(const struct ps_snapshot *s);
void ps_d2s_table(FILE *out, const struct ps_report *r);
void ps_d2s_hist(FILE *out, const struct ps_report *r);
json_object *ps_d2s_json(const struct ps_report *r, unsigned int q);
bool ps_d2s_slot_active(const struct ps_snapshot *s, unsigned int q);
void ps_d2s_prom(struct ps_prom *p, const struct ps_snapshot *s, int n);

/* ---- TX latency (txlat.c): qdisc sojourn and driver TX completion per TX
 * queue; born in probes/pathscope_txlat.bpf.c, stored in ps_txlat_qstats. */
bool ps_txlat_on(const struct ps_snapshot *s);
void ps_txlat_table(FILE *out, const struct ps_report *r);
void ps_txlat_hist(FILE *out, const struct ps_report *r);
json_object *ps_txlat_json(const struct ps_report *r, unsigned int q);
bool ps_txlat_slot_active(const struct ps_snapshot *s, unsigned int q);
void ps_txlat_prom(struct ps_prom *p, const struct ps_snapshot *s, int n);

/* ---- the kernel path (kernel.c): NAPI, GRO and stack entry, driver
 * transmit codes, drops by reason, XDP exceptions, softirq time; born in
 * probes/pathscope_kernel.bpf.c, stored in ps_kern_qstats and its maps. */
bool ps_kernel_on(const struct ps_snapshot *s);
void ps_kernel_table(FILE *out, const struct ps_report *r);
json_object *ps_kernel_queue_json(const struct ps_report *r, unsigned int q);
json_object *ps_kernel_json(const struct ps_snapshot *s);
bool ps_kernel_slot_active(const struct ps_snapshot *s, unsigned int q);
void ps_kernel_prom(struct ps_prom *p, const struct ps_snapshot *s, int n);

/* ---- NIC facts (nic.c): what the kernel knows of the NIC (nic/: netlink,
 * ethtool -S, qdiscs, softnet_stat) beside pathscope's queues, and the
 * per-CPU table. */
void ps_nic_table(FILE *out, const struct ps_report *r);
void ps_nic_cpu_table(FILE *out, const struct ps_report *r);
/* Adds "nic" and "qdisc" to the JSON object of queue q. */
void ps_nic_queue_json(json_object *o, const struct ps_snapshot *s, unsigned int q);
/* Adds "nic", "qdisc_root" and "softnet" to the interface's JSON object. */
void ps_nic_iface_json(json_object *o, const struct ps_snapshot *s);
/* The driver's per-queue packets and XDP packets (qstats, ethtool -S). */
void ps_nic_prom(struct ps_prom *p, const struct ps_snapshot *s, int n);

/* ---- RSS (rss.c): the indirection table per RX queue and the hashed
 * fields per flow type, beside feature flows; born in nic/rss.c, stored in
 * struct ps_rss (ps_snapshot.rss). */
void ps_rss_prom(struct ps_prom *p, const struct ps_snapshot *s, int n);

/* ---- the latency budget (stats/render_latency.c): each family's latency
 * histograms of queue slot q (q == nslots: all), PS_LAT_BUCKETS buckets. */
typedef void (*ps_latency_fn)(const struct ps_snapshot *s, unsigned int q, __u64 *out);
void ps_d2s_latency(const struct ps_snapshot *s, unsigned int q, __u64 *out);
void ps_echo_rtt(const struct ps_snapshot *s, unsigned int q, __u64 *out);
void ps_echo_response(const struct ps_snapshot *s, unsigned int q, __u64 *out);
void ps_txlat_sojourn(const struct ps_snapshot *s, unsigned int q, __u64 *out);
void ps_txlat_completion(const struct ps_snapshot *s, unsigned int q, __u64 *out);
bool ps_txlat_has_completion(const struct ps_snapshot *s);
void ps_tcp_rtt(const struct ps_snapshot *s, unsigned int q, __u64 *out);
void ps_tcp_handshake(const struct ps_snapshot *s, unsigned int q, __u64 *out);
void ps_tcp_response(const struct ps_snapshot *s, unsigned int q, __u64 *out);
void ps_tcp_ack_delay(const struct ps_snapshot *s, unsigned int q, __u64 *out);
void ps_sock_latency(const struct ps_snapshot *s, unsigned int q, __u64 *out);

#endif /* PATHSCOPE_FAMILIES_H */
