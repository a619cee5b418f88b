"""bench/report_common.py: what bench/report.py (the figures, JSON and targets)
and bench/report_md.py (the markdown) share: the configurations and their labels,
the scrape's bound, the statistics and the number formats."""
import math
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



# The scrape interval of packaging/prometheus.yml (Prometheus' own default is 1 min),
# and the share of one CPU a scrape may take of it: the bound of the scrape target.
SCRAPE_INTERVAL_S = 10
SCRAPE_CPU_SHARE = 0.01
SERIES_BOUND = 1500  # series of a 64-queue interface, default features and detail


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

