#!/usr/bin/env python3
"""bench/report.py: aggregate the raw output of bench/run.sh's phases into
bench/results/<date>.json and <date>.md (see bench/README.md).

usage: report.py --meta META.json --micro MICRO.json --live LIVE.jsonl
                 --memory MEMORY.json --scrape SCRAPE.json --json OUT.json --md OUT.md

Every phase is optional (a missing file gives an empty section). Nothing here
asserts anything: targets are printed beside the figures as met / missed.
"""
import argparse
import json
import math
import os
import random
import statistics

CONFIGS = ["nothing", "empty_xdp", "noxdp", "counters", "default", "default_tcp", "default_tcp_xdp", "default_sock", "all",
           "tcpdump", "bpftrace", "bpftrace_tcp"]
CONFIG_LABEL = {
    "nothing": "nothing attached",
    "empty_xdp": "empty XDP program (bench/empty.bpf.c)",
    "noxdp": "pathscope default `--no-xdp` (tc only)",
    "counters": "pathscope counters only (`--features none`)",
    "default": "pathscope default",
    "default_tcp": "pathscope default + tcp (`--features default,tcp`)",
    "default_tcp_xdp": "pathscope default + tcp matched at XDP (`--features default,tcp --tcp-rx xdp`)",
    "default_sock": "pathscope default + sock (`--features default,sock`)",
    "all": "pathscope `--features all`",
    "tcpdump": "tcpdump -w /dev/null",
    "bpftrace": "bpftrace netsize + nettxlat",
    "bpftrace_tcp": "bpftrace tcp:tcp_probe srtt per flow (bpftrace/tcp_srtt.bt)",
}
PS_CONFIGS = ["counters", "default", "default_tcp", "default_tcp_xdp", "default_sock", "all", "noxdp"]
PEERS = ["tcpdump", "bpftrace", "bpftrace_tcp"]

# Maps with one slot per queue (+1 for "other"): PS_PER_QUEUE_MAP in
# include/pathscope/count.bpf.h and the probes.
PER_QUEUE_MAPS = {"xdp_stats", "tci_stats", "tce_stats", "d2s_stats", "echo_stats",
                  "tcp_stats", "tcp_hist", "sock_stats", "sock_hist", "txlat_stats", "kern_stats"}

# The kernel's map memory accounting (array_map_mem_usage, htab_map_mem_usage
# in kernel/bpf/), with its struct sizes on this kernel (x86_64, 6.18), which
# the report checks against every map's bytes_memlock.
SIZEOF_BPF_ARRAY = 312
SIZEOF_BPF_HTAB = 832
SIZEOF_BUCKET = 16
SIZEOF_HTAB_ELEM = 48
HASHTAB_LOCKS = 8
PAGE = 4096
BPF_F_MMAPABLE = 1 << 10


def r8(v):
    return (v + 7) // 8 * 8


def pow2(n):
    return 1 << (n - 1).bit_length()


def page_align(v):
    return (v + PAGE - 1) // PAGE * PAGE


def map_model(m, cpus):
    """bytes_memlock the kernel accounts for map m with `cpus` possible CPUs."""
    t, e, k, v = m["type"], m["max_entries"], m["bytes_key"], m["bytes_value"]
    if t in ("array", "percpu_array", "prog_array"):
        if t == "percpu_array":
            return SIZEOF_BPF_ARRAY + e * 8 + e * r8(v) * cpus
        if t == "prog_array":
            return SIZEOF_BPF_ARRAY + e * 8
        if m.get("flags", 0) & BPF_F_MMAPABLE:
            return page_align(SIZEOF_BPF_ARRAY) + page_align(e * r8(v))
        return SIZEOF_BPF_ARRAY + e * r8(v)
    if t in ("hash", "percpu_hash", "lru_hash", "lru_percpu_hash"):
        percpu = "percpu" in t
        lru = t.startswith("lru")
        usage = SIZEOF_BPF_HTAB + SIZEOF_BUCKET * pow2(e) + 4 * cpus * HASHTAB_LOCKS
        elem = SIZEOF_HTAB_ELEM + r8(k) + (8 if percpu else r8(v))
        n = e + (cpus if not percpu and not lru else 0)
        usage += elem * n
        if percpu:
            usage += r8(v) * cpus * n
        elif not lru:
            usage += 8 * cpus
        return usage
    return None


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def spread(xs):
    xs = [x for x in xs if x is not None]
    return (min(xs), max(xs)) if xs else (None, None)


def ratio(a, b):
    return a / b if a is not None and b not in (None, 0) else None


def fmt(v, nd=1, unit=""):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    return f"{v:,.{nd}f}{unit}"


def fmt_x(v, nd=2):
    return "n/a" if v is None else f"{v:.{nd}f}x"


def fmt_pct(v, nd=1):
    return "n/a" if v is None else f"{v * 100:.{nd}f}%"


def stat_obj(xs):
    lo, hi = spread(xs)
    return {"median": med(xs), "min": lo, "max": hi, "n": len([x for x in xs if x is not None]),
            "runs": xs}


def fmt_stat(s, nd=1, scale=1.0):
    if s["median"] is None:
        return "n/a"
    return (f"{s['median'] * scale:,.{nd}f} [{s['min'] * scale:,.{nd}f}–{s['max'] * scale:,.{nd}f}]")


def load(path, jsonl=False):
    if not path or not os.path.exists(path) or os.path.getsize(path) == 0:
        return None
    with open(path) as f:
        if jsonl:
            return [json.loads(line) for line in f if line.strip()]
        return json.load(f)


# ---- micro ----------------------------------------------------------------------

def micro_summary(micro):
    if not micro:
        return None
    clock = {}
    for c in micro.get("clock", []):
        clock[c["frame"]] = med([a - b for a, b in zip(c["ns"], c["empty_ns"])])
    every = micro.get("d2s_sample_every", 64)
    rows = []
    for r in micro["results"]:
        # Paired: each run's pathscope figure against the empty program's
        # figure of the same run (back to back), then the median.
        diff = med([a - b for a, b in zip(r["ns"], r["empty_ns"])])
        row = {"prog": r["prog"], "features": r["features"], "frame": r["frame"],
               "ns": r["median_ns"], "empty_ns": r["empty_median_ns"], "diff_ns": diff,
               "diff_range_ns": spread([a - b for a, b in zip(r["ns"], r["empty_ns"])]),
               "ratio": med([ratio(a, b) for a, b in zip(r["ns"], r["empty_ns"])]),
               "runs_ns": r["ns"], "runs_empty_ns": r["empty_ns"]}
        if r["prog"] == "xdp" and r["features"] in ("default", "default_tcp", "all"):
            share = clock.get(r["frame"], 0) / every
            row["sampling_share_ns"] = share
            row["nonsampled_diff_ns"] = diff - share
        rows.append(row)
    return {"repeat": micro["repeat"], "runs": micro["runs"], "rows": rows,
            "clock_read_ns": clock, "sample_every": every, "programs": micro.get("programs"),
            "frames": micro.get("frames"), "bpf_stats_floor": micro.get("bpf_stats_floor"),
            "value_sizes": micro.get("value_sizes")}


# ---- live -----------------------------------------------------------------------

def live_summary(live, floor_ns):
    if not live:
        return None
    live = [r for r in live if r.get("phase", "rounds") == "rounds"]
    out = {}
    for cfg in CONFIGS:
        runs = [r for r in live if r["config"] == cfg]
        if not runs:
            continue
        c = {}
        for wl in ("tcp", "udp"):
            plain = [r for r in runs if r["workload"] == wl and r["bpf_stats"] == 0 and "error" not in r]
            stats = [r for r in runs if r["workload"] == wl and r["bpf_stats"] == 1 and "error" not in r]
            w = {"runs": len(plain), "stats_runs": len(stats),
                 "failed": len([r for r in runs if r["workload"] == wl and "error" in r])}
            if wl == "tcp":
                w["gbps"] = stat_obj([r["throughput_bps"] / 1e9 for r in plain])
                w["retransmits"] = stat_obj([r.get("retransmits") for r in plain])
                w["rtt_p50_ms"] = stat_obj([r["ping"]["p50_ms"] if r.get("ping") else None for r in plain])
                w["rtt_p99_ms"] = stat_obj([r["ping"]["p99_ms"] if r.get("ping") else None for r in plain])
                w["ping_lost"] = sum((r["ping"]["sent"] - r["ping"]["received"]) for r in plain if r.get("ping"))
            else:
                w["kpps"] = stat_obj([r["pps_received"] / 1e3 for r in plain])
                w["kpps_sent"] = stat_obj([r["pps_sent"] / 1e3 for r in plain])
                w["lost_percent"] = stat_obj([r["lost_percent"] for r in plain])
            w["mpps_link"] = stat_obj([r["packets"] / r["seconds"] / 1e6 for r in plain])
            w["cpu_ns_per_packet"] = stat_obj(
                [r["cpu"]["busy"] * 1e9 / r["cpu"]["hz"] / r["packets"] if r["packets"] else None for r in plain])
            w["busiest_cpu_ns_per_packet"] = stat_obj(
                [r["cpu"]["busiest_cpu_busy"] * 1e9 / r["cpu"]["hz"] / r["packets"]
                 if r["packets"] and r["cpu"].get("busiest_cpu_busy") is not None else None for r in plain])
            w["steal_share"] = stat_obj(
                [r["cpu"]["steal"] / max(1, r["cpu"]["busy"] + r["cpu"]["idle"] + r["cpu"]["steal"]) for r in plain])
            has_bpf = any(r["bpf"]["nprogs"] for r in stats)
            if has_bpf:
                w["bpf_ns_per_packet"] = stat_obj(
                    [r["bpf"]["run_time_ns"] / r["packets"] if r["packets"] else None for r in stats])
                w["bpf_runs_per_packet"] = stat_obj(
                    [r["bpf"]["run_cnt"] / r["packets"] if r["packets"] else None for r in stats])
                w["nprogs"] = max(r["bpf"]["nprogs"] for r in stats)
                if floor_ns:
                    w["bpf_net_ns_per_packet"] = stat_obj(
                        [(r["bpf"]["run_time_ns"] - r["bpf"]["run_cnt"] * floor_ns) / r["packets"]
                         if r["packets"] else None for r in stats])
            if wl == "tcp" and cfg in PS_CONFIGS:
                w["frames_per_skb"] = stat_obj(
                    [r["pathscope"]["xdp_packets"] / r["pathscope"]["tci_packets"]
                     if r.get("pathscope") and r["pathscope"].get("tci_packets")
                     and r["pathscope"].get("xdp_packets") is not None else None for r in plain])
                w["gro_avg_segments"] = stat_obj(
                    [r["pathscope"]["tci_segments"] / r["pathscope"]["tci_packets"]
                     if r.get("pathscope") and r["pathscope"].get("tci_segments") is not None
                     and r["pathscope"].get("tci_packets") else None for r in plain])
            c[wl] = w
        out[cfg] = c
    return out


def median_ci(xs, level=0.95, draws=4000):
    """The median and a percentile-bootstrap interval for it (fixed seed: the
    same results give the same interval)."""
    rng = random.Random(18)
    meds = sorted(statistics.median(rng.choices(xs, k=len(xs))) for _ in range(draws))
    lo = meds[int((1 - level) / 2 * draws)]
    hi = meds[min(draws - 1, int((1 + level) / 2 * draws))]
    return statistics.median(xs), lo, hi


def pairs_summary(live):
    """The throughput targets' phase: per pair, default / empty_xdp for TCP
    throughput and the UDP packet rate (bench/live.sh, ABBA order)."""
    if not live:
        return None
    runs = [r for r in live if r.get("phase") == "pairs" and "error" not in r and r["bpf_stats"] == 0]
    out = {}
    for wl, key in (("tcp", "throughput_bps"), ("udp", "pps_received")):
        by = {}
        for r in runs:
            if r["workload"] == wl:
                by.setdefault(r["round"], {})[r["config"]] = r[key]
        ratios = [v["default"] / v["empty_xdp"] for _, v in sorted(by.items())
                  if v.get("default") and v.get("empty_xdp")]
        if not ratios:
            continue
        m, lo, hi = median_ci(ratios)
        out[wl] = {"pairs": len(ratios), "ratios": ratios, "median": m, "ci95": [lo, hi],
                   "min": min(ratios), "max": max(ratios),
                   "default_median": med([v.get("default") for v in by.values()]),
                   "empty_median": med([v.get("empty_xdp") for v in by.values()])}
    return out or None


# ---- memory -----------------------------------------------------------------------

def memory_summary(mem, cpus):
    if not mem:
        return None
    rows = []
    mismatches = []
    for a in mem:
        q, maps = a["queues"], a["maps"]
        measured = sum(m["bytes_memlock"] for m in maps)
        # A per-queue map of a feature that is off has one entry (loader/attach.c):
        # it is part of F, not of S.
        def per_queue(m):
            return m["name"] in PER_QUEUE_MAPS and m["max_entries"] > 1
        perq = [m for m in maps if per_queue(m)]
        fixed = [m for m in maps if not per_queue(m)]
        for m in maps:
            model = map_model(m, cpus)
            if model != m["bytes_memlock"]:
                mismatches.append({"queues": q, "features": a["features"], "map": m["name"],
                                   "type": m["type"], "measured": m["bytes_memlock"], "model": model})
        # Per-CPU slots count once per CPU; the latency histograms of tcp and
        # sock are plain arrays shared by the CPUs (atomic adds).
        s_q = sum(r8(m["bytes_value"]) for m in perq if m["type"] == "percpu_array")
        h_q = sum(r8(m["bytes_value"]) for m in perq if m["type"] != "percpu_array")
        bad_slots = [m["name"] for m in perq if m["max_entries"] != q + 1]

        def formula(qn, p):
            pcpu = len([m for m in perq if m["type"] == "percpu_array"])  # a pointer per slot
            hdr = len(perq) * SIZEOF_BPF_ARRAY + pcpu * 8 * (qn + 1)
            return ((qn + 1) * (p * s_q + h_q) + hdr +
                    sum(map_model(m, p) or m["bytes_memlock"] for m in fixed))

        row = {"queues": q, "features": a["features"], "measured_bytes": measured,
               "formula_bytes": formula(q, cpus), "per_queue_value_bytes": s_q,
               "per_queue_shared_bytes": h_q,
               "per_queue_maps": sorted(m["name"] for m in perq),
               "per_queue_bytes": sum(m["bytes_memlock"] for m in perq),
               "fixed_bytes": sum(m["bytes_memlock"] for m in fixed),
               "fixed_bytes_64cpus": sum(map_model(m, 64) or m["bytes_memlock"] for m in fixed),
               "maps": len(maps), "wrong_slot_count": bad_slots,
               "program_bytes": sum(p.get("bytes_memlock", 0) for p in a.get("progs", [])),
               "programs": len(a.get("progs", []))}
        if q == 64:
            row["bound_64q_64cpu_bytes"] = formula(64, 64)
        rows.append(row)
    return {"cpus": cpus, "rows": rows, "model_mismatches": mismatches}


# ---- scrape -----------------------------------------------------------------------------

# The scrape interval of packaging/prometheus.yml (Prometheus' own default is 1 min),
# and the share of one CPU a scrape may take of it: the bound of the scrape target.
SCRAPE_INTERVAL_S = 10
SCRAPE_CPU_SHARE = 0.01
SERIES_BOUND = 1500  # series of a 64-queue interface, default features and detail


def scrape_summary(sc):
    if not sc:
        return None
    rows = []
    for lv in sc["levels"]:
        n = lv["scrapes"]
        w = [x * 1000 for x in lv.get("wall_s") or []]
        rows.append({"level": lv["level"], "format": lv.get("format", "text"), "scrapes": n,
                     "series": lv["series"],
                     "body_bytes": lv["body_bytes"],
                     "cpu_ms_per_scrape": lv["cpu_ns_total"] / n / 1e6,
                     "cpu_ms_per_scrape_ticks": lv["cpu_ticks_total"] * 1000 / sc.get("clk_tck", 100) / n,
                     "wall_ms_median": med(w), "wall_ms_max": max(w) if w else None,
                     "rss_kib_before": lv["rss_kib_before"], "rss_kib_after": lv["rss_kib_after"],
                     "hwm_kib": lv["hwm_kib"], "allocs_per_scrape": lv.get("allocs_per_scrape"),
                     "alloc_bytes_per_scrape": lv.get("alloc_bytes_per_scrape"),
                     "peak_heap_bytes": lv.get("peak_heap_bytes")})
    return {"queues": sc["queues"], "interfaces": sc["interfaces"], "features": sc["features"],
            "online_cpus": sc.get("online_cpus"), "rows": rows,
            "bound_ms": SCRAPE_INTERVAL_S * 1000 * SCRAPE_CPU_SHARE,
            "default_features_interface_series": sc.get("default_features_interface_series")}


def scrape_target(sc):
    if not sc or not sc["rows"]:
        return []
    t = []
    n = sc.get("default_features_interface_series")
    if n is not None:
        t.append({"id": "series_default",
                  "target": f"serve, default detail and features: at most {SERIES_BOUND:,} series for a "
                            f"{sc['queues']}-queue interface",
                  "measured": f"{n:,} series (idle; each ICMP peer adds 31, each TCP peer subnet 35)",
                  "met": n <= SERIES_BOUND, "primary": True})
    worst = max(sc["rows"], key=lambda r: r["cpu_ms_per_scrape"])
    parts = [f"--detail {r['level']}{' --native-histograms' if r['format'] == 'native' else ''} "
             f"{fmt(r['cpu_ms_per_scrape'], 1)} ms ({r['series']:,} series, "
             f"{r['body_bytes'] / 2**20:.1f} MiB)" for r in sc["rows"]]
    return t + [{"id": "scrape_cpu",
             "target": f"serve: CPU time of one scrape of {sc['interfaces']} interfaces x {sc['queues']} queues, "
                       f"every feature, <= {SCRAPE_CPU_SHARE:.0%} of one CPU at a {SCRAPE_INTERVAL_S} s scrape "
                       f"interval ({sc['bound_ms']:.0f} ms)",
             "measured": "; ".join(parts),
             "met": worst["cpu_ms_per_scrape"] <= sc["bound_ms"], "primary": True}]


# ---- targets ---------------------------------------------------------------------------

def targets(micro, live, pairs=None):
    """Issue 18's targets, each against figures of the same run."""
    t = []

    def bpf(cfg, wl, key="bpf_net_ns_per_packet"):
        return live.get(cfg, {}).get(wl, {}).get(key, {}).get("median") if live else None

    # 1. XDP per-packet cost, default features, non-sampled packet (ICMP reply apart).
    if micro:
        rows = {r["frame"]: r for r in micro["rows"] if r["prog"] == "xdp" and r["features"] == "default"}
        plain = [f for f in ("udp64", "tcp1500", "ipv6_ce") if f in rows]
        if plain:
            worst = max(rows[f]["nonsampled_diff_ns"] for f in plain)
            t.append({"id": "xdp_ns", "target": "XDP, default features, non-sampled TCP, UDP or IPv6 packet: "
                      "<= 15 ns above the empty program",
                      "measured": "ns above empty: " + ", ".join(
                          f"{f} {fmt(rows[f]['nonsampled_diff_ns'], 1)}" for f in plain),
                      "met": worst <= 15, "primary": True})
        if "icmp_reply" in rows:
            d = rows["icmp_reply"]["nonsampled_diff_ns"]
            t.append({"id": "xdp_icmp_reply_ns", "target": "XDP, default features, ICMP echo reply: "
                      "<= 30 ns above the empty program",
                      "measured": f"{fmt(d, 1)} ns above empty", "met": d <= 30, "primary": True})
        # 2. tc ingress and egress.
        tc = [r for r in micro["rows"] if r["prog"] in ("tc_ingress", "tc_egress") and r["features"] == "default"]
        if tc:
            worst = max(r["diff_ns"] for r in tc)
            t.append({"id": "tc_ns", "target": "tc ingress and egress, default features: <= 15 ns above the empty program",
                      "measured": "ns above empty: " + ", ".join(
                          f"{r['prog'].replace('tc_', '')} {r['frame']} {fmt(r['diff_ns'], 1)}" for r in tc),
                      "met": worst <= 15, "primary": True})
        # The opt-in tcp feature: its cost on a line of its own.
        tcp = {(r["prog"], r["frame"]): r for r in micro["rows"] if r["features"] == "default_tcp"}
        dflt = {(r["prog"], r["frame"]): r for r in micro["rows"] if r["features"] == "default"}
        parts = [f"{p.replace('tc_', '')} {fr} +{fmt(tcp[(p, fr)]['diff_ns'] - dflt[(p, fr)]['diff_ns'], 1)}"
                 for (p, fr) in tcp if fr in ("tcp1500",) and (p, fr) in dflt]
        if parts:
            t.append({"id": "tcp_feature_ns", "target": "feature tcp (opt-in): ns added per TCP segment to the "
                      "default features (about one map lookup)",
                      "measured": ", ".join(parts) + " ns", "met": None, "primary": False})
    # 3. Against bpftrace, live, net of bpf_stats' floor.
    if live and "default" in live and "bpftrace" in live:
        for wl in ("tcp", "udp"):
            d, b = bpf("default", wl), bpf("bpftrace", wl)
            r = ratio(b, d)
            t.append({"id": f"bpf_vs_bpftrace_{wl}",
                      "target": f"default: >= 10x less BPF time per packet than bpftrace netsize+nettxlat, "
                                f"net of bpf_stats' floor ({wl.upper()})",
                      "measured": f"default {fmt(d, 0)} ns, bpftrace {fmt(b, 0)} ns per packet: {fmt_x(r, 1)} less",
                      "met": None if r is None else r >= 10, "primary": True})
    # 4. Every feature against bpftrace.
    if live and "all" in live and "bpftrace" in live:
        for wl in ("tcp", "udp"):
            a, b = bpf("all", wl), bpf("bpftrace", wl)
            r = ratio(a, b)
            t.append({"id": f"all_vs_bpftrace_{wl}",
                      "target": f"`all`: at most half of bpftrace netsize+nettxlat's BPF time per packet ({wl.upper()})",
                      "measured": f"all {fmt(a, 0)} ns, bpftrace {fmt(b, 0)} ns per packet: {fmt_pct(r)}",
                      "met": None if r is None else r <= 0.5, "primary": True})
    # 5. The tcp feature beside bpftrace's tcp_probe srtt peer.
    if live and "default_tcp" in live and "default" in live and "bpftrace_tcp" in live:
        dt, d, b = bpf("default_tcp", "tcp"), bpf("default", "tcp"), bpf("bpftrace_tcp", "tcp")
        added = None if dt is None or d is None else dt - d
        t.append({"id": "tcp_vs_bpftrace_tcp",
                  "target": "feature tcp: BPF time per TCP packet it adds, beside bpftrace tcp:tcp_probe srtt per flow",
                  "measured": f"tcp adds {fmt(added, 0)} ns (default,tcp {fmt(dt, 0)}, default {fmt(d, 0)}); "
                              f"bpftrace tcp_srtt {fmt(b, 0)} ns per packet"
                              + (f"; with --tcp-rx xdp it adds {fmt(dx - d, 0)} ns"
                                 if (dx := bpf("default_tcp_xdp", "tcp")) is not None and d is not None else ""),
                  "met": None if added is None or b is None else added <= b, "primary": True})
    # The opt-in sock feature: what it adds, beside the default.
    if live and "default_sock" in live and "default" in live:
        parts = []
        for wl in ("tcp", "udp"):
            ds, d = bpf("default_sock", wl), bpf("default", wl)
            rs = live["default_sock"][wl].get("bpf_runs_per_packet", {}).get("median")
            rd = live["default"][wl].get("bpf_runs_per_packet", {}).get("median")
            added = None if ds is None or d is None else ds - d
            runs = None if rs is None or rd is None else rs - rd
            parts.append(f"{wl.upper()} +{fmt(added, 0)} ns and +{fmt(runs, 2)} program runs per received packet")
        t.append({"id": "sock_feature", "target": "feature sock (opt-in): BPF time it adds per received packet, "
                  "beside the default", "measured": "; ".join(parts), "met": None, "primary": False})
    # 6. Throughput against the empty XDP program: the pairs' median ratio,
    # with the rounds' medians beside it.
    if live and "default" in live and "empty_xdp" in live:
        for wl, want, unit, key, nd, name in (
                ("tcp", 0.99, "Gbit/s", "gbps", 2, "TCP throughput"),
                ("udp", 0.97, "kpps", "kpps", 0, "UDP-64B packet rate")):
            d = live["default"][wl][key]["median"]
            e = live["empty_xdp"][wl][key]["median"]
            r = ratio(d, e)
            rounds = f"rounds' medians {fmt(d, nd)} vs {fmt(e, nd)} {unit}: {fmt_pct(r)}"
            # What the added CPU time predicts if the busiest CPU is the
            # bottleneck and pathscope's added BPF time runs on it.
            c = live["empty_xdp"][wl].get("busiest_cpu_ns_per_packet", {}).get("median")
            xd, xe = bpf("default", wl), bpf("empty_xdp", wl)
            model = None if None in (c, xd, xe) else c / (c + (xd - xe))
            if model is not None:
                rounds += (f"; expected from the added BPF time ({fmt(xd - xe, 0)} ns net per packet) on the "
                           f"busiest CPU ({fmt(c, 0)} ns per packet): {fmt_pct(model)}")
            pw = (pairs or {}).get(wl)
            if pw:
                measured = (f"median of {pw['pairs']} paired ratios {fmt_pct(pw['median'])} "
                            f"(95% interval {fmt_pct(pw['ci95'][0])}–{fmt_pct(pw['ci95'][1])}, pairs "
                            f"{fmt_pct(pw['min'])}–{fmt_pct(pw['max'])}); {rounds}")
                met = pw["median"] >= want
            else:
                measured, met = rounds, None if r is None else r >= want
            t.append({"id": "tcp_throughput" if wl == "tcp" else "udp_rate",
                      "target": f"default: {name} >= {want:.0%} of the empty XDP program's "
                                "(paired runs, ABBA)",
                      "measured": measured, "met": met, "primary": True})
    # 7. GRO merging.
    if live and "default" in live and "counters" in live:
        d = live["default"]["tcp"]["frames_per_skb"]["median"]
        c = live["counters"]["tcp"]["frames_per_skb"]["median"]
        g = live["default"]["tcp"]["gro_avg_segments"]["median"]
        r = ratio(d, c)
        t.append({"id": "gro_unchanged",
                  "target": "default: GRO merging unchanged vs counters only (XDP frames per tc-ingress skb, medians within 10%)",
                  "measured": f"{fmt_stat(live['default']['tcp']['frames_per_skb'])} vs "
                              f"{fmt_stat(live['counters']['tcp']['frames_per_skb'])} frames per skb ({fmt_pct(r)}); "
                              f"pathscope's own gro.avg_segments with default: {fmt(g, 1)}",
                  "met": None if r is None else abs(r - 1) <= 0.10, "primary": True})
    return t


# ---- markdown ----------------------------------------------------------------------------

def met_s(m):
    return "n/a" if m is None else ("**met**" if m else "**missed**")


def scrape_markdown(sc):
    L = [f"## Scrape: serve's /metrics, {sc['interfaces']} interfaces x {sc['queues']} queues, every feature", ""]
    L.append(f"`bench/scrape.sh`: two veth pairs of {sc['queues']} RX and TX queues, pathscope attached to one end "
             "of each with `--features all` and a little traffic (raw UDP, TCP and ICMP frames), serve "
             "adopting both at each detail level, in the text format and in the protobuf one with native "
             "histograms (`--native-histograms`, Prometheus' Accept header; series = those Prometheus stores, "
             "a native histogram one), and scraped one scrape at a time over loopback. CPU time = "
             "the serve process's on-CPU time (every thread's schedstat) over the scrapes; heap = valgrind "
             "(memcheck's total heap usage, 11 scrapes minus 1, per scrape; massif's peak, startup included).")
    L.append("")
    L.append("| detail | format | series | body | CPU ms/scrape | wall ms median [max] | RSS before → after "
             "(high-water) KiB | allocations/scrape | allocated/scrape | peak heap |")
    L.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in sc["rows"]:
        mib = lambda b: "n/a" if b is None else f"{b / 2**20:.1f} MiB"
        fmt_name = "protobuf, native histograms" if r["format"] == "native" else "text"
        L.append(f"| {r['level']} | {fmt_name} | {r['series']:,} | {mib(r['body_bytes'])} "
                 f"| {fmt(r['cpu_ms_per_scrape'], 2)} "
                 f"(ticks {fmt(r['cpu_ms_per_scrape_ticks'], 1)}) | {fmt(r['wall_ms_median'], 1)} "
                 f"[{fmt(r['wall_ms_max'], 1)}] | {r['rss_kib_before']:,} → {r['rss_kib_after']:,} "
                 f"({r['hwm_kib']:,}) | {r['allocs_per_scrape'] if r['allocs_per_scrape'] is not None else 'n/a'} "
                 f"| {mib(r['alloc_bytes_per_scrape'])} | {mib(r['peak_heap_bytes'])} |")
    L.append("")
    L.append(f"Bound: {SCRAPE_CPU_SHARE:.0%} of one CPU at the {SCRAPE_INTERVAL_S} s scrape interval of "
             f"packaging/prometheus.yml = {sc['bound_ms']:.0f} ms per scrape (Prometheus' default interval is "
             "1 min).")
    if sc.get("default_features_interface_series") is not None:
        L.append(f"One {sc['queues']}-queue interface with the default features at the default detail: "
                 f"{sc['default_features_interface_series']:,} series.")
    L.append("")
    return L


def pairs_markdown(pairs):
    L = ["### Throughput pairs: the empty XDP program (A) and pathscope default (B), ABBA", ""]
    L.append("Each pair: A and B set up afresh one after the other (A first in odd pairs, B first in even "
             "ones), each running iperf3 TCP and the UDP flood; the ratio is B / A. The targets are judged "
             "on the median ratio; the interval is a percentile bootstrap of that median over the pairs.")
    L.append("")
    L.append("| workload | pairs | median B / A | 95% interval | min – max | A median | B median |")
    L.append("|---|---:|---:|---:|---:|---:|---:|")
    for wl, unit, scale, nd in (("tcp", "Gbit/s", 1e9, 2), ("udp", "kpps", 1e3, 0)):
        p = pairs.get(wl)
        if not p:
            continue
        L.append(f"| {wl.upper()} | {p['pairs']} | {fmt_pct(p['median'])} | {fmt_pct(p['ci95'][0])} – "
                 f"{fmt_pct(p['ci95'][1])} | {fmt_pct(p['min'])} – {fmt_pct(p['max'])} | "
                 f"{fmt(p['empty_median'] / scale, nd)} {unit} | {fmt(p['default_median'] / scale, nd)} {unit} |")
    L.append("")
    L.append("Ratios by pair: " + "; ".join(
        f"{wl.upper()} " + ", ".join(f"{r * 100:.1f}" for r in pairs[wl]["ratios"]) for wl in ("tcp", "udp")
        if wl in pairs) + " (%).")
    L.append("")
    return L


def markdown(meta, micro, live, mem, tg, sc=None, pairs=None):
    L = []
    L.append(f"# pathscope benchmark, {meta.get('date', '?')}")
    L.append("")
    m = meta.get("machine", {})
    L.append(f"Machine: {m.get('cpu_model', '?')}, {m.get('vcpus', '?')} vCPUs "
             f"({m.get('possible_cpus', '?')} possible), kernel {m.get('kernel', '?')}, "
             f"{m.get('os', '?')}. pathscope {meta.get('commit', '?')}. "
             f"Tools: {meta.get('tools', '?')}.")
    if meta.get("params"):
        L.append(f"Parameters: {meta['params']}.")
    if meta.get("durations"):
        d = meta["durations"]
        L.append(f"Run time: {', '.join(f'{k} {v:.0f} s' for k, v in d.items())}.")
    L.append("")
    L.append("## Targets")
    L.append("")
    L.append("| target | measured | |")
    L.append("|---|---|---|")
    for t in tg:
        L.append(f"| {t['target']} | {t['measured']} | {met_s(t['met'])} |")
    L.append("")
    if live:
        L.append("pathscope default measures, per queue and hook (XDP, tc ingress, tc egress): packets, bytes, "
                 "L3/L4 classes, ECN, size histograms, GRO/GSO segments, ICMP echo RTT and driver-to-stack "
                 "latency; netsize + nettxlat measure four size histograms and one TX latency histogram for "
                 "the whole host.")
        L.append("")

    if micro:
        L.append(f"## Micro: ns per packet (BPF_PROG_TEST_RUN, repeat {micro['repeat']:,}, "
                 f"median of {micro['runs']} runs)")
        L.append("")
        L.append("Each figure beside an empty program of the same type, run back to back in each run. "
                 "diff and ratio: median over the runs of (pathscope − empty) and pathscope / empty, "
                 "with the range of the differences. For XDP with d2s (default, all), 1 packet in "
                 f"{micro['sample_every']} per queue and CPU is a sampling candidate that reads the clock; "
                 "`non-sampled` subtracts that share (the measured clock-read cost / "
                 f"{micro['sample_every']}); the average itself is an upper bound for a non-sampled packet.")
        L.append("")
        L.append("| program | features | frame | pathscope ns | empty ns | diff ns [range] | ratio | non-sampled diff ns |")
        L.append("|---|---|---|---:|---:|---:|---:|---:|")
        for r in micro["rows"]:
            lo, hi = r["diff_range_ns"]
            L.append(f"| {r['prog']} | {r['features']} | {r['frame']} | {fmt(r['ns'])} | {fmt(r['empty_ns'])} | "
                     f"{fmt(r['diff_ns'])} [{fmt(lo, 0)}–{fmt(hi, 0)}] | {fmt_x(r['ratio'])} | "
                     f"{fmt(r.get('nonsampled_diff_ns')) if 'nonsampled_diff_ns' in r else ''} |")
        L.append("")
        fr = micro.get("frames") or {}
        L.append("Frames: " + "; ".join(f"`{k}` {v['what']}" for k, v in fr.items()) + ". "
                 "tc egress runs with BPF_PROG_TEST_RUN's own socket (no cached TX queue: queue `other`). "
                 "XDP and tc objects are loaded apart, so tc ingress never finds a pending d2s sample, and "
                 "the ICMP reply finds no pending request. Feature `all` differs from `default` only by the "
                 "tracepoint features (txlat, kernel), which BPF_PROG_TEST_RUN cannot run: see the live table.")
        if micro.get("programs"):
            L.append("")
            L.append("Program sizes (xlated/jited bytes): " + ", ".join(
                f"{p['prog']} {p['features']} {p['xlated_bytes']}/{p['jited_bytes']}" for p in micro["programs"]) + ".")
        if micro.get("clock_read_ns"):
            L.append(f"Clock read (bpf_ktime_get_ns) above empty: " + ", ".join(
                f"{k} {fmt(v)} ns" for k, v in micro["clock_read_ns"].items()) + ".")
        L.append("")

    if live:
        L.append("## Live: namespaces + veth, receiver side observed")
        L.append("")
        L.append("Median [min–max] over the runs; configurations alternated round by round. "
                 "CPU ns/packet = non-idle jiffies of all CPUs (whole machine) / packets received on vB. "
                 "BPF ns/packet = Σ run_time_ns of the configuration's programs / packets, from separate "
                 "runs with kernel.bpf_stats_enabled=1; `net` subtracts bpf_stats' own floor per program run "
                 f"({fmt(meta.get('bpf_stats_floor_ns'))} ns, measured on the empty program).")
        for wl in ("tcp", "udp"):
            base = live.get("nothing", {}).get(wl)
            L.append("")
            if wl == "tcp":
                L.append("### iperf3 TCP, GRO on, with ping every 10 ms (ping under load)")
                L.append("")
                L.append("| configuration | Gbit/s | vs nothing | CPU ns/pkt | vs nothing | BPF ns/pkt | BPF net ns/pkt | runs/pkt | RTT p50 ms | RTT p99 ms | frames/skb |")
                L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
            else:
                L.append("### iperf3 UDP flood, 64-byte payloads, -b 0")
                L.append("")
                L.append("| configuration | kpps received | vs nothing | kpps sent | lost % | CPU ns/pkt | vs nothing | BPF ns/pkt | BPF net ns/pkt | runs/pkt |")
                L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
            for cfg in CONFIGS:
                if cfg not in live:
                    continue
                w = live[cfg][wl]
                thr = w["gbps"] if wl == "tcp" else w["kpps"]
                bthr = (base["gbps"] if wl == "tcp" else base["kpps"]) if base else None
                cpu_r = ratio(w["cpu_ns_per_packet"]["median"], base["cpu_ns_per_packet"]["median"]) if base else None
                bpf = fmt_stat(w["bpf_ns_per_packet"], 0) if "bpf_ns_per_packet" in w else "n/a"
                bnet = fmt(w["bpf_net_ns_per_packet"]["median"], 0) if "bpf_net_ns_per_packet" in w else "n/a"
                rpp = fmt(w["bpf_runs_per_packet"]["median"], 2) if "bpf_runs_per_packet" in w else "n/a"
                if wl == "tcp":
                    fps = fmt(w["frames_per_skb"]["median"], 1) if "frames_per_skb" in w else "n/a"
                    L.append(f"| {CONFIG_LABEL[cfg]} | {fmt_stat(thr, 2)} | {fmt_pct(ratio(thr['median'], bthr['median']) if bthr else None)} | "
                             f"{fmt_stat(w['cpu_ns_per_packet'], 0)} | {fmt_x(cpu_r)} | {bpf} | {bnet} | {rpp} | "
                             f"{fmt(w['rtt_p50_ms']['median'], 3)} | {fmt(w['rtt_p99_ms']['median'], 3)} | {fps} |")
                else:
                    L.append(f"| {CONFIG_LABEL[cfg]} | {fmt_stat(thr, 0)} | {fmt_pct(ratio(thr['median'], bthr['median']) if bthr else None)} | "
                             f"{fmt(w['kpps_sent']['median'], 0)} | {fmt(w['lost_percent']['median'], 1)} | "
                             f"{fmt_stat(w['cpu_ns_per_packet'], 0)} | {fmt_x(cpu_r)} | {bpf} | {bnet} | {rpp} |")
        if pairs:
            L.append("")
            L += pairs_markdown(pairs)
        # Peer ratios.
        L.append("")
        L.append("### pathscope against each peer (ratio of medians; < 1 = pathscope lower)")
        L.append("")
        L.append("| | vs | TCP Gbit/s | TCP CPU/pkt | TCP BPF/pkt | UDP kpps | UDP CPU/pkt | UDP BPF/pkt |")
        L.append("|---|---|---:|---:|---:|---:|---:|---:|")
        for p in ("default", "default_tcp", "default_tcp_xdp", "default_sock", "all"):
            for peer in PEERS:
                if p not in live or peer not in live:
                    continue
                a, b = live[p], live[peer]

                def rr(wl, key):
                    if key not in a[wl] or key not in b[wl]:
                        return "n/a"
                    return fmt_x(ratio(a[wl][key]["median"], b[wl][key]["median"]))
                L.append(f"| {CONFIG_LABEL[p]} | {peer} | {rr('tcp', 'gbps')} | {rr('tcp', 'cpu_ns_per_packet')} | "
                         f"{rr('tcp', 'bpf_ns_per_packet')} | {rr('udp', 'kpps')} | {rr('udp', 'cpu_ns_per_packet')} | "
                         f"{rr('udp', 'bpf_ns_per_packet')} |")
        L.append("")
        st = [live[c]["tcp"]["steal_share"]["median"] for c in live if live[c]["tcp"]["steal_share"]["median"] is not None]
        if st:
            L.append(f"Hypervisor steal during the runs: median {fmt_pct(med(st))} of CPU time "
                     f"(max over configurations {fmt_pct(max(st))}); the machine is shared.")
            L.append("")

    if mem:
        L.append(f"## Map memory (bytes_memlock of every map of the attachment; {mem['cpus']} possible CPUs)")
        L.append("")
        L.append("Formula: (queues + 1) × (CPUs × S + H) + F, where S = Σ value sizes of the per-CPU per-queue maps "
                 "of the features that are on (one slot per queue plus `other`; a feature that is off "
                 "leaves its maps at one entry, counted in F), H = Σ value sizes of the per-queue histograms "
                 "the CPUs share (tcp_hist, sock_hist: atomic adds) and F = the fixed maps plus the per-queue arrays' headers, "
                 "both with the kernel's own accounting (array_map_mem_usage, htab_map_mem_usage).")
        L.append("")
        L.append("| queues | features | measured | formula | per-queue maps | S (B) | H (B) | fixed | programs |")
        L.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
        for r in mem["rows"]:
            L.append(f"| {r['queues']} | {r['features']} | {r['measured_bytes']:,} | {r['formula_bytes']:,} | "
                     f"{r['per_queue_bytes']:,} | {r['per_queue_value_bytes']:,} | {r.get('per_queue_shared_bytes', 0):,} | "
                     f"{r['fixed_bytes']:,} | "
                     f"{r['program_bytes']:,} ({r['programs']}) |")
        L.append("")
        for r in mem["rows"]:
            if "bound_64q_64cpu_bytes" in r:
                L.append(f"- Bound, 64 queues on 64 CPUs, `{r['features']}`: {r['bound_64q_64cpu_bytes']:,} bytes "
                         f"({r['bound_64q_64cpu_bytes'] / 2**20:.1f} MiB) = 65 × (64 × {r['per_queue_value_bytes']:,} + "
                         f"{r.get('per_queue_shared_bytes', 0):,}) "
                         f"+ fixed {r['fixed_bytes_64cpus']:,} + headers.")
        per = sorted({m for r in mem["rows"] for m in r["per_queue_maps"]})
        L.append(f"- Per-queue maps: {', '.join(per)}. The model matches "
                 f"{'every map exactly' if not mem['model_mismatches'] else str(len(mem['model_mismatches'])) + ' mismatching maps (see JSON)'}.")
        L.append("")
    if sc:
        L += scrape_markdown(sc)
    return "\n".join(L) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--meta")
    ap.add_argument("--micro")
    ap.add_argument("--live")
    ap.add_argument("--memory")
    ap.add_argument("--scrape")
    ap.add_argument("--json", required=True)
    ap.add_argument("--md", required=True)
    a = ap.parse_args()
    meta = load(a.meta) or {}
    micro_raw = load(a.micro)
    live_raw = load(a.live, jsonl=True)
    mem_raw = load(a.memory)
    scrape_raw = load(a.scrape)
    micro = micro_summary(micro_raw)
    floor = None
    if micro and micro.get("bpf_stats_floor"):
        f = micro["bpf_stats_floor"]
        vals = [v for v in (f.get("empty_xdp_ns"), f.get("empty_tc_ns")) if v and v > 0]
        floor = sum(vals) / len(vals) if vals else None
    meta["bpf_stats_floor_ns"] = floor
    live = live_summary(live_raw, floor)
    pairs = pairs_summary(live_raw)
    cpus = (micro_raw or {}).get("possible_cpus") or meta.get("machine", {}).get("possible_cpus") or os.cpu_count()
    mem = memory_summary(mem_raw, cpus)
    sc = scrape_summary(scrape_raw)
    tg = targets(micro, live, pairs) + scrape_target(sc)
    out = {"meta": meta, "targets": tg, "micro": micro, "live": live, "pairs": pairs, "memory": mem, "scrape": sc,
           "raw": {"micro": micro_raw, "live": live_raw, "memory": mem_raw, "scrape": scrape_raw}}
    with open(a.json, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    with open(a.md, "w") as f:
        f.write(markdown(meta, micro, live, mem, tg, sc, pairs))


if __name__ == "__main__":
    main()
