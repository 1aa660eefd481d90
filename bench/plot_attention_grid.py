# The attention bench grid as a picture for the README: samebits' time over cuDNN's per point of
# attention_grid.py's JSON, one row per (mode, causal, B, GQA) and one column per length, as SVG.
"""Usage: python3 bench/plot_attention_grid.py GRID.json OUT.svg

Each cell holds samebits' time over cuDNN's at that point (lower is better; 1.00 is cuDNN's
speed), coloured from green (at most 1.1) through yellow to red (2.5 and above); an empty cell is a
point the grid left out (too many tokens) or that cuDNN refused. Standard library only.
"""
import json
import sys
from xml.sax.saxutils import escape

CELL_W, CELL_H, LABEL_W, HEAD_H = 72, 20, 230, 46


def colour(ratio):
    """Green at 1.1 or below, yellow at 1.8, red at 2.5 or above (linear in between)."""
    t = min(max((ratio - 1.1) / (2.5 - 1.1), 0.0), 1.0)
    if t < 0.5:
        r, g = int(80 + 350 * t), 190
    else:
        r, g = 255, int(190 - 300 * (t - 0.5))
    return f"rgb({min(r, 255)},{max(g, 40)},70)"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    grid = json.load(open(sys.argv[1]))
    rows = grid["rows"]
    lengths = sorted({r["L"] for r in rows})
    keys = sorted({(r["mode"], r["mode"] == "prefill" and not r["causal"], r["B"], r["gqa"])
                   for r in rows})
    at = {(r["mode"], r["mode"] == "prefill" and not r["causal"], r["B"], r["gqa"], r["L"]): r
          for r in rows}
    width = LABEL_W + CELL_W * len(lengths) + 10
    height = HEAD_H + CELL_H * len(keys) + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="12">',
           f'<text x="4" y="16" font-weight="bold">{escape(grid.get("device", ""))}: samebits time '
           f'/ cuDNN time (bf16, d = {rows[0]["d"]}, H = 32)</text>',
           f'<text x="{LABEL_W - 8}" y="{HEAD_H - 8}" text-anchor="end">keys per sequence</text>']
    for c, length in enumerate(lengths):
        x = LABEL_W + c * CELL_W + CELL_W / 2
        label = f"{length // 1024}k" if length >= 1024 else str(length)
        out.append(f'<text x="{x}" y="{HEAD_H - 8}" text-anchor="middle">{label}</text>')
    for i, (mode, full, b, gqa) in enumerate(keys):
        y = HEAD_H + i * CELL_H
        what = f"{mode}{' full' if full else (' causal' if mode == 'prefill' else '')}"
        out.append(f'<text x="{LABEL_W - 8}" y="{y + 14}" text-anchor="end">{what}, B={b}, '
                   f'H/Hkv = {gqa}</text>')
        for c, length in enumerate(lengths):
            r = at.get((mode, full, b, gqa, length))
            if not r or not r.get("over_cudnn"):
                continue
            x = LABEL_W + c * CELL_W
            ratio = r["over_cudnn"]
            out.append(f'<rect x="{x}" y="{y}" width="{CELL_W - 2}" height="{CELL_H - 2}" '
                       f'fill="{colour(ratio)}"/>')
            out.append(f'<text x="{x + CELL_W / 2 - 1}" y="{y + 14}" text-anchor="middle">'
                       f'{ratio:.2f}</text>')
    out.append(f'<text x="4" y="{height - 10}">{escape(grid.get("command", ""))}; green: at most '
               f'1.1x, red: 2.5x and above</text>')
    out.append("</svg>")
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
