#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Check the Grafana dashboard without Grafana (it is not in Debian).

  dashboard_check.py static DASHBOARD GOLDEN_METRICS GENERATOR
      The JSON is well formed and is the generator's output; panel ids are
      unique; panels lie on the 24-column grid without overlapping; every
      variable a query, a title or a datasource uses is defined (or is one of
      Grafana's $__ globals); every target has a datasource, an expression
      and a refId unique in its panel; every metric a query names exists in
      GOLDEN_METRICS (the /metrics of a snapshot with every family filled, at
      serve's default detail level); every latency histogram family there
      (_seconds) has a heatmap and a p50/p99 panel of the whole interface (no
      queue filter: they work at every detail level), and those exported per
      queue at --detail queue a p50/p99 panel per queue; a panel that splits
      or filters by queue a family that the default level exports per
      interface (no queue label in GOLDEN_METRICS) says that it depends on
      the export's detail level; every query of a histogram's classic
      series also reads the native histogram (serve --native-histograms): a
      p50/p99 is "CLASSIC or NATIVE" with the same quantile and by labels
      (without le), a rate of samples "... X_count ... or
      histogram_count(... X ...)", and a heatmap has a target of the native
      histogram beside the classic buckets, with the same matchers.

  dashboard_check.py live DASHBOARD PROM_URL METRICS_FILE INSTANCE IFACE QUEUE [LEVEL [FORMAT]]
      Runs every query of every panel through Prometheus' HTTP API with the
      variables substituted: all at All; then INSTANCE and IFACE selected;
      then QUEUE selected too. Each must parse. In the first two, each must
      return at least one finite value, unless a metric it reads is absent
      from METRICS_FILE (the exporter's /metrics) for a reason listed in
      ABSENT_OK below; any other absent metric fails. Variable queries
      (label_values) must return the instance, the interface and the queue.
      LEVEL is INSTANCE's serve --detail (interface, the default, or queue):
      with INSTANCE and IFACE selected, the per-queue histogram panels give
      one series per queue at queue; at interface, a panel that splits by
      queue a family METRICS_FILE has per interface gives series without a
      queue label, or none (a ratio of a per-interface and a per-queue family).
      FORMAT is how Prometheus stores INSTANCE's histograms: classic (the
      default: X_bucket, X_sum, X_count) or native (serve --native-histograms
      scraped with --enable-feature=native-histograms: the one series X). With
      INSTANCE selected, the arm of a query (or a heatmap's target) that reads
      the other format must return nothing, so the data comes from the arm of
      FORMAT; a target that reads only the other format beside one of FORMAT
      (a heatmap's) is expected empty (at All it may have data: other
      instances may store the other format), else it needs data as any. No
      result has two series with the same labels, nor a label outside the
      query's by clauses.

Prints "ok - ..." / "not ok - ...: why" lines (tests/run.sh counts them);
exits 1 if any check failed.
"""
import json
import math
import re
import subprocess
import sys
import urllib.parse
import urllib.request

# Metrics a live test on veth with every feature cannot have, and why.
ABSENT_OK = {
    "pathscope_tx_completion_seconds": "veth completes no skb (its HELP says: absent on veth)",
    "pathscope_bpf_run_seconds_total": "exported only while kernel.bpf_stats_enabled=1 "
                                       "(the tests leave the sysctl alone: other tests time programs)",
    "pathscope_bpf_runs_total": "likewise",
}
# Metrics exported there but never filled, and why: their quantiles have no data.
EMPTY_OK = {
    "pathscope_firsthop_thread_wait_seconds": "veth has no IRQ: no NAPI thread wait is timed "
                                              "(test_firsthop; test_vm_firsthop_thread fills it)",
}
# Grafana's own variables: $__rate_interval, $__interval, $__range, ...
GLOBAL_VALUES = {"__rate_interval": "1m", "__interval": "15s", "__range": "5m",
                 "__interval_ms": "15000", "__range_s": "300"}
VAR_RE = re.compile(r"\$\{(\w+)(?::\w+)?\}|\$(\w+)|\[\[(\w+)\]\]")
METRIC_RE = re.compile(r"\bpathscope_[a-z0-9_]+")

failures = 0


def ok(name):
    print(f"ok - dashboard: {name}")


def fail(name, why):
    global failures
    failures += 1
    print(f"not ok - dashboard: {name}: {why}")


def check(name, cond, why):
    if cond:
        ok(name)
    else:
        fail(name, why)


def all_panels(dash):
    for p in dash.get("panels", []):
        yield p
        for q in p.get("panels", []) or []:
            yield q


def targets(dash):
    for p in all_panels(dash):
        for t in p.get("targets", []) or []:
            yield p, t


def base_metric(name):
    return re.sub(r"_(bucket|sum|count)$", "", name)


def golden_families(path):
    names, hists, per_queue = set(), set(), set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"# TYPE (\S+) (\S+)", line)
            if m:
                names.add(m.group(1))
                if m.group(2) == "histogram":
                    hists.add(m.group(1))
            m = re.match(r"(pathscope_[a-z0-9_]+)\{[^}]*\bqueue=", line)
            if m:
                per_queue.add(base_metric(m.group(1)))
    return names, hists, per_queue


BY_QUEUE_RE = re.compile(r"\bby \([^)]*\bqueue\b")
BY_RE = re.compile(r"\bby \(([^)]*)\)")
SELECTOR_RE = re.compile(r"\b(pathscope_[a-z0-9_]+)(\{[^}]*\})?")


def arms(expr):
    """The operands of the top-level 'or's of expr."""
    out, depth, start, i = [], 0, 0, 0
    while i < len(expr):
        c = expr[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == '"':
            i = expr.index('"', i + 1)
        elif depth == 0 and expr.startswith(" or ", i):
            out.append(expr[start:i].strip())
            start = i + 4
            i += 3
        i += 1
    out.append(expr[start:].strip())
    return out


def by_labels(expr):
    return {lb.strip() for g in BY_RE.findall(expr) for lb in g.split(",") if lb.strip()}


def arm_format(expr, hists):
    """classic if expr reads a histogram's _bucket/_sum/_count, native if it
    reads a histogram's own name, else None (or both: mixed)."""
    fmts = set()
    for m in METRIC_RE.findall(expr):
        if m in hists:
            fmts.add("native")
        elif base_metric(m) != m and base_metric(m) in hists:
            fmts.add("classic")
    return fmts.pop() if len(fmts) == 1 else ("mixed" if fmts else None)


def variables_used(text):
    return {a or b or c for a, b, c in VAR_RE.findall(text)}


def static(dash_path, golden_path, generator):
    with open(dash_path, encoding="utf-8") as f:
        text = f.read()
    try:
        dash = json.loads(text)
        ok("the JSON is well formed")
    except ValueError as e:
        fail("the JSON is well formed", str(e))
        return
    gen = subprocess.run([sys.executable, generator, "--stdout"], capture_output=True, text=True)
    check("the JSON is the output of packaging/grafana/gen-dashboard.py",
          gen.returncode == 0 and gen.stdout == text,
          "edit the generator and run it, not the JSON" if gen.returncode == 0 else gen.stderr)

    panels = list(all_panels(dash))
    ids = [p.get("id") for p in panels]
    dup = sorted({i for i in ids if ids.count(i) > 1 or i is None}, key=str)
    check(f"{len(ids)} panel ids, all unique", not dup, f"duplicated or missing: {dup}")

    bad_pos, cells = [], {}
    for p in panels:
        g = p.get("gridPos") or {}
        if not all(isinstance(g.get(k), int) for k in "hwxy") or g["x"] + g["w"] > 24 or g["w"] < 1:
            bad_pos.append(p.get("id"))
            continue
        for y in range(g["y"], g["y"] + g["h"]):
            for x in range(g["x"], g["x"] + g["w"]):
                if (x, y) in cells:
                    bad_pos.append((cells[(x, y)], p.get("id")))
                cells[(x, y)] = p.get("id")
    check("panels lie on the 24-column grid, none overlapping", not bad_pos, f"{bad_pos[:5]}")

    defined = {v.get("name") for v in dash.get("templating", {}).get("list", [])}
    used = {}
    strings = [(p.get("title", ""), p.get("id")) for p in panels]
    strings += [(json.dumps(p.get("datasource", "")), p.get("id")) for p in panels]
    for p, t in targets(dash):
        strings += [(t.get("expr", ""), p.get("id")), (json.dumps(t.get("datasource", "")), p.get("id"))]
    for v in dash.get("templating", {}).get("list", []):
        strings += [(json.dumps(v.get("query", "")), v.get("name")),
                    (json.dumps(v.get("datasource", "")), v.get("name"))]
    for s, where in strings:
        for name in variables_used(s):
            used.setdefault(name, set()).add(where)
    undefined = {n: sorted(w, key=str) for n, w in used.items()
                 if n not in defined and not n.startswith("__")}
    check(f"every variable used is defined ({', '.join(sorted(defined))})", not undefined,
          f"undefined: {undefined}")
    for need in ("instance", "iface", "queue"):
        check(f"variable {need} exists and is used", need in defined and need in used,
              "missing" if need not in defined else "never used")

    bad_t = []
    for p in panels:
        if p.get("type") == "row":
            continue
        ts = p.get("targets") or []
        refs = [t.get("refId") for t in ts]
        if not ts or len(set(refs)) != len(refs) or any(
                not t.get("expr") or not t.get("refId") or
                (t.get("datasource") or {}).get("uid") != "${datasource}" for t in ts):
            bad_t.append(p.get("id"))
    check("every panel has targets with an expr, a unique refId and the datasource variable",
          not bad_t, f"panels {bad_t}")

    names, hists, per_queue = golden_families(golden_path)
    exprs = [t.get("expr", "") for _, t in targets(dash)]
    exprs += [json.dumps(v.get("query", "")) for v in dash.get("templating", {}).get("list", [])]
    unknown = sorted({m for e in exprs for m in METRIC_RE.findall(e)
                      if base_metric(m) not in names and m not in names})
    check("every metric the queries name is in tests/golden/metrics.prom", not unknown,
          f"unknown: {unknown}")

    def quant_panel(p, h, by_queue):
        ts = p.get("targets", [])
        return p.get("type") == "timeseries" and all(
            any(f"histogram_quantile({q}," in t.get("expr", "") and h + "_bucket" in t.get("expr", "")
                and bool(BY_QUEUE_RE.search(t.get("expr", ""))) == by_queue for t in ts)
            for q in ("0.5", "0.99"))

    for h in sorted(hists):
        if not h.endswith("_seconds"):
            continue
        heat = any(p.get("type") == "heatmap" and any(h + "_bucket" in t.get("expr", "") and
                                                      'queue=~"$queue"' not in t.get("expr", "")
                                                      for t in p.get("targets", []))
                   for p in panels)
        quant = any(quant_panel(p, h, False) for p in panels)
        check(f"latency family {h}: a heatmap and a p50/p99 panel of the whole interface",
              heat and quant, f"heatmap {heat}, p50/p99 {quant}")
        if h in per_queue or h + "_bucket" in per_queue:
            continue  # per queue at every level: nothing to split
        with open(golden_path.replace("metrics.prom", "metrics-queue.prom"), encoding="utf-8") as f:
            queue_level = re.search(r"^" + h + r"_bucket\{[^}]*\bqueue=", f.read(), re.M)
        if queue_level:
            check(f"latency family {h}: a p50/p99 panel per queue", any(quant_panel(p, h, True) for p in panels),
                  "none")

    # Every query of a histogram's classic series has its native arm.
    no_native = []
    for p in panels:
        ts = p.get("targets") or []
        for t in ts:
            e = t.get("expr", "")
            if arm_format(e, hists) is None:
                continue
            parts = arms(e)
            fm = [arm_format(a, hists) for a in parts]
            where = f"panel {p.get('id')} {t.get('refId')}"
            if "mixed" in fm:
                no_native.append(f"{where}: an arm reads both formats")
                continue
            if p.get("type") == "heatmap":
                if fm == ["classic"]:
                    sels = SELECTOR_RE.findall(e)
                    want = [(base_metric(m), sel) for m, sel in sels]
                    if not any(arms(u.get("expr", "")) and arm_format(u.get("expr", ""), hists) == "native"
                               and SELECTOR_RE.findall(u.get("expr", "")) == want
                               and "le" not in by_labels(u.get("expr", "")) for u in ts):
                        no_native.append(f"{where}: no target of the native histogram with the same matchers")
                continue
            classic = [a for a, f in zip(parts, fm) if f == "classic"]
            native = [a for a, f in zip(parts, fm) if f == "native"]
            if len(classic) != 1 or len(native) != 1:
                no_native.append(f"{where}: {len(classic)} classic and {len(native)} native arms, not 1 and 1")
                continue
            c, n = classic[0], native[0]
            fn = re.match(r"histogram_quantile\(([0-9.]+),", c)
            want_fn = (f"histogram_quantile({fn.group(1)}," if fn else
                       "histogram_count(" if "_count" in c else "histogram_sum(" if "_sum" in c else None)
            want_sel = [(base_metric(m), sel) for m, sel in SELECTOR_RE.findall(c)]
            if (not want_fn or not n.startswith(want_fn) or SELECTOR_RE.findall(n) != want_sel
                    or by_labels(n) != by_labels(c) - {"le"}):
                no_native.append(f"{where}: the native arm of {c} is not {want_fn}...{want_sel} by "
                                 f"{sorted(by_labels(c) - {'le'})}: {n}")
    check("every query of a histogram's classic series has a native arm (serve --native-histograms): "
          "the same function, matchers and by labels", not no_native, "; ".join(no_native[:5]))

    for need, what in (("pathscope_packets_total", "packet rate"), ("pathscope_bytes_total", "bit rate"),
                       ("pathscope_ce_packets_total", "CE share"), ("pathscope_kernel_drops_total", "drops by reason"),
                       ("pathscope_segments_total", "GRO segments per skb"),
                       ("pathscope_bpf_run_seconds_total", "BPF cost per program")):
        check(f"a panel shows the {what}", any(need in e for e in exprs), f"no query has {need}")

    def splits_per_iface_family(e):
        if 'queue=~"$queue"' not in e and not BY_QUEUE_RE.search(e):
            return False
        return any(base_metric(m) in names and base_metric(m) not in per_queue
                   for m in METRIC_RE.findall(e))

    undocumented = [p.get("id") for p in panels
                    if any(splits_per_iface_family(t.get("expr", "")) for t in p.get("targets", []))
                    and "detail" not in p.get("description", "")]
    check("panels that split by queue what the default level exports per interface say they "
          "depend on the detail level", not undocumented, f"panels {undocumented}")


def substitute(expr, values):
    def repl(m):
        name = m.group(1) or m.group(2) or m.group(3)
        if name in values:
            return values[name]
        if name in GLOBAL_VALUES:
            return GLOBAL_VALUES[name]
        raise KeyError(name)
    return VAR_RE.sub(repl, expr)


def prom_query(url, expr):
    data = urllib.parse.urlencode({"query": expr}).encode()
    try:
        with urllib.request.urlopen(url + "/api/v1/query", data, timeout=10) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:
        try:
            return json.load(e)
        except ValueError:
            return {"status": "error", "error": f"HTTP {e.code}"}
    except OSError as e:
        return {"status": "error", "error": str(e)}


def finite_values(res):
    data = res.get("data", {})
    rtype, result = data.get("resultType"), data.get("result")
    if rtype == "scalar":
        values = [result[1]]
    elif rtype == "vector":
        # A native histogram's sample is {"histogram": [t, {"count": ...}]}:
        # its count stands for its value.
        values = [s["value"][1] if "value" in s else s["histogram"][1].get("count") for s in result]
    elif rtype == "matrix":
        values = [v[1] for s in result for v in s.get("values", [])]
        values += [h[1].get("count") for s in result for h in s.get("histograms", [])]
    else:
        values = []
    out = []
    for v in values:
        try:
            f = float(v)
        except (TypeError, ValueError):
            continue
        if math.isfinite(f):
            out.append(f)
    return out


def prom_regex(value):
    # Grafana escapes a selected value for a regex matcher; PromQL strings
    # then need each backslash doubled.
    return re.sub(r"([\\^$.|?*+()\[\]{}])", r"\\\\\1", value)


def per_queue_hist_panel(p):
    return any("_bucket" in t.get("expr", "") and BY_QUEUE_RE.search(t.get("expr", ""))
               for t in p.get("targets", []))


def live(dash_path, url, metrics_path, instance, iface, queue, level="interface", fmt="classic"):
    if fmt not in ("classic", "native"):
        sys.exit(f"FORMAT is classic or native, not {fmt}")
    other = "classic" if fmt == "native" else "native"
    with open(dash_path, encoding="utf-8") as f:
        dash = json.load(f)
    with open(metrics_path, encoding="utf-8") as f:
        text = f.read()
    hists = set(re.findall(r"^# TYPE (\S+) histogram$", text, re.M))
    exported = {base_metric(m.group(0)) for m in re.finditer(r"^pathscope_[a-z0-9_]+", text, re.M)}
    exported_pq = {base_metric(m.group(1)) for m in re.finditer(r"^(pathscope_[a-z0-9_]+)\{[^}]*\bqueue=", text, re.M)}

    def splits_per_iface(p):
        """A panel splitting or filtering by queue a family this exposition has per interface."""
        for t in p.get("targets", []):
            e = t.get("expr", "")
            if ('queue=~"$queue"' in e or BY_QUEUE_RE.search(e)) and any(
                    base_metric(m) in exported and base_metric(m) not in exported_pq for m in METRIC_RE.findall(e)):
                return True
        return False

    # The variables' own queries (label_values) against the series API.
    for v in dash.get("templating", {}).get("list", []):
        q = v.get("query")
        if v.get("type") != "query":
            continue
        q = q.get("query") if isinstance(q, dict) else q
        m = re.match(r"label_values\((.*),\s*(\w+)\)$", q or "")
        if not m:
            fail(f"variable {v['name']}", f"not label_values(SELECTOR, LABEL): {q}")
            continue
        sel = substitute(m.group(1), {"instance": ".*", "iface": ".*", "queue": ".*", "datasource": ""})
        res = prom_query(url, f"count by ({m.group(2)}) ({sel})")
        got = sorted(s["metric"].get(m.group(2), "") for s in res.get("data", {}).get("result", []))
        want = {"instance": instance, "iface": iface, "queue": queue}.get(v["name"])
        check(f"variable {v['name']}: {q} offers '{want}'", res.get("status") == "success" and want in got,
              f"{res.get('error', '')} got {got}")

    runs = [
        ("All", {"instance": ".*", "iface": ".*", "queue": ".*"}, True),
        (f"instance {instance}, iface {iface}",
         {"instance": prom_regex(instance), "iface": prom_regex(iface), "queue": ".*"}, "level"),
        (f"queue {queue} too",
         {"instance": prom_regex(instance), "iface": prom_regex(iface), "queue": prom_regex(queue)}, False),
    ]
    for label, values, need_data in runs:
        values = dict(values, datasource="")
        if fmt == "native":
            label = f"native histograms, {label}"
        for p, t in targets(dash):
            name = f"[{label}] panel {p['id']} '{p.get('title')}' {t.get('refId')}"
            try:
                expr = substitute(t["expr"], values)
            except KeyError as e:
                fail(name, f"undefined variable {e}")
                continue
            res = prom_query(url, expr)
            if res.get("status") != "success":
                fail(name, f"{res.get('errorType', '')}: {res.get('error', '')} in {expr}")
                continue
            result = res["data"].get("result", [])
            if isinstance(result, list) and result and isinstance(result[0], dict):
                labelsets = [tuple(sorted(r.get("metric", {}).items())) for r in result]
                allowed = by_labels(expr) if BY_RE.search(expr) else None
                stray = sorted({k for ls in labelsets for k, _ in ls} - allowed) if allowed is not None else []
                if len(set(labelsets)) != len(labelsets) or stray:
                    fail(name, f"series twice or labels outside its by clauses {stray}: {labelsets[:4]}")
                    continue
            fm = [arm_format(a, hists) for a in arms(expr)]
            selected = values["instance"] != ".*"
            sibling = any(fmt in [arm_format(a, hists) for a in arms(u.get("expr", ""))]
                          for u in p.get("targets", []) if u is not t)
            if fm and all(f == other for f in fm) and sibling:
                # A target of the other format only, beside one of FORMAT (a
                # heatmap's): at All it may see other instances; with
                # INSTANCE selected nothing.
                if selected:
                    check(name + f": parses; no series ({instance} stores {fmt} histograms)", not result,
                          f"{len(result)} series from {expr}")
                else:
                    ok(name + f": parses (reads {other} histograms only)")
                continue
            if selected and other in fm:
                # The arm of the other format: nothing, so the data is this one's.
                o = [a for a, f in zip(arms(expr), fm) if f == other]
                ores = prom_query(url, " or ".join(o))
                if ores.get("status") != "success" or ores["data"].get("result"):
                    fail(name, f"the {other} arm has series ({instance} stores {fmt} histograms): "
                               f"{ores.get('error') or ores['data'].get('result', [])[:2]}")
                    continue
            if not need_data:
                ok(name + ": parses")
                continue
            if need_data == "level" and level == "interface" and splits_per_iface(p):
                queues = {r["metric"].get("queue", "") for r in res["data"].get("result", [])}
                check(name + ": per-interface data or none (needs per-queue detail; --detail interface)",
                      queues <= {""}, f"series per queue {sorted(queues)}")
                continue
            if finite_values(res) and need_data == "level" and per_queue_hist_panel(p):
                queues = {r["metric"].get("queue", "") for r in res["data"].get("result", [])}
                check(name + f": returns data, series per queue (--detail {level})", "" not in queues,
                      f"queues {sorted(queues)}")
                continue
            if finite_values(res):
                ok(name + ": parses and returns data")
                continue
            absent = sorted({base_metric(m) for m in METRIC_RE.findall(expr)} - exported)
            excused = [a for a in absent if a in ABSENT_OK]
            if absent and len(excused) == len(absent):
                ok(name + f": parses; no data: {', '.join(f'{a} absent ({ABSENT_OK[a]})' for a in absent)}")
            elif absent:
                fail(name, f"no data: {', '.join(absent)} not exported by serve")
            elif {base_metric(m) for m in METRIC_RE.findall(expr)} <= set(EMPTY_OK):
                empty = sorted({base_metric(m) for m in METRIC_RE.findall(expr)})
                ok(name + f": parses; no data: {', '.join(f'{e} empty ({EMPTY_OK[e]})' for e in empty)}")
            else:
                fail(name, f"no data from {expr}")


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "static":
        static(*sys.argv[2:])
    elif len(sys.argv) in (8, 9, 10) and sys.argv[1] == "live":
        live(*sys.argv[2:])
    else:
        sys.exit(__doc__)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
