# Where a paged decode call's time goes (issue 32): the event-timed call as attention_grid.py
# times it, the host's time per call, and each CUDA kernel's time from torch.profiler.
"""Split samebits' paged decode calls into host time and kernel times.

For each of issue 32's decode bar shapes (d = 128, or the one --shape B,L,gqa names), the same
inputs as bench/attention_grid.py's decode points: the call timed with CUDA events (median of
--reps), the host's time per call (perf_counter around a call on an idle GPU, median), and the
CUDA time of every kernel the call launches (torch.profiler over --reps calls, mean per call).
What the event time holds beyond the kernels is host work the GPU waited for.
"""
import argparse
import statistics
import time

import torch
from torch.profiler import ProfilerActivity, profile

from attention_grid import DECODE_BARS, paged_decode
from indexer_loop import median_us


def host_us(call, reps):
    times = []
    for _ in range(reps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        call()
        times.append((time.perf_counter() - t0) * 1e6)
    torch.cuda.synchronize()
    return statistics.median(times)


def kernel_us(call, reps):
    """Mean CUDA time per call of each kernel (name cut to 90 characters)."""
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            call()
        torch.cuda.synchronize()
    return {e.key[:90]: e.device_time_total / reps for e in prof.key_averages()
            if e.device_time_total > 0 and not e.key.startswith("aten::")}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", required=True, help="libsamebits_torch_ops.so")
    ap.add_argument("--shape", help="B,L,gqa (d = 128) instead of the bar shapes")
    ap.add_argument("--reps", type=int, default=20)
    a = ap.parse_args()
    torch.ops.load_library(a.lib)
    shapes = [tuple(int(x) for x in a.shape.split(","))] if a.shape else list(DECODE_BARS)
    gen = torch.Generator(device="cuda").manual_seed(1)
    for b, length, gqa in shapes:
        p = dict(mode="decode", B=b, L=length, gqa=gqa, d=128, causal=True)
        _, call = paged_decode(p, gen)
        event = median_us(call, a.reps)
        host = host_us(call, a.reps)
        kernels = kernel_us(call, a.reps)
        print(f"B={b} L={length} gqa={gqa}: event-timed {event:.1f} us, host {host:.1f} us a call, "
              f"kernels {sum(kernels.values()):.1f} us", flush=True)
        for name, us in kernels.items():
            print(f"  {us:9.1f} us  {name}")
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
