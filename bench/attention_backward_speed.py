# The attention backward's bar of issue 31 (causal B=4 H=32 L=4096 d=128 bf16, plus the full
# mask): samebits' tensor-core backward against ATen's SDPA backward backends, same process, CUDA
# events (median of reps), with the peak memory each backward call adds.
import argparse
import json

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from indexer_loop import median_us  # the same CUDA-event timing as the other Python bench


def peak_mb(fn):
    torch.cuda.synchronize()
    base = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    fn()
    torch.cuda.synchronize()
    return (torch.cuda.max_memory_allocated() - base) / 2**20


def kernel_ms(fn):
    """CUDA time per kernel name over one call (torch.profiler), to see where the time goes."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return {e.key[:60]: e.device_time_total / 1000.0 for e in prof.key_averages()
            if e.device_time_total > 0}


def case(b, h, hkv, length, d, causal, reps):
    g = torch.Generator(device="cuda").manual_seed(1)
    bf = dict(device="cuda", dtype=torch.bfloat16)
    q = torch.randn(b, h, length, d, generator=g, **bf)
    k = torch.randn(b, hkv, length, d, generator=g, **bf)
    v = torch.randn(b, hkv, length, d, generator=g, **bf)
    dout = torch.randn(b, h, length, d, generator=g, **bf)
    row = {"case": f"{'causal' if causal else 'full'} B={b} H={h} Hkv={hkv} L={length} d={d} bf16",
           "aten_ms": {}, "aten_peak_mb": {}}
    gqa = h != hkv
    for name, backend in [("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION),
                          ("efficient", SDPBackend.EFFICIENT_ATTENTION)]:
        try:
            with sdpa_kernel(backend):
                qq, kk, vv = (x.detach().requires_grad_() for x in (q, k, v))
                out = F.scaled_dot_product_attention(qq, kk, vv, is_causal=causal, enable_gqa=gqa)
                grad = lambda: torch.autograd.grad(out, (qq, kk, vv), dout, retain_graph=True)
                row["aten_ms"][name] = median_us(grad, reps) / 1000.0
                row["aten_peak_mb"][name] = peak_mb(grad)
                del out
        except RuntimeError as e:
            row["aten_ms"][name] = f"refused: {str(e).splitlines()[0][:80]}"
    out, lse = torch.ops.samebits.attention(q, k, v, causal)
    mine = lambda: torch.ops.samebits.attention_backward(dout, q, k, v, out, lse, causal)
    row["samebits_ms"] = median_us(mine, reps) / 1000.0
    row["samebits_kernels_ms"] = kernel_ms(mine)
    row["samebits_peak_mb"] = peak_mb(mine)
    times = [t for t in row["aten_ms"].values() if isinstance(t, float)]
    row["best_aten_ms"] = min(times) if times else None
    # 5 matmuls of B H L^2 d multiply-adds (half of them under the causal mask)
    flops = 5 * 2 * b * h * length * length * d / (2 if causal else 1)
    row["samebits_tflops"] = flops / row["samebits_ms"] / 1e9
    if row["best_aten_ms"]:
        row["best_aten_tflops"] = flops / row["best_aten_ms"] / 1e9
        row["samebits_throughput_vs_best"] = row["best_aten_ms"] / row["samebits_ms"]
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--out")
    a = ap.parse_args()
    torch.ops.load_library(a.lib)
    rows = [case(4, 32, 32, 4096, 128, True, a.reps), case(4, 32, 32, 4096, 128, False, a.reps),
            case(4, 32, 8, 4096, 128, True, a.reps)]
    for r in rows:
        aten = ", ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in r["aten_ms"].items())
        ratio = r.get("samebits_throughput_vs_best")
        print(f"{r['case']}: samebits {r['samebits_ms']:.3f} ms ({r['samebits_tflops']:.0f} TFLOP/s, "
              f"{ratio:.2f} of the best ATen throughput, peak +{r['samebits_peak_mb']:.0f} MiB); "
              f"ATen: {aten}; ATen peak MiB {r['aten_peak_mb']}")
        print("  samebits kernels (ms):", {k: round(v, 3) for k, v in r["samebits_kernels_ms"].items()})
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rows": rows}, f,
                      indent=1)


if __name__ == "__main__":
    main()
