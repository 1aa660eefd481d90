# The issue-12 shapes of the invariant attention timed against ATen's SDPA backends in the same
# process (CUDA events, median of reps): one-shot prefill, decode with GQA and one long decode
# (chunked prefill over the paged cache is not timed yet). Shapes a backend refuses are reported.
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--prefill-reps", type=int, default=1,
                    help="reps of samebits' prefill (the plain first kernel takes seconds)")
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
    for r in rows:
        aten = ", ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in r["aten_ms"].items())
        ratio = f"{r['samebits_over_best']:.2f}x the best ATen time" if r["best_aten_ms"] else ""
        print(f"{r['case']}: samebits {r['samebits_ms']:.3f} ms ({ratio}); ATen: {aten}")
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
