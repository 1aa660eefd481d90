# The indexer loop of reference 000 as its authors ran it (a Python loop over items, four ATen ops
# each), timed in the same process as torch.ops.samebits.indexer on the same inputs. samebits_bench
# times the same loop from C++, without the interpreter between ops; this shows both sides of that.
import argparse
import json
import os
import statistics

import torch


def median_us(fn, reps):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1000.0)
    return statistics.median(times)


def seed_loop(q, keys, w, k):
    # 000: scores = q[b] @ K[b].T; relu_mul(scores, w[b]); sum(dim=0); topk. Its relu_mul was one
    # fused kernel; here it is relu then mul (one more launch per item).
    out = []
    for b in range(len(keys)):
        scores = q[b] @ keys[b].T
        scores = torch.relu(scores) * w[b][:, None]
        final = scores.sum(dim=0)
        _, idx = torch.topk(final, k)
        out.append(idx)
    return out


def row(batch, reps, heads=64, head_dim=128, k=2048, longest=8192):
    gen = torch.Generator().manual_seed(100 + batch)
    lengths = torch.randint(4096, longest + 1, (batch,), generator=gen)
    offsets = torch.cat([torch.zeros(1, dtype=torch.long), lengths.cumsum(0)])
    q = (torch.randn(batch, heads, head_dim, generator=gen) / 8).cuda().bfloat16()
    packed = torch.randn(int(offsets[-1]), head_dim, generator=gen).cuda().bfloat16()
    w = (torch.randn(batch, heads, generator=gen) / 8).cuda()
    keys = [packed[int(offsets[b]):int(offsets[b + 1])] for b in range(batch)]
    w_items = [w[b] for b in range(batch)]  # float32, as in samebits_bench's C++ loop
    d_offsets = offsets.cuda()
    loop_us = median_us(lambda: seed_loop(q, keys, w_items, k), reps)
    samebits_us = median_us(
        lambda: torch.ops.samebits.indexer(q, packed, d_offsets, w, k, longest, unsafe=True), reps)
    # Item 0 alone gives the bits it has in the batch.
    _, _, batched = torch.ops.samebits.indexer(q, packed, d_offsets, w, k, longest)
    l0 = int(lengths[0])
    _, _, alone = torch.ops.samebits.indexer(
        q[:1], packed[:l0], torch.tensor([0, l0], device="cuda"), w[:1], k, l0)
    return {"family": "indexer_python", "case": f"B={batch} bf16",
            "baseline": "seed loop in Python (000)", "baseline_us": loop_us,
            "samebits_us": samebits_us, "speedup": loop_us / samebits_us,
            "checked": bool(torch.equal(batched[0], alone[0])), "check": "item 0 alone = in batch"}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lib", required=True, help="libsamebits_torch_ops.so")
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--out", help="write the rows as JSON here")
    args = parser.parse_args()
    torch.ops.load_library(args.lib)
    rows = [row(b, args.reps) for b in (4, 8, 16, 31)]
    print(f"{'case':<10} {'seed loop (Python) us':>22} {'samebits us':>12} {'speedup':>8}  check")
    for r in rows:
        print(f"{r['case']:<10} {r['baseline_us']:>22.1f} {r['samebits_us']:>12.1f} "
              f"{r['speedup']:>7.2f}x  {'ok' if r['checked'] else 'FAILED'}")
    if args.out:
        with open(args.out + ".tmp", "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                       "rows": rows}, f, indent=2)
        os.replace(args.out + ".tmp", args.out)
    return 0 if all(r["checked"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
