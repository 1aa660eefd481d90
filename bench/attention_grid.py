# The attention bench grid (issue 32): named axes expanded by one generator, each point timed as an
# engine calls it (CUDA events around one call, host work included) against cuDNN and flash.
"""samebits attention over a grid of shapes against ATen's SDPA backends, in the same process.

Axes (--axis NAME=v1,v2 narrows one): mode (decode: one new token per sequence appended to a paged
cache through attention_with_kvcache, as engines call it; prefill: dense causal or full attention
through attention), B, L (keys per sequence), gqa (H / Hkv with H = 32), d, causal (prefill only).
Points past --max-tokens (decode) or --max-prefill-tokens (B * L) are left out. Every point prints one row: samebits' and each ATen
backend's median time, samebits over cuDNN and over the best ATen backend, the bar where the issue
sets one, and for decode the HBM bandwidth samebits reached (K and V read once: B * L * Hkv * d * 4
bytes). --out writes the rows as versioned JSON.
"""
import argparse
import itertools
import json

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from indexer_loop import median_us  # the CUDA-event timing the other Python benches use

SCHEMA = {"schema": "samebits.bench.attention_grid", "schema_version": "1.0.0"}
AXES = {
    "mode": ["decode", "prefill"],
    "B": [1, 8, 32, 128],
    "L": [512, 2048, 8192, 32768, 131072],
    "gqa": [1, 4, 8],
    "d": [64, 128],
    "causal": [True, False],
}
HEADS = 32
PAGE = 64
# Issue 32's bars: samebits over cuDNN at most this (decode) or cuDNN over samebits at least this
# (prefill, as a share of cuDNN's throughput), at the shapes it names (H = 32, d = 128).
DECODE_BARS = {(32, 8192, 4): 1.1, (128, 2048, 4): 1.1, (8, 131072, 4): 1.1, (1, 32768, 4): 1.3}
PREFILL_BARS = {(4, 4096, 1, True): 0.75, (16, 1024, 4, True): 0.70, (1, 16384, 4, True): 0.85}
BACKENDS = [("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION)]


def median_ms(fn, reps):
    return median_us(fn, reps) / 1000.0


def points(axes, max_tokens, max_prefill_tokens):
    names = list(axes)
    for values in itertools.product(*(axes[n] for n in names)):
        p = dict(zip(names, values))
        if p["B"] * p["L"] > (max_tokens if p["mode"] == "decode" else max_prefill_tokens):
            continue
        if p["mode"] == "decode" and not p["causal"]:
            continue  # one query sees every key: causal or not is the same call
        if p["mode"] == "prefill" and p["L"] > 32768:
            continue
        yield p


def bar_points():
    """The shapes issue 32 sets a bar at (d = 128), whatever the axes."""
    for b, length, gqa in DECODE_BARS:
        yield dict(mode="decode", B=b, L=length, gqa=gqa, d=128, causal=True)
    for b, length, gqa, causal in PREFILL_BARS:
        yield dict(mode="prefill", B=b, L=length, gqa=gqa, d=128, causal=causal)


def aten_times(q, k, v, causal, reps):
    out = {}
    for name, backend in BACKENDS:
        try:
            with sdpa_kernel(backend):
                out[name] = median_ms(lambda: F.scaled_dot_product_attention(
                    q, k, v, is_causal=causal, enable_gqa=q.size(1) != k.size(1)), reps)
        except RuntimeError as e:
            out[name] = "refused: " + str(e).splitlines()[0][:60]
    return out


def paged_decode(p, gen, device="cuda"):
    """A decode point's dense q, k, v (ATen's inputs) and samebits' call over the same keys in a
    paged cache, pages handed out in a shuffled order; the last key of each sequence arrives as
    k_new / v_new (written in place, the same value every call)."""
    b, length, hkv, d = p["B"], p["L"], HEADS // p["gqa"], p["d"]
    bf = dict(device=device, dtype=torch.bfloat16)
    k = torch.randn(b, hkv, length, d, generator=gen, **bf)
    v = torch.randn(b, hkv, length, d, generator=gen, **bf)
    q = torch.randn(b, HEADS, 1, d, generator=gen, **bf)
    per_seq = -(-length // PAGE)
    pages = b * per_seq
    table = torch.randperm(pages, generator=torch.Generator().manual_seed(3)).to(
        device=device, dtype=torch.int32).view(b, per_seq)
    k_cache = torch.zeros(pages, PAGE, hkv, d, **bf)
    v_cache = torch.zeros(pages, PAGE, hkv, d, **bf)
    padded = per_seq * PAGE
    for src, cache in ((k, k_cache), (v, v_cache)):
        rows = torch.zeros(b, padded, hkv, d, **bf)
        rows[:, :length] = src.transpose(1, 2)
        cache[table.view(-1).long()] = rows.view(pages, PAGE, hkv, d)
    q_packed = q.view(b, HEADS, d).contiguous()
    k_new = k[:, :, -1].contiguous()
    v_new = v[:, :, -1].contiguous()
    cached = torch.full((b,), length - 1, device=device, dtype=torch.long)
    offsets = torch.arange(b + 1, device=device)

    def call():
        return torch.ops.samebits.attention_with_kvcache(q_packed, k_cache, v_cache, table, cached,
                                                         offsets, k_new, v_new, 1, True, None,
                                                         length)

    return (q, k, v), call


def decode_point(p, reps, gen):
    b, length, hkv, d = p["B"], p["L"], HEADS // p["gqa"], p["d"]
    (q, k, v), call = paged_decode(p, gen)
    aten = aten_times(q, k, v, False, reps)
    mine = median_ms(call, reps)
    row = timing_row(p, mine, aten, DECODE_BARS.get((b, length, p["gqa"])) if d == 128 else None,
                     lower_is_bar=True)
    row["samebits_hbm_tb_s"] = b * length * hkv * d * 4 / (mine * 1e-3) / 1e12
    return row


def prefill_point(p, reps, gen):
    b, length, hkv, d, causal = p["B"], p["L"], HEADS // p["gqa"], p["d"], p["causal"]
    bf = dict(device="cuda", dtype=torch.bfloat16)
    q = torch.randn(b, HEADS, length, d, generator=gen, **bf)
    k = torch.randn(b, hkv, length, d, generator=gen, **bf)
    v = torch.randn(b, hkv, length, d, generator=gen, **bf)
    aten = aten_times(q, k, v, causal, reps)
    mine = median_ms(lambda: torch.ops.samebits.attention(q, k, v, causal), reps)
    bar = PREFILL_BARS.get((b, length, p["gqa"], causal)) if d == 128 else None
    row = timing_row(p, mine, aten, bar, lower_is_bar=False)
    flops = 4 * b * HEADS * length * length * d / (2 if causal else 1)
    row["samebits_tflops"] = flops / (mine * 1e-3) / 1e12
    return row


def timing_row(p, mine, aten, bar, lower_is_bar):
    numbers = {k: t for k, t in aten.items() if isinstance(t, float)}
    cudnn = numbers.get("cudnn")
    best = min(numbers.values()) if numbers else None
    row = dict(p, samebits_ms=mine, aten_ms=aten,
               over_cudnn=mine / cudnn if cudnn else None,
               over_best=mine / best if best else None)
    if bar is not None and cudnn:
        # decode: samebits / cuDNN <= bar; prefill: cuDNN / samebits (a share of its speed) >= bar
        row["bar"] = {"kind": "time over cuDNN at most" if lower_is_bar else "share of cuDNN at least",
                      "value": bar}
        row["meets_bar"] = (mine / cudnn <= bar) if lower_is_bar else (cudnn / mine >= bar)
    return row


def show(row):
    aten = " ".join(f"{k} {t:.3f}" if isinstance(t, float) else f"{k} {t}"
                    for k, t in row["aten_ms"].items())
    axes = " ".join(f"{n}={row[n]}" for n in AXES if n in row)
    extra = f" {row['samebits_hbm_tb_s']:.2f} TB/s" if "samebits_hbm_tb_s" in row else \
        f" {row.get('samebits_tflops', 0):.0f} TFLOP/s"
    ratio = f"{row['over_cudnn']:.2f}x cuDNN" if row["over_cudnn"] else "no cuDNN"
    bar = ""
    if "bar" in row:
        bar = f" [bar {row['bar']['value']}: {'met' if row['meets_bar'] else 'MISSED'}]"
    print(f"{axes}: samebits {row['samebits_ms']:.3f} ms ({ratio},{extra}){bar}; {aten}", flush=True)


def narrowed_axes(ap, specs, all_axes):
    """all_axes with each --axis NAME=v1,v2 in specs narrowing one (values read as that axis's
    type); an unknown axis is a usage error naming the axes."""
    axes = dict(all_axes)
    for spec in specs:
        name, _, values = spec.partition("=")
        if name not in axes:
            ap.error(f"--axis {spec}: no axis {name!r}; the axes are {', '.join(all_axes)}")
        kind = type(all_axes[name][0])
        axes[name] = [v == "true" if kind is bool else kind(v) for v in values.split(",")]
    return axes


def grid_parser(doc, bars_help, reps):
    """The arguments every attention grid takes: --lib, --axis, --bars, --reps and --out."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", required=True, help="libsamebits_torch_ops.so")
    ap.add_argument("--axis", action="append", default=[],
                    help="NAME=v1,v2: only these values of one axis (repeatable)")
    ap.add_argument("--bars", action="store_true", help=bars_help)
    ap.add_argument("--reps", type=int, default=reps)
    ap.add_argument("--out", help="write the rows here as versioned JSON")
    return ap


def write_rows(path, schema, script, a, rows):
    """The rows as versioned JSON, with the device, torch and the command that made them."""
    command = [script] + (["--bars"] if a.bars else []) + [f"--axis {s}" for s in a.axis]
    with open(path, "w") as f:
        json.dump(dict(schema, device=torch.cuda.get_device_name(), torch=torch.__version__,
                       command=" ".join(command), rows=rows), f, indent=1)


def run_rows(thunks, show_row):
    """Each thunk's row, shown as it comes, with the allocator's cache emptied between points."""
    rows = []
    for run in thunks:
        row = run()
        show_row(row)
        rows.append(row)
        torch.cuda.empty_cache()
    return rows


def main():
    ap = grid_parser(__doc__, "only the points the issue sets a bar at", 20)
    ap.add_argument("--max-tokens", type=int, default=1 << 20)
    ap.add_argument("--max-prefill-tokens", type=int, default=1 << 16)
    a = ap.parse_args()
    torch.ops.load_library(a.lib)
    axes = narrowed_axes(ap, a.axis, AXES)
    gen = torch.Generator(device="cuda").manual_seed(1)
    chosen = bar_points() if a.bars else points(axes, a.max_tokens, a.max_prefill_tokens)
    rows = run_rows([lambda p=p: (decode_point if p["mode"] == "decode" else prefill_point)(
        p, a.reps, gen) for p in chosen], show)
    if a.out:
        write_rows(a.out, SCHEMA, "attention_grid.py", a, rows)


if __name__ == "__main__":
    main()
