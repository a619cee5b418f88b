#!/usr/bin/env python3
"""bench/report.py: aggregate the raw output of bench/run.sh's phases into
bench/results/<date>.json and <date>.md (see bench/README.md).

usage: report.py --meta META.json --micro MICRO.json --live LIVE.jsonl
                 --memory MEMORY.json --scrape SCRAPE.json --json OUT.json --md OUT.md

Every phase is optional (a missing file gives an empty section). Nothing here
asserts anything: targets are printed beside the figures as met / missed.
The markdown is bench/report_md.py's; what the two share (configurations,
statistics, number formats) bench/report_common.py's.
"""
import argparse
import json
import os
import random
import statistics
import sys

# Its modules beside it, read without leaving bench/__pycache__ in the tree.
sys.dont_write_bytecode = True
from report_common import (CONFIGS, PS_CONFIGS, SCRAPE_CPU_SHARE, SCRAPE_INTERVAL_S, SERIES_BOUND, fmt,
                           fmt_pct, fmt_stat, fmt_x, med, ratio, spread, stat_obj)
from report_md import markdown


# Maps with one slot per queue (+1 for "other"): PS_PER_QUEUE_MAP in
# include/pathscope/count.bpf.h and the probes.
PER_QUEUE_MAPS = {"xdp_stats", "tci_stats", "tce_stats", "d2s_stats", "icmp_stats",
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
