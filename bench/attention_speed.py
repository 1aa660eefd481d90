# The issue-12 shapes of the invariant attention timed against ATen's SDPA backends in the same
# process (CUDA events, median of reps): one-shot prefill, decode with GQA, one long decode, and
# chunked prefill over the paged cache against samebits' own one-shot prefill. Shapes a backend
# refuses are reported.
import argparse
import json

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from indexer_loop import median_us  # the same CUDA-event timing as the other Python bench


def median_ms(fn, reps):
    return median_us(fn, reps) / 1000.0


def aten_ms(q, k, v, causal, reps):
    out = {}
    gqa = q.size(1) != k.size(1)
    for name, backend in [("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION),
                          ("efficient", SDPBackend.EFFICIENT_ATTENTION)]:
        try:
            with sdpa_kernel(backend):
                out[name] = median_ms(
                    lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=gqa), reps)
        except RuntimeError as e:
            out[name] = f"refused: {str(e).splitlines()[0][:80]}"
    return out


def dense(b, h, hkv, lq, lk, causal, reps, label, flops, mine_reps=None):
    g = torch.Generator(device="cuda").manual_seed(1)
    q = torch.randn(b, h, lq, 128, device="cuda", dtype=torch.bfloat16, generator=g)
    k = torch.randn(b, hkv, lk, 128, device="cuda", dtype=torch.bfloat16, generator=g)
    v = torch.randn(b, hkv, lk, 128, device="cuda", dtype=torch.bfloat16, generator=g)
    aten = aten_ms(q, k, v, causal and lq == lk, reps)
    mine = median_ms(lambda: torch.ops.samebits.attention(q, k, v, causal), mine_reps or reps)
    numbers = [t for t in aten.values() if isinstance(t, float)]
    best = min(numbers) if numbers else None
    row = {"case": label, "samebits_ms": mine, "aten_ms": aten, "best_aten_ms": best,
           "samebits_over_best": mine / best if best else None}
    if flops:
        row["samebits_tflops"] = flops / mine / 1e9
        row["best_aten_tflops"] = flops / best / 1e9 if best else None
    return row


def chunked(b, h, hkv, length, chunk, page, reps, one_shot_ms, label):
    """Prefill of `length` tokens per sequence in chunks of `chunk` over a paged cache (pages of
    `page` tokens, handed out in a shuffled order): each call appends its chunk's keys and values
    (k_new, v_new) and attends over the cache so far. Timed as the whole series of calls."""
    g = torch.Generator(device="cuda").manual_seed(2)
    bf = dict(device="cuda", dtype=torch.bfloat16)
    q = torch.randn(b, length, h, 128, generator=g, **bf)
    k = torch.randn(b, length, hkv, 128, generator=g, **bf)
    v = torch.randn(b, length, hkv, 128, generator=g, **bf)
    pages = b * length // page
    k_cache = torch.zeros(pages, page, hkv, 128, **bf)
    v_cache = torch.zeros(pages, page, hkv, 128, **bf)
    table = torch.randperm(pages, generator=torch.Generator().manual_seed(3)).to(
        device="cuda", dtype=torch.int32).view(b, -1)
    offsets = torch.arange(0, b * chunk + 1, chunk, device="cuda")
    steps = []
    for start in range(0, length, chunk):
        steps.append(([x[:, start:start + chunk].reshape(b * chunk, x.size(2), 128).contiguous()
                       for x in (q, k, v)], torch.full((b,), start, device="cuda", dtype=torch.long)))

    def run():
        for (qq, kk, vv), cached in steps:
            torch.ops.samebits.attention_with_kvcache(qq, k_cache, v_cache, table, cached, offsets,
                                                      kk, vv, chunk, True)

    mine = median_ms(run, reps)
    return {"case": label, "samebits_ms": mine, "aten_ms": {}, "best_aten_ms": None,
            "samebits_over_best": None, "over_one_shot": mine / one_shot_ms}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--prefill-reps", type=int, default=None,
                    help="reps of samebits' prefill (default: --reps)")
    ap.add_argument("--out")
    a = ap.parse_args()
    torch.ops.load_library(a.lib)
    rows = []
    prefill_flops = 4 * 4 * 32 * 4096 * 4096 * 128 / 2  # causal: half the score matrix
    rows.append(dense(4, 32, 32, 4096, 4096, True, a.reps, "prefill causal B=4 H=32 L=4096", prefill_flops,
                     a.prefill_reps))
    rows.append(dense(4, 32, 32, 4096, 4096, False, a.reps, "prefill full B=4 H=32 L=4096", 2 * prefill_flops,
                     a.prefill_reps))
    rows.append(dense(32, 32, 8, 1, 8192, False, a.reps, "decode B=32 H=32 Hkv=8 Lk=8192", None))
    rows.append(dense(1, 32, 8, 1, 32768, False, a.reps, "decode B=1 H=32 Hkv=8 Lk=32768", None))
    rows.append(chunked(4, 32, 32, 4096, 512, 64, a.reps, rows[0]["samebits_ms"],
                        "chunked prefill B=4 H=32 L=4096 in chunks of 512, pages of 64"))
    for r in rows:
        aten = ", ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in r["aten_ms"].items())
        ratio = f"{r['samebits_over_best']:.2f}x the best ATen time" if r["best_aten_ms"] else ""
        if "over_one_shot" in r:
            ratio = f"{r['over_one_shot']:.2f}x samebits' one-shot prefill"
        tflops = f", {r['samebits_tflops']:.0f} TFLOP/s (best ATen {r['best_aten_tflops']:.0f})" \
            if r.get("samebits_tflops") and r.get("best_aten_tflops") else ""
        print(f"{r['case']}: samebits {r['samebits_ms']:.3f} ms ({ratio}{tflops}); ATen: {aten}")
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
