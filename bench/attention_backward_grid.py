# The attention backward over a grid of shapes (issue 31): named axes expanded by one generator,
# samebits' backward against ATen's SDPA backward backends in the same process, with peak memory.
"""samebits' attention backward over a grid of shapes against cuDNN's and flash's.

Axes (--axis NAME=v1,v2 narrows one): B, L (tokens per sequence), gqa (H / Hkv with H = 32), d,
causal. Points past --max-tokens (B * L) are left out. --bars runs only the points issue 31 names:
causal B=4 L=4096 d=128 (the bar: samebits' throughput at least half the fastest ATen backward's)
and the variable-length batch (lengths 100 to 8192 drawn with a fixed seed, 32k tokens in all,
GQA 32/8), where samebits runs attention_varlen_backward on the packed batch and ATen its padded
batch (padding after each sequence's last token, which a causal mask keeps out of every real row).
Every point prints one row: each side's median time and peak memory above the inputs, the useful
TFLOP/s (5 matmuls over the real tokens, half under a causal mask), and samebits' throughput as a
share of the fastest ATen backend's. --out writes the rows as versioned JSON.
"""
import itertools
import json
import random

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from attention_backward_speed import peak_mb
from attention_grid import grid_parser, narrowed_axes, run_rows, write_rows
from indexer_loop import median_us

SCHEMA = {"schema": "samebits.bench.attention_backward_grid", "schema_version": "1.0.0"}
AXES = {
    "B": [1, 4, 16],
    "L": [1024, 4096, 16384],
    "gqa": [1, 4, 8],
    "d": [64, 128],
    "causal": [True, False],
}
HEADS = 32
BAR = 0.5  # issue 31: samebits' throughput at least this share of the fastest ATen backward's
BACKENDS = [("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION)]


def points(axes, max_tokens):
    names = list(axes)
    for values in itertools.product(*(axes[n] for n in names)):
        p = dict(zip(names, values))
        if p["B"] * p["L"] <= max_tokens:
            yield p


def varlen_lengths(total=32768, low=100, high=8192, seed=31):
    """Lengths in [low, high] drawn with a fixed seed until `total` tokens (the last one takes the
    rest, or joins the one before when the rest is under `low`)."""
    rng, lengths = random.Random(seed), []
    while sum(lengths) < total:
        rest = total - sum(lengths)
        n = rng.randint(low, high)
        if rest - n < low:
            n = rest
        lengths.append(n)
    return lengths


def flops(lengths, d, causal):
    """5 matmuls of H * L^2 * d multiply-adds per sequence, half of them under a causal mask."""
    return sum(5 * 2 * HEADS * n * n * d / (2 if causal else 1) for n in lengths)


def aten_backward(q, k, v, dout, causal, reps):
    """Median time and peak memory of each ATen backend's backward (refusals as strings)."""
    times, peaks = {}, {}
    for name, backend in BACKENDS:
        try:
            with sdpa_kernel(backend):
                qq, kk, vv = (x.detach().requires_grad_() for x in (q, k, v))
                out = F.scaled_dot_product_attention(qq, kk, vv, is_causal=causal,
                                                     enable_gqa=q.size(1) != k.size(1))
                grad = lambda: torch.autograd.grad(out, (qq, kk, vv), dout, retain_graph=True)
                times[name] = median_us(grad, reps) / 1000.0
                peaks[name] = peak_mb(grad)
                del out
        except RuntimeError as e:
            times[name] = "refused: " + str(e).splitlines()[0][:60]
    return times, peaks


def row_of(p, mine_ms, mine_mb, aten_ms, aten_mb, useful_flops, bar=False):
    numbers = {k: t for k, t in aten_ms.items() if isinstance(t, float)}
    best = min(numbers.values()) if numbers else None
    row = dict(p, samebits_ms=mine_ms, samebits_peak_mb=mine_mb, aten_ms=aten_ms,
               aten_peak_mb=aten_mb, samebits_tflops=useful_flops / mine_ms / 1e9,
               share_of_best=best / mine_ms if best else None)
    if bar:
        row["bar"] = {"kind": "share of the fastest ATen backward's throughput at least",
                      "value": BAR}
        row["meets_bar"] = row["share_of_best"] is not None and row["share_of_best"] >= BAR
    return row


def dense_point(p, reps, gen, bar=False):
    b, length, hkv, d, causal = p["B"], p["L"], HEADS // p["gqa"], p["d"], p["causal"]
    bf = dict(device="cuda", dtype=torch.bfloat16)
    q = torch.randn(b, HEADS, length, d, generator=gen, **bf)
    k = torch.randn(b, hkv, length, d, generator=gen, **bf)
    v = torch.randn(b, hkv, length, d, generator=gen, **bf)
    dout = torch.randn(b, HEADS, length, d, generator=gen, **bf)
    aten_ms, aten_mb = aten_backward(q, k, v, dout, causal, reps)
    out, lse = torch.ops.samebits.attention(q, k, v, causal)
    mine = lambda: torch.ops.samebits.attention_backward(dout, q, k, v, out, lse, causal)
    return row_of(p, median_us(mine, reps) / 1000.0, peak_mb(mine), aten_ms, aten_mb,
                  flops([length] * b, d, causal), bar)


def varlen_point(reps, gen):
    lengths, hkv, d = varlen_lengths(), HEADS // 4, 128
    p = dict(mode="varlen", B=len(lengths), L=f"{min(lengths)}..{max(lengths)}", gqa=4, d=d,
             causal=True, tokens=sum(lengths), lengths=lengths)
    bf = dict(device="cuda", dtype=torch.bfloat16)
    total, longest = sum(lengths), max(lengths)
    q = torch.randn(total, HEADS, d, generator=gen, **bf)
    k = torch.randn(total, hkv, d, generator=gen, **bf)
    v = torch.randn(total, hkv, d, generator=gen, **bf)
    dout = torch.randn(total, HEADS, d, generator=gen, **bf)
    offsets = torch.tensor([0] + list(itertools.accumulate(lengths)), device="cuda")
    out, lse = torch.ops.samebits.attention_varlen(q, k, v, offsets, offsets, longest, True, None,
                                                   longest)
    mine = lambda: torch.ops.samebits.attention_varlen_backward(
        dout, q, k, v, out, lse, offsets, offsets, longest, True, None, longest)
    mine_ms, mine_mb = median_us(mine, reps) / 1000.0, peak_mb(mine)

    def padded(x):  # [tokens, heads, d] -> [B, heads, longest, d], zeros after each sequence
        rows = torch.zeros(len(lengths), longest, x.size(1), d, **bf)
        for i, (a, n) in enumerate(zip(offsets.tolist(), lengths)):
            rows[i, :n] = x[a:a + n]
        return rows.transpose(1, 2).contiguous()

    aten_ms, aten_mb = aten_backward(padded(q), padded(k), padded(v), padded(dout), True, reps)
    return row_of(p, mine_ms, mine_mb, aten_ms, aten_mb, flops(lengths, d, True))


def show(row):
    aten = " ".join(f"{k} {t:.3f}" if isinstance(t, float) else f"{k} {t}"
                    for k, t in row["aten_ms"].items())
    axes = " ".join(f"{n}={row[n]}" for n in ["mode", *AXES] if n in row)
    share = f"{row['share_of_best']:.2f} of the best ATen" if row["share_of_best"] else "no ATen"
    bar = f" [bar {row['bar']['value']}: {'met' if row['meets_bar'] else 'MISSED'}]" \
        if "bar" in row else ""
    print(f"{axes}: samebits {row['samebits_ms']:.3f} ms ({share}, {row['samebits_tflops']:.0f} "
          f"TFLOP/s, +{row['samebits_peak_mb']:.0f} MiB){bar}; {aten}; ATen MiB "
          f"{ {k: round(v) for k, v in row['aten_peak_mb'].items()} }", flush=True)


def main():
    ap = grid_parser(__doc__, "only the points issue 31 names", 10)
    ap.add_argument("--max-tokens", type=int, default=1 << 16)
    a = ap.parse_args()
    torch.ops.load_library(a.lib)
    axes = narrowed_axes(ap, a.axis, AXES)
    gen = torch.Generator(device="cuda").manual_seed(1)
    if a.bars:
        bar = dict(mode="dense", B=4, L=4096, gqa=1, d=128, causal=True)
        todo = [lambda: dense_point(bar, a.reps, gen, True), lambda: varlen_point(a.reps, gen)]
    else:
        todo = [lambda p=p: dense_point(dict(mode="dense", **p), a.reps, gen)
                for p in points(axes, a.max_tokens)]
    rows = run_rows(todo, show)
    if a.out:
        write_rows(a.out, SCHEMA, "attention_backward_grid.py", a, rows)


if __name__ == "__main__":
    main()
