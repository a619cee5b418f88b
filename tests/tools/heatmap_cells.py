#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The cells of a heatmap, read two ways, to compare: from a recording of
pathscope's JSON reports (each interval's histogram is the difference of two
consecutive reports, computed here, not by pathscope), and from the SVG that
pathscope heatmap drew (its cells' data attributes). And the PNG that a
browser rendered of that SVG, against the SVG.

Usage:
  heatmap_cells.py recording REC STAGE [IFACE] [--whole]
        "QUEUE INTERVAL LOW COUNT" per non-empty cell, sorted
  heatmap_cells.py svg SVG
        the same from the SVG's <rect class="cell"> elements
  heatmap_cells.py png SVG PNG
        the PNG is the SVG's size; every cell's centre pixel has the cell's
        colour, and the same row of every other interval without a cell has
        the panel's background: one line per problem, "ok N" if none
"""
import json
import sys
import xml.etree.ElementTree as ET

# Where each stage's histogram is in a queue object (pathscope-json(7)).
PATHS = {
    "driver_to_stack": [("driver_to_stack", "latency_ns")],
    "socket_read": [("socket", "tcp", "latency_ns"), ("socket", "udp", "latency_ns")],
    "qdisc_sojourn": [("tx_latency", "sojourn_ns")],
    "tx_completion": [("tx_latency", "completion_ns")],
    "icmp_rtt": [("icmp_echo", "rtt_ns")],
    "icmp_response": [("icmp_echo", "response_ns")],
    "tcp_rtt": [("tcp", "rtt_ns")],
    "tcp_handshake": [("tcp", "handshake_ns")],
    "tcp_response": [("tcp", "response_data_ns")],
    "tcp_ack_delay": [("tcp", "ack_delay_ns")],
}
SVG = "{http://www.w3.org/2000/svg}"
BACKGROUND = (0xF4, 0xF4, 0xF4)


def hist(obj, stage):
    out = {}
    for path in PATHS[stage]:
        o = obj
        for key in path:
            o = o.get(key) if isinstance(o, dict) else None
        for b in (o or {}).get("hist", []):
            out[b["low"]] = out.get(b["low"], 0) + b["count"]
    return out


def recording(path, stage, ifname, whole):
    prev, cells, t = None, [], 0
    for line in open(path):
        if not line.strip():
            continue
        doc = json.loads(line)
        ifaces = [i for i in doc["interfaces"] if ifname in (None, i["ifname"])]
        if not ifaces:
            continue
        i = ifaces[0]
        if whole:
            cur = {"all": hist(i["totals"], stage)}
        else:
            cur = {str(q["queue"]): hist(q, stage) for q in i["queues"]}
        if prev is not None:
            for q, h in cur.items():
                for low, c in h.items():
                    d = c - prev.get(q, {}).get(low, 0)
                    if d:
                        cells.append((q, t, low, d))
            t += 1
        prev = cur
    return cells


def svg_cells(path):
    root = ET.parse(path).getroot()
    out = []
    for r in root.iter(SVG + "rect"):
        if r.get("class") == "cell":
            out.append((r.get("data-queue"), int(r.get("data-interval")),
                        int(r.get("data-low")), int(r.get("data-count")), r))
    return root, out


def colour(hexrgb):
    return tuple(int(hexrgb[i:i + 2], 16) for i in (1, 3, 5))


def near(a, b, tol=12):
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def png(svg_path, png_path):
    from PIL import Image  # python3-pil

    root, cells = svg_cells(svg_path)
    img = Image.open(png_path).convert("RGB")
    want = (int(float(root.get("width"))), int(float(root.get("height"))))
    problems = []
    if img.size != want:
        problems.append(f"PNG is {img.size[0]}x{img.size[1]}, the SVG {want[0]}x{want[1]}")
        return problems, 0
    checked = 0
    # Per queue: the cells' rows (y) and each interval's column (x, width).
    rows, cols, have = {}, {}, set()
    for q, t, low, _, r in cells:
        x, y = float(r.get("x")), float(r.get("y"))
        w, h = float(r.get("width")), float(r.get("height"))
        rows.setdefault(q, {})[low] = (y, h)
        cols.setdefault(q, {})[t] = (x, w)
        have.add((q, t, low))
        px = img.getpixel((int(x + w / 2), int(y + h / 2)))
        checked += 1
        if not near(px, colour(r.get("fill"))):
            problems.append(f"queue {q} interval {t} bucket {low}: pixel {px}, fill {r.get('fill')}")
    for q in rows:
        for low, (y, h) in rows[q].items():
            for t, (x, w) in cols[q].items():
                if (q, t, low) in have:
                    continue
                px = img.getpixel((int(x + w / 2), int(y + h / 2)))
                checked += 1
                if not near(px, BACKGROUND, 2):
                    problems.append(f"queue {q} interval {t} bucket {low}: no cell, but pixel {px}")
    return problems, checked


def main():
    a = sys.argv[1:]
    if len(a) >= 3 and a[0] == "recording":
        whole = "--whole" in a
        rest = [x for x in a[1:] if x != "--whole"]
        cells = recording(rest[0], rest[1], rest[2] if len(rest) > 2 else None, whole)
    elif len(a) == 2 and a[0] == "svg":
        cells = [c[:4] for c in svg_cells(a[1])[1]]
    elif len(a) == 3 and a[0] == "png":
        problems, checked = png(a[1], a[2])
        print("\n".join(problems) if problems else f"ok {checked}")
        sys.exit(1 if problems else 0)
    else:
        sys.exit(__doc__)
    for c in sorted(cells, key=lambda c: (c[0], c[1], c[2])):
        print(*c)


if __name__ == "__main__":
    main()
