"""bench/report_md.py: the markdown of bench/report.py's results
(bench/results/<date>.md, see bench/README.md)."""
from report_common import (CONFIG_LABEL, CONFIGS, PEERS, SCRAPE_CPU_SHARE, SCRAPE_INTERVAL_S, fmt, fmt_pct,
                           fmt_stat, fmt_x, med, ratio)


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

