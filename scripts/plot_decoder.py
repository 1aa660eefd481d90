#!/usr/bin/env python3
"""Completions differing against batch size, one line per op mix, from a decoder bench JSON
(samebits_bench --only decoder --out ...), as a hand-written SVG (no plotting library needed).

Batch 1 is each prompt served alone, the reference, so every mix has 0 there by definition; batches
8 and 32 are read from each row's check ("batch 8: 17 of 32 completions differ, ...").

  scripts/plot_decoder.py [bench/results-h100-2026-11-27-decoder.json] [-o docs/decoder-invariance.svg]
"""
import argparse
import json
import math
import re
from html import escape

# What each mix takes from where (the README's table says the same at length).
LABELS = {
    "aten": "aten: every op from ATen",
    "samebits.attention": "samebits.attention: samebits attention, the rest ATen",
    "samebits.except_linear": "samebits.except_linear: all samebits but cuBLAS linear",
    "samebits": "samebits: every op from samebits",
}
COLORS = ["#d62728", "#ff7f0e", "#9467bd", "#2ca02c", "#1f77b4", "#8c564b"]
MARKERS = ["circle", "square", "diamond", "triangle", "circle", "square"]


def series(path):
    with open(path) as f:
        doc = json.load(f)
    out = []
    total = None
    for r in doc["results"]:
        if r.get("family") != "decoder":
            continue
        found = re.findall(r"batch (\d+): (\d+) of (\d+) completions differ", r.get("check", ""))
        if not found:
            continue
        points = [(1, 0)] + [(int(b), int(d)) for b, d, _ in found]
        total = int(found[0][2])
        out.append((r["case"].split(" ")[0], points))
    if not out:
        raise SystemExit(f"{path}: no decoder rows with 'batch B: D of N completions differ'")
    device = doc.get("environment", {}).get("gpu", {}).get("name") or \
        doc.get("environment", {}).get("device", "")
    date = doc.get("created", "")[:10]
    return out, total, device, date


def marker(kind, x, y, color):
    if kind == "square":
        return f'<rect x="{x - 4.5:.1f}" y="{y - 4.5:.1f}" width="9" height="9" fill="{color}"/>'
    if kind == "diamond":
        return (f'<polygon points="{x:.1f},{y - 6:.1f} {x + 6:.1f},{y:.1f} {x:.1f},{y + 6:.1f} '
                f'{x - 6:.1f},{y:.1f}" fill="{color}"/>')
    if kind == "triangle":
        return (f'<polygon points="{x:.1f},{y - 6:.1f} {x + 5.5:.1f},{y + 4:.1f} '
                f'{x - 5.5:.1f},{y + 4:.1f}" fill="{color}"/>')
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="{color}"/>'


def render(mixes, total, device, date):
    width, height = 760, 420
    left, right, top, bottom = 70, 330, 60, 60  # the legend sits right of the plot
    pw, ph = width - left - right, height - top - bottom
    batches = sorted({b for _, pts in mixes for b, _ in pts})
    lo, hi = math.log2(min(batches)), math.log2(max(batches))
    xs = lambda b: left + (math.log2(b) - lo) / ((hi - lo) or 1) * pw
    ymax = total or max(d for _, pts in mixes for _, d in pts) or 1
    ys = lambda d: top + ph - d / ymax * ph
    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
         f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="13">',
         f'<rect width="{width}" height="{height}" fill="white"/>']
    title = f"Decoder: completions that differ from the prompt served alone ({total} prompts)"
    s.append(f'<text x="{width / 2:.0f}" y="26" text-anchor="middle" font-size="16" '
             f'font-weight="bold">{escape(title)}</text>')
    sub = ", ".join(p for p in (device, date) if p)
    if sub:
        s.append(f'<text x="{width / 2:.0f}" y="44" text-anchor="middle" fill="#555">'
                 f'{escape(sub)}; greedy, 32 tokens each</text>')
    step = 4 if ymax <= 40 else max(1, round(ymax / 8))
    for d in range(0, ymax + 1, step):
        y = ys(d)
        s.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" stroke="#e5e5e5"/>')
        s.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end">{d}</text>')
    for b in batches:
        x = xs(b)
        s.append(f'<line x1="{x:.1f}" y1="{top + ph}" x2="{x:.1f}" y2="{top + ph + 5}" stroke="#333"/>')
        s.append(f'<text x="{x:.1f}" y="{top + ph + 20}" text-anchor="middle">{b}</text>')
    s.append(f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="#333"/>')
    s.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="#333"/>')
    s.append(f'<text x="{left + pw / 2:.0f}" y="{height - 16}" text-anchor="middle">'
             f'batch size (prompts served together; 1 = alone)</text>')
    s.append(f'<text transform="translate(20 {top + ph / 2:.0f}) rotate(-90)" text-anchor="middle">'
             f'completions that differ (of {total})</text>')
    for i, (name, pts) in enumerate(mixes):
        color, kind = COLORS[i % len(COLORS)], MARKERS[i % len(MARKERS)]
        path = " ".join(f"{xs(b):.1f},{ys(d):.1f}" for b, d in pts)
        dash = ' stroke-dasharray="6 4"' if all(d == 0 for _, d in pts) else ""
        s.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2.5"{dash}/>')
        s.extend(marker(kind, xs(b), ys(d), color) for b, d in pts)
        ly = top + 10 + i * 40
        lx = left + pw + 24
        s.append(f'<line x1="{lx}" y1="{ly}" x2="{lx + 26}" y2="{ly}" stroke="{color}" '
                 f'stroke-width="2.5"{dash}/>')
        s.append(marker(kind, lx + 13, ly, color))
        label = LABELS.get(name, name)
        head, _, rest = label.partition(": ")
        last = pts[-1]
        s.append(f'<text x="{lx + 34}" y="{ly + 4}" font-weight="bold">{escape(head)}'
                 f'<tspan font-weight="normal" fill="#555"> ({last[1]} at {last[0]})</tspan></text>')
        if rest:
            s.append(f'<text x="{lx + 34}" y="{ly + 20}" fill="#555" font-size="12">{escape(rest)}</text>')
    s.append("</svg>")
    return "\n".join(s) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", nargs="?", default="bench/results-h100-2026-11-27-decoder.json")
    parser.add_argument("-o", "--out", default="docs/decoder-invariance.svg")
    args = parser.parse_args()
    mixes, total, device, date = series(args.json)
    with open(args.out, "w") as f:
        f.write(render(mixes, total, device, date))
    for name, pts in mixes:
        print(f"{name:<24} " + "  ".join(f"B={b}: {d}" for b, d in pts))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
