#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Write packaging/grafana/pathscope.json, the Grafana dashboard of pathscope serve.

The panels are listed below, one call each; run this after changing them
(python3 packaging/grafana/gen-dashboard.py) and commit both files.
tests/integration/test_dashboard.sh checks that the JSON is this script's
output, and runs every panel's queries against a real Prometheus.

Variables: datasource, instance, iface, queue (each "All" is the regex .*,
which also matches series without the label). Per-queue panels filter on
queue=~"$queue". What serve exports per queue depends on its detail level
(serve --detail, --queue-detail): packets, bytes, CE, drops and the sampled
latencies' matched and expired samples always; histograms, classes and ECN
codepoints only at --detail queue (or for the features of --queue-detail),
else once per interface and hook without a queue label. So every latency
family has interface panels (no queue filter: they work at every level) and a
per-queue p50/p99 panel that needs per-queue detail and says so.

Every histogram query works with both expositions of serve: the classic one
(X_bucket, X_sum, X_count; the text, or a Prometheus without native
histograms) and native histograms (serve --native-histograms scraped by a
Prometheus with --enable-feature=native-histograms, which keeps only the one
series X). A p50/p99 line is CLASSIC or NATIVE, where NATIVE is the same
histogram_quantile without le and without _bucket: both give the same labels
(those of the by clause), and a series the classic arm has wins over the same
series from the native one, so no line shows twice. A rate of samples reads
histogram_count() in its native arm. A heatmap has two targets: the classic
buckets by le (format heatmap) and the native histogram itself, which Grafana
draws as heatmap cells.
"""
import json
import os
import sys

DS = {"type": "prometheus", "uid": "${datasource}"}
SEL = 'instance=~"$instance",iface=~"$iface"'
SELQ = SEL + ',queue=~"$queue"'
RI = "[$__rate_interval]"

DETAIL_NOTE = (
    " Per-queue histograms need serve's per-queue detail (--detail queue, or the feature in "
    "--queue-detail); at the default detail level they are per interface: keep queue = All "
    "(one line per interface; a single queue shows no data)."
)
NO_DATA_HIST = "no data: feature off, no samples, or per-queue histograms not exported (detail level)"
NO_DATA = "no data: feature off, or no samples"
KNOTE = (" Per queue with serve's per-queue detail for kernel (--detail queue or --queue-detail "
         "kernel); at the default detail level one line per interface (keep queue = All).")

panels = []
_next_id = [1]
_y = [0]
_row_x = [0]
_row_h = [0]


def _id():
    i = _next_id[0]
    _next_id[0] += 1
    return i


def _place(w, h):
    if _row_x[0] + w > 24:
        _y[0] += _row_h[0]
        _row_x[0] = 0
        _row_h[0] = 0
    pos = {"h": h, "w": w, "x": _row_x[0], "y": _y[0]}
    _row_x[0] += w
    _row_h[0] = max(_row_h[0], h)
    return pos


def row(title):
    _y[0] += _row_h[0]
    _row_x[0] = 0
    _row_h[0] = 0
    panels.append({
        "id": _id(), "type": "row", "title": title, "collapsed": False,
        "gridPos": {"h": 1, "w": 24, "x": 0, "y": _y[0]}, "panels": [],
    })
    _y[0] += 1


def _targets(queries, **extra):
    out = []
    for i, (expr, legend) in enumerate(queries):
        t = {"refId": chr(ord("A") + i), "datasource": DS, "expr": expr,
             "legendFormat": legend, "range": True}
        t.update(extra)
        out.append(t)
    return out


def timeseries(title, desc, queries, unit, w=12, h=8, no_value=None, stack=False):
    defaults = {"unit": unit, "custom": {"lineWidth": 1, "fillOpacity": 10 if stack else 0,
                                         "showPoints": "never",
                                         "stacking": {"mode": "normal" if stack else "none"}}}
    if no_value:
        defaults["noValue"] = no_value
    panels.append({
        "id": _id(), "type": "timeseries", "title": title, "description": desc,
        "datasource": DS, "gridPos": _place(w, h),
        "fieldConfig": {"defaults": defaults, "overrides": []},
        "options": {"legend": {"displayMode": "table", "placement": "bottom",
                               "calcs": ["mean", "max"], "showLegend": True},
                    "tooltip": {"mode": "multi", "sort": "desc"}},
        "targets": _targets(queries),
    })


def native_or(classic, native):
    """CLASSIC or NATIVE: the classic histogram's query, else the native one's."""
    return f"{classic} or {native}"


def quantile_expr(p, metric, by, sel):
    return native_or(f"histogram_quantile({p}, sum by ({by}, le) (rate({metric}_bucket{{{sel}}}{RI})))",
                     f"histogram_quantile({p}, sum by ({by}) (rate({metric}{{{sel}}}{RI})))")


def count_rate_expr(metric, by, sel):
    """Samples per second of a histogram."""
    return native_or(f"sum by ({by}) (rate({metric}_count{{{sel}}}{RI}))",
                     f"histogram_count(sum by ({by}) (rate({metric}{{{sel}}}{RI})))")


def heatmap(title, desc, metric, unit="s", w=12, h=8, sel=SELQ):
    classic = _targets([(f"sum by (le) (increase({metric}_bucket{{{sel}}}{RI}))", "{{le}}")],
                       format="heatmap")
    native = _targets([(f"sum(increase({metric}{{{sel}}}{RI}))", "")])
    native[0]["refId"] = "B"
    panels.append({
        "id": _id(), "type": "heatmap", "title": title,
        "description": desc + " Target A: the classic power-of-two buckets; B: the native "
                              "histogram (serve --native-histograms), with finer buckets.",
        "datasource": DS, "gridPos": _place(w, h),
        "fieldConfig": {"defaults": {"noValue": NO_DATA_HIST if sel == SELQ else NO_DATA},
                        "overrides": []},
        "options": {"calculate": False, "cellGap": 1,
                    "color": {"mode": "scheme", "scheme": "Oranges", "scale": "exponential",
                              "exponent": 0.5, "fill": "dark-orange", "steps": 64},
                    "yAxis": {"unit": unit, "axisPlacement": "left"},
                    "rowsFrame": {"layout": "le"}, "cellValues": {},
                    "tooltip": {"show": True, "yHistogram": True},
                    "legend": {"show": True}, "exemplars": {"color": "rgba(255,0,255,0.7)"},
                    "filterValues": {"le": 1e-9}},
        "targets": classic + native,
    })


def quantiles(title, desc, metric, by="instance, iface", sel=SELQ, unit="s", w=12, h=8,
              legend="{{instance}} {{iface}}", no_value=NO_DATA_HIST):
    q = [(quantile_expr(p, metric, by, sel), f"{legend} {name}")
         for p, name in (("0.5", "p50"), ("0.99", "p99"))]
    timeseries(title, desc, q, unit, w=w, h=h, no_value=no_value)


def stat(title, desc, expr, legend, w=6, h=5, mappings=None, unit="none"):
    panels.append({
        "id": _id(), "type": "stat", "title": title, "description": desc,
        "datasource": DS, "gridPos": _place(w, h),
        "fieldConfig": {"defaults": {"unit": unit, "mappings": mappings or [],
                                     "thresholds": {"mode": "absolute", "steps": [
                                         {"color": "red", "value": None},
                                         {"color": "green", "value": 1}]}},
                        "overrides": []},
        "options": {"reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False},
                    "colorMode": "background", "graphMode": "none", "textMode": "auto",
                    "orientation": "auto", "justifyMode": "auto"},
        "targets": _targets([(expr, legend)]),
    })


def table(title, desc, expr, w=18, h=5):
    panels.append({
        "id": _id(), "type": "table", "title": title, "description": desc,
        "datasource": DS, "gridPos": _place(w, h),
        "fieldConfig": {"defaults": {}, "overrides": []},
        "options": {"showHeader": True},
        "transformations": [{"id": "organize", "options": {
            "excludeByName": {"Time": True, "Value": True, "__name__": True, "job": True}}}],
        "targets": _targets([(expr, "")], format="table", instant=True),
    })


def by_queue(metric, extra="", by="instance, iface, queue, hook"):
    return f"sum by ({by}) (rate({metric}{{{SELQ}{extra}}}{RI}))"


# ---- the panels ----------------------------------------------------------------

row("Attachments")
stat("Attachment live", "pathscope_up: 1 while the programs pathscope attached are in place "
     "(what 'pathscope status' shows as ok), else 0.",
     f"pathscope_up{{{SEL}}}", "{{instance}} {{iface}}",
     mappings=[{"type": "value", "options": {"0": {"text": "down"}, "1": {"text": "up"}}}])
table("Attachments", "pathscope_attachment_info: modes, features and queues of each attachment.",
      f"pathscope_attachment_info{{{SEL}}}")

row("Traffic per queue")
timeseries("Packets per queue and hook",
           "Frames at xdp (driver ingress), skbs at tc_ingress (after GRO) and tc_egress "
           "(before the qdisc and GSO), per queue. Queue 'other': tc egress packets without "
           "a cached TX queue.",
           [(by_queue("pathscope_packets_total"), "{{instance}} {{iface}} q{{queue}} {{hook}}")],
           "pps")
timeseries("Bits per queue and hook",
           "Bytes of those packets (Ethernet header included; a GRO/GSO skb with its full length), "
           "as bits per second.",
           [("8 * " + by_queue("pathscope_bytes_total"), "{{instance}} {{iface}} q{{queue}} {{hook}}")],
           "bps")

row("ECN")
ce = (f'sum by (instance, iface, hook) (rate(pathscope_ce_packets_total{{{SEL}}}{RI}))'
      f' / sum by (instance, iface, hook) (rate(pathscope_ecn_packets_total{{{SEL}}}{RI}))')
timeseries("CE share of IP packets",
           "CE-marked share of the IPv4 and IPv6 packets per hook, all queues of the interface "
           "(feature ecn). At xdp and tc_ingress: congestion marked on the way in; at tc_egress: "
           "this host's own marks.",
           [(ce, "{{instance}} {{iface}} {{hook}}")], "percentunit", w=8)
timeseries("CE-marked packets per queue",
           "IP packets marked CE per second, per queue and hook (feature ecn; per queue at every "
           "detail level).",
           [(by_queue("pathscope_ce_packets_total"), "{{instance}} {{iface}} q{{queue}} {{hook}}")],
           "pps", w=8)
timeseries("ECN codepoints",
           "IP packets per second by ECN codepoint and hook, all queues of the interface (feature "
           "ecn; per queue only with serve's per-queue detail).",
           [(f"sum by (instance, iface, hook, ipver, codepoint) (rate(pathscope_ecn_packets_total{{{SEL}}}{RI}))",
             "{{instance}} {{iface}} {{hook}} {{ipver}} {{codepoint}}")], "pps", w=8)

row("Drops and errors")
timeseries("Kernel drops by reason",
           "skb:kfree_skb drops on the interface by the kernel's drop reason (feature kernel); "
           "direction rx: the skb arrived on this interface, tx: any other skb dropped while on it.",
           [(f"sum by (instance, iface, direction, reason) (rate(pathscope_kernel_drops_total{{{SEL}}}{RI}))",
             "{{instance}} {{iface}} {{direction}} {{reason}}")], "pps",
           no_value="no drops, or feature kernel off")
timeseries("qdisc and driver drops per TX queue",
           "skbs freed by kfree_skb after entering the qdisc (feature txlat; scaled by --sample).",
           [(f"sum by (instance, iface, queue) (rate(pathscope_txlat_dropped_total{{{SELQ}}}{RI}))",
             "{{instance}} {{iface}} q{{queue}}")], "pps", w=8,
           no_value="no drops, or feature txlat off")
timeseries("XDP exceptions by action",
           "xdp:xdp_exception events on the interface (feature kernel): someone's XDP program "
           "aborted or its action failed.",
           [(f"sum by (instance, iface, action) (rate(pathscope_kernel_xdp_exceptions_total{{{SEL}}}{RI}))",
             "{{instance}} {{iface}} {{action}}")], "pps", w=8)
timeseries("Malformed packets by reason",
           "Packets the parser found malformed, by reason and hook, all queues of the interface "
           "(feature class).",
           [(f"sum by (instance, iface, hook, reason) (rate(pathscope_parse_errors_total{{{SEL}}}{RI}))",
             "{{instance}} {{iface}} {{hook}} {{reason}}")], "pps", w=8)

# (title, metric, description, extra grouping label of the family or "")
LAT = [
    ("ICMP echo RTT", "pathscope_icmp_rtt_seconds",
     "Round-trip time of this host's pings, echo request at tc egress to the reply at xdp, per RX "
     "queue of the reply (feature icmp).", ""),
    ("ICMP echo response", "pathscope_icmp_response_seconds",
     "This host's response time, echo request at xdp to its reply at tc egress, per RX queue of "
     "the request (feature icmp).", ""),
    ("TCP RTT", "pathscope_tcp_rtt_seconds",
     "Network RTT from the timestamp option: a data segment out at tc egress to the echo of its "
     "TSval in at tc ingress (xdp with attach --tcp-rx xdp), per RX queue of the echo (feature tcp).", ""),
    ("TCP handshake RTT", "pathscope_tcp_handshake_seconds",
     "SYN out to SYN-ACK in, SYN-ACK out to the handshake's ACK in, per RX queue of the reply "
     "(feature tcp).", ""),
    ("TCP response", "pathscope_tcp_response_seconds",
     "This host's response time: data in at tc ingress (or xdp) to its first echo out at tc egress carrying data, "
     "per RX queue (feature tcp).", ""),
    ("TCP ACK delay", "pathscope_tcp_ack_delay_seconds",
     "This host's ACK delay: data in at tc ingress (or xdp) to its first echo out in a pure ACK, per RX queue "
     "(feature tcp).", ""),
    ("NET_RX softirq wait", "pathscope_firsthop_softirq_wait_seconds",
     "NET_RX softirq raised (its queue's IRQ, a timer, a sender) to run, once per timed softirq run "
     "(1 in 8 per CPU; attach --softirq-sample) that polled the RX queue (feature firsthop).", ""),
    ("NAPI thread wait", "pathscope_firsthop_thread_wait_seconds",
     "A threaded NAPI poll (/sys/class/net/DEV/threaded): the RX queue's first IRQ since its last "
     "poll to the NAPI thread's poll handing xdp its first frame, every such poll; what a task of "
     "higher priority on the thread's CPU delays (feature firsthop; none on veth, which has no IRQ).", ""),
    ("Place in the softirq run", "pathscope_firsthop_place_seconds",
     "The NET_RX softirq run's start to the frame at xdp: the polls and frames ahead of it, in the "
     "timed runs, about 1 frame in 16 (feature firsthop).", ""),
    ("Driver to stack", "pathscope_d2s_latency_seconds",
     "Sampled TCP/UDP packets (1 in 64 per RX queue and CPU) from xdp (before GRO) to tc ingress (after GRO), "
     "per RX queue (feature d2s).", ""),
    ("Socket read", "pathscope_sock_read_latency_seconds",
     "Sampled TCP/UDP packets (1 in 64 per CPU) from tc ingress to the application's read, per RX "
     "queue and protocol (feature sock).", "proto"),
    ("qdisc sojourn", "pathscope_qdisc_sojourn_seconds",
     "Time in the qdisc, net_dev_queue to net_dev_start_xmit, per TX queue (feature txlat).", ""),
    ("TX completion", "pathscope_tx_completion_seconds",
     "Driver TX completion, net_dev_start_xmit to the skb freed, per TX queue (feature txlat; "
     "none on veth, which hands skbs to its peer).", ""),
]
row("Latency per interface (every detail level)")
for title, metric, desc, extra in LAT:
    by = "instance, iface" + (f", {extra}" if extra else "")
    legend = "{{instance}} {{iface}}" + (f" {{{{{extra}}}}}" if extra else "")
    heatmap(f"{title}: distribution", desc + " All queues of the interface.", metric, w=8, sel=SEL)
    quantiles(f"{title}: p50 and p99", desc + " Percentiles from the power-of-two buckets (or the "
              "native histogram's, with serve --native-histograms), all queues of the interface.", metric, by=by, sel=SEL, w=8, legend=legend,
              no_value=NO_DATA)
    quantiles(f"{title}: p50 and p99 per queue", desc + " Percentiles per queue." + DETAIL_NOTE,
              metric, by=by + ", queue", legend=legend + " q{{queue}}", w=8)
row("Latency per peer")
heatmap("ICMP echo RTT per peer: distribution",
        "RTT of every peer's matched echoes, per interface (feature icmp).",
        "pathscope_icmp_peer_rtt_seconds", sel=SEL, w=8)
quantiles("ICMP echo RTT per peer: p50 and p99",
          "RTT per peer (the first 64 peers with a match, then peer other), per interface (feature icmp).",
          "pathscope_icmp_peer_rtt_seconds", by="instance, iface, peer", sel=SEL, w=8,
          legend="{{instance}} {{iface}} {{peer}}", no_value=NO_DATA)
quantiles("TCP RTT per peer subnet: p50 and p99",
          "Network RTT per peer subnet (attach --peer-prefix; the first 128 subnets, then subnet "
          "other), per interface (feature tcp).",
          "pathscope_tcp_peer_rtt_seconds", by="instance, iface, subnet", sel=SEL, w=8,
          legend="{{instance}} {{iface}} {{subnet}}", no_value=NO_DATA)
heatmap("TCP RTT per peer subnet: distribution",
        "Network RTT of every peer subnet, per interface (feature tcp).",
        "pathscope_tcp_peer_rtt_seconds", sel=SEL, w=8)
heatmap("Socket read per local port: distribution",
        "tc ingress to the application's read, every local port, per interface (feature sock).",
        "pathscope_sock_port_read_latency_seconds", sel=SEL, w=8)
quantiles("Socket read per local port: p50 and p99",
          "tc ingress to the application's read per local port (the first 32 ports, then port "
          "other), per interface (feature sock).",
          "pathscope_sock_port_read_latency_seconds", by="instance, iface, proto, port", sel=SEL,
          w=8, legend="{{instance}} {{iface}} {{proto}}/{{port}}", no_value=NO_DATA)
samples = [
    (f"sum by (instance, iface) (rate(pathscope_icmp_echo_replies_matched_total{{{SELQ}}}{RI}))",
     "{{instance}} {{iface}} icmp rtt"),
    (f"sum by (instance, iface) (rate(pathscope_icmp_echo_replies_sent_total{{{SELQ}}}{RI}))",
     "{{instance}} {{iface}} icmp response"),
    (count_rate_expr("pathscope_tcp_rtt_seconds", "instance, iface", SELQ),
     "{{instance}} {{iface}} tcp rtt"),
    (f"sum by (instance, iface) (rate(pathscope_d2s_matched_total{{{SELQ}}}{RI}))",
     "{{instance}} {{iface}} d2s matched"),
    (f"sum by (instance, iface) (rate(pathscope_txlat_queued_total{{{SELQ}}}{RI}))",
     "{{instance}} {{iface}} txlat queued"),
]
timeseries("Latency samples", "How many samples each latency family records per second: matched "
           "echoes, TCP RTTs, matched driver-to-stack samples, skbs entering the qdisc. ICMP and TCP "
           "are per interface unless serve's detail has them per queue.", samples, "ops", w=12)
d2s_q = [
    (f"sum by (instance, iface, queue) (rate(pathscope_d2s_matched_total{{{SELQ}}}{RI}))",
     "{{instance}} {{iface}} q{{queue}} matched"),
    (f"sum by (instance, iface, queue) (rate(pathscope_d2s_expired_total{{{SELQ}}}{RI}))",
     "{{instance}} {{iface}} q{{queue}} expired"),
]
timeseries("Driver-to-stack samples per queue",
           "Matched and expired driver-to-stack samples per RX queue (exported per queue at every "
           "detail level): a queue whose samples expire loses them to RPS or drops (feature d2s).",
           d2s_q, "ops", w=12, no_value=NO_DATA)

row("GRO and GSO")
gro = (f'sum by (instance, iface) (rate(pathscope_segments_total{{{SEL},hook="tc_ingress"}}{RI}))'
       f' / sum by (instance, iface) (rate(pathscope_packets_total{{{SEL},hook="tc_ingress"}}{RI}))')
gso = gro.replace('hook="tc_ingress"', 'hook="tc_egress"')
timeseries("GRO segments per skb",
           "Segments per skb at tc ingress (what GRO merged) and at tc egress (what GSO/TSO will "
           "split), all queues of the interface (feature gro); 1 means no merging.",
           [(gro, "{{instance}} {{iface}} GRO (tc_ingress)"),
            (gso, "{{instance}} {{iface}} GSO (tc_egress)")], "none", w=8)
groq = (f'sum by (instance, iface, queue) (rate(pathscope_segments_total{{{SELQ},hook="tc_ingress"}}{RI}))'
        f' / sum by (instance, iface, queue) (rate(pathscope_packets_total{{{SELQ},hook="tc_ingress"}}{RI}))')
timeseries("GRO segments per skb per queue",
           "Segments per skb at tc ingress per RX queue (feature gro). Needs serve's per-queue "
           "detail for gro (--detail queue or --queue-detail gro); at the default detail level "
           "the segments are per interface and this panel has no data.",
           [(groq, "{{instance}} {{iface}} q{{queue}}")], "none", w=8,
           no_value="no data: per-queue GRO counters not exported (detail level)")
gso_size = (f"sum by (instance, iface, hook) (rate(pathscope_gso_size_bytes_total{{{SEL}}}{RI}))"
            f" / sum by (instance, iface, hook) (rate(pathscope_multi_segment_skbs_total{{{SEL}}}{RI}))")
timeseries("Average gso_size", "gso_size of multi-segment skbs, per hook (feature gro).",
           [(gso_size, "{{instance}} {{iface}} {{hook}}")], "bytes", w=8)
quantiles("Frame size p50 and p99 per hook",
          "Frame (xdp) or skb (tc) length from the size histogram, all queues of the interface "
          "(feature sizes).",
          "pathscope_frame_size_bytes", by="instance, iface, hook", sel=SEL, unit="bytes", w=8,
          legend="{{instance}} {{iface}} {{hook}}", no_value=NO_DATA)
quantiles("Frame size p50 and p99 per queue",
          "Frame (xdp) or skb (tc) length per queue and hook (feature sizes)." + DETAIL_NOTE,
          "pathscope_frame_size_bytes", by="instance, iface, hook, queue", unit="bytes", w=8,
          legend="{{instance}} {{iface}} q{{queue}} {{hook}}")

row("Kernel path (feature kernel)")
timeseries("NAPI polls and budget exhausted per RX queue",
           "NAPI polls of the instances serving each RX queue, and the polls that used their whole "
           "budget (the queue had more waiting)." + KNOTE,
           [(f"sum by (instance, iface, queue) (rate(pathscope_napi_polls_total{{{SELQ}}}{RI}))",
             "{{instance}} {{iface}} q{{queue}} polls"),
            (f"sum by (instance, iface, queue) (rate(pathscope_napi_budget_exhausted_total{{{SELQ}}}{RI}))",
             "{{instance}} {{iface}} q{{queue}} budget exhausted")], "ops", w=8)
timeseries("Driver transmit results per TX queue",
           "net:net_dev_xmit return codes: ok, busy (ring full, requeued), dropped." + KNOTE,
           [(f"sum by (instance, iface, queue, result) (rate(pathscope_kernel_xmit_total{{{SELQ}}}{RI}))",
             "{{instance}} {{iface}} q{{queue}} {{result}}")], "ops", w=8)
timeseries("NET_RX and NET_TX softirq time per CPU",
           "Share of each CPU spent in the network softirqs (all devices of the CPU, so the same "
           "for every interface of a host).",
           [(f"max by (instance, cpu, vector) (rate(pathscope_softirq_seconds_total{{{SEL}}}{RI}))",
             "{{instance}} cpu{{cpu}} {{vector}}")], "percentunit", w=8)

row("pathscope's own cost")
stat("bpf_stats enabled", "kernel.bpf_stats_enabled: the run time panels need it "
     "(sysctl kernel.bpf_stats_enabled=1; it adds a clock read per program run).",
     'max by (instance) (pathscope_bpf_stats_enabled{instance=~"$instance"})', "{{instance}}",
     mappings=[{"type": "value", "options": {"0": {"text": "off"}, "1": {"text": "on"}}}])
timeseries("BPF run time per program",
           "CPU time of each pathscope program (pin name) as a share of one CPU, from bpf_stats.",
           [(f"sum by (instance, iface, program) (rate(pathscope_bpf_run_seconds_total{{{SEL}}}{RI}))",
             "{{instance}} {{iface}} {{program}}")], "percentunit", w=9,
           no_value="no data: kernel.bpf_stats_enabled is 0")
timeseries("BPF time per run",
           "Average run time of each pathscope program (about 33 ns of it is bpf_stats' own clock "
           "reads).",
           [(f"sum by (instance, iface, program) (rate(pathscope_bpf_run_seconds_total{{{SEL}}}{RI}))"
             f" / sum by (instance, iface, program) (rate(pathscope_bpf_runs_total{{{SEL}}}{RI}))",
             "{{instance}} {{iface}} {{program}}")], "s", w=9,
           no_value="no data: kernel.bpf_stats_enabled is 0")


def variable(name, label, query):
    return {
        "name": name, "label": label, "type": "query", "datasource": DS,
        "definition": query, "query": {"query": query, "refId": f"{name}-query"},
        "refresh": 2, "sort": 3 if name == "queue" else 1, "multi": True, "includeAll": True,
        "allValue": ".*", "current": {"selected": True, "text": ["All"], "value": ["$__all"]},
        "hide": 0, "regex": "", "options": [],
    }


dashboard = {
    "__inputs": [],
    "uid": "pathscope",
    "title": "pathscope",
    "description": "pathscope serve: per-queue packet path, ECN, drops, latency, GRO and "
                   "pathscope's own cost (man pathscope-serve).",
    "tags": ["pathscope", "network", "xdp", "bpf"],
    "editable": True,
    "graphTooltip": 1,
    "schemaVersion": 39,
    "version": 1,
    "time": {"from": "now-1h", "to": "now"},
    "refresh": "30s",
    "timepicker": {},
    "annotations": {"list": []},
    "links": [],
    "templating": {"list": [
        {"name": "datasource", "label": "Data source", "type": "datasource", "query": "prometheus",
         "current": {}, "hide": 0, "refresh": 1, "regex": "", "options": []},
        variable("instance", "Instance", "label_values(pathscope_build_info, instance)"),
        variable("iface", "Interface", 'label_values(pathscope_up{instance=~"$instance"}, iface)'),
        variable("queue", "Queue",
                 'label_values(pathscope_packets_total{instance=~"$instance",iface=~"$iface"}, queue)'),
    ]},
    "panels": panels,
}

if __name__ == "__main__":
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pathscope.json")
    text = json.dumps(dashboard, indent=2, ensure_ascii=False) + "\n"
    if len(sys.argv) > 1 and sys.argv[1] == "--stdout":
        sys.stdout.write(text)
    else:
        with open(out, "w", encoding="utf-8") as f:
            f.write(text)
