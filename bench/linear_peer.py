# Issue 29's linear grid in one process: cuBLAS (the best of F.linear and x @ w.T), samebits'
# invariant linear (torch.ops.samebits.linear) and Thinking Machines' batch_invariant_ops
# persistent matmul (Triton), bf16, CUDA events, median of reps. The peer is not part of samebits:
# --peer names a checkout of thinking-machines-lab/batch_invariant_ops (or its
# batch_invariant_ops.py), which is imported from there and never copied into this tree.
#
# Per point: times, cuBLAS/samebits and peer/samebits (> 1 = samebits faster), TFLOP/s, and for
# M <= 64 the GB/s of streaming W (bytes of W / time) against the H100's 3350 GB/s. By default each
# call reads the next of enough copies of W that they do not all fit in L2 (--hot: one W, so a W
# under ~50 MB is read from L2 after the first rep). Also checks, per (K, N), that samebits' first
# m rows (m = 1, 16, 64) alone are bitwise the same rows inside M = 2048 (cuBLAS and the peer are
# reported beside it, as observations), and the error of each against a float32 reference.
import argparse
import importlib.util
import json
import math
import os
import sys

import torch
import torch.nn.functional as F

from indexer_loop import median_us  # the same CUDA-event timing as the other Python bench

MS = (1, 16, 64, 2048, 8192)
KN = ((4096, 4096), (4096, 14336), (14336, 4096), (4096, 128256), (1024, 2816), (2816, 1024),
      (1024, 32000))
H100_GBS = 3350.0
L2_BYTES = 50 * 2**20  # H100 SXM: 50 MB; the rotation reads at least twice this per cycle


def load_peer(path):
    """batch_invariant_ops.py from a checkout (<repo>/batch_invariant_ops/batch_invariant_ops.py),
    the package folder, a folder holding the file, or the file itself."""
    candidates = [path, os.path.join(path, "batch_invariant_ops.py"),
                  os.path.join(path, "batch_invariant_ops", "batch_invariant_ops.py")]
    for c in candidates:
        if os.path.isfile(c):
            spec = importlib.util.spec_from_file_location("peer_batch_invariant_ops", c)
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module  # (Triton's JIT looks the module up by name)
            spec.loader.exec_module(module)
            return module, os.path.abspath(c)
    raise SystemExit(f"--peer {path}: no batch_invariant_ops.py there (tried {candidates})")


def peak_bytes(m, k, n, copies):
    # x, the copies of W, three outputs, and the float32 reference of 64 rows (with W in float32).
    return 2 * (m * k + copies * n * k + 3 * m * n) + 4 * (n * k + 2 * 64 * n)


def rows_alone_in_batch(fn, x, w, ms=(1, 16, 64)):
    full = fn(x, w)
    return {str(m): bool(torch.equal(fn(x[:m], w), full[:m])) for m in ms}


def point(m, k, n, impls, reps, hot, limit):
    w_bytes = 2 * n * k
    copies = 1 if hot else min(64, max(1, math.ceil(2 * L2_BYTES / w_bytes)))
    row = {"M": m, "K": k, "N": n, "dtype": "bf16", "w_bytes": w_bytes, "w_copies": copies}
    if peak_bytes(m, k, n, copies) > limit:
        row["skipped"] = f"needs about {peak_bytes(m, k, n, copies) / 1e9:.1f} GB"
        return row
    g = torch.Generator(device="cuda").manual_seed(29 + k + n)
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
    ws = [(torch.randn(n, k, device="cuda", generator=g) / math.sqrt(k)).bfloat16()
          for _ in range(copies)]
    times = {}
    for name, fn in impls.items():
        state = {"i": 0}

        def call(fn=fn, state=state):
            w = ws[state["i"]]
            state["i"] = (state["i"] + 1) % copies
            return fn(x, w)
        try:
            times[name] = median_us(call, reps)
        except Exception as e:  # (a Triton compile error is not a RuntimeError)
            times[name] = None
            row[f"{name}_error"] = str(e).splitlines()[0][:200]
        torch.cuda.empty_cache()
    cublas = min((t for t in (times.get("F.linear"), times.get("x@w.T")) if t is not None),
                 default=None)
    mine, peer = times.get("samebits"), times.get("peer")
    flops = 2.0 * m * n * k
    row.update({"fl_us": times.get("F.linear"), "matmul_us": times.get("x@w.T"), "cublas_us": cublas,
                "samebits_us": mine, "peer_us": peer,
                "cublas_over_samebits": cublas / mine if mine and cublas else None,
                "peer_over_samebits": peer / mine if mine and peer else None,
                "cublas_tflops": flops / cublas / 1e6 if cublas else None,
                "samebits_tflops": flops / mine / 1e6 if mine else None,
                "peer_tflops": flops / peer / 1e6 if peer else None})
    if m <= 64:
        for name, t in (("cublas", cublas), ("samebits", mine), ("peer", peer)):
            row[f"{name}_w_gbs"] = w_bytes / t / 1e3 if t else None
            row[f"{name}_w_of_peak"] = w_bytes / t / 1e3 / H100_GBS if t else None
    # Error against float32 over the first 64 rows (relative to the largest |reference|).
    rows = min(m, 64)
    ref = x[:rows].float() @ ws[0].float().T
    scale = ref.abs().max().item() or 1.0
    for name, fn in impls.items():
        if times.get(name) is not None:
            row[f"{name}_rel_err"] = (fn(x[:rows], ws[0]).float() - ref).abs().max().item() / scale
    del ref
    if m == 2048:
        row["rows_alone_equal_in_batch"] = {
            name: rows_alone_in_batch(fn, x, ws[0]) for name, fn in impls.items()
            if times.get(name) is not None}
    del x, ws
    torch.cuda.empty_cache()
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lib", required=True, help="libsamebits_torch_ops.so")
    parser.add_argument("--peer", required=True,
                        help="a checkout of thinking-machines-lab/batch_invariant_ops, its "
                             "batch_invariant_ops/ folder or its batch_invariant_ops.py")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--hot", action="store_true", help="one W (small ones stay in L2)")
    parser.add_argument("--limit-gb", type=float, default=70.0, help="skip points needing more")
    parser.add_argument("--m", type=int, nargs="*", default=list(MS), help="a subset of M")
    parser.add_argument("--out", help="write the rows as JSON here")
    args = parser.parse_args()
    torch.ops.load_library(args.lib)
    peer, peer_file = load_peer(args.peer)
    impls = {
        "F.linear": lambda x, w: F.linear(x, w),
        "x@w.T": lambda x, w: x @ w.T,
        "samebits": lambda x, w: torch.ops.samebits.linear(x, w),
        # As the peer's own batch-invariant mode runs F.linear: aten::mm(x, w.t()), a view.
        "peer": lambda x, w: peer.matmul_persistent(x, w.t()),
    }
    rows = []
    head = (f"{'M':>5} {'K':>6} {'N':>7} {'cuBLAS us':>10} {'samebits us':>11} {'peer us':>9} "
            f"{'cuBLAS/sb':>9} {'peer/sb':>8} {'sb TFLOP/s':>10} {'sb W GB/s':>10} {'cuBLAS GB/s':>11}")
    print(head, flush=True)
    for k, n in KN:
        for m in args.m:
            r = point(m, k, n, impls, args.reps, args.hot, args.limit_gb * 1e9)
            rows.append(r)
            if "skipped" in r:
                print(f"{m:>5} {k:>6} {n:>7}  skipped: {r['skipped']}", flush=True)
                continue
            v = lambda key, spec: format(r[key], spec) if r.get(key) is not None else "-"
            print(f"{m:>5} {k:>6} {n:>7} {v('cublas_us', '10.1f'):>10} {v('samebits_us', '11.1f'):>11} "
                  f"{v('peer_us', '9.1f'):>9} {v('cublas_over_samebits', '9.2f'):>9} "
                  f"{v('peer_over_samebits', '8.2f'):>8} {v('samebits_tflops', '10.1f'):>10} "
                  f"{v('samebits_w_gbs', '10.0f'):>10} {v('cublas_w_gbs', '11.0f'):>11}", flush=True)
            if "rows_alone_equal_in_batch" in r:
                print(f"      rows 1/16/64 alone = inside M=2048: {r['rows_alone_equal_in_batch']}",
                      flush=True)
    done = [r for r in rows if r.get("samebits_us")]
    sanity = all(all(r["rows_alone_equal_in_batch"]["samebits"].values())
                 for r in done if "rows_alone_equal_in_batch" in r)
    summary = {
        "points": len(done), "skipped": sum("skipped" in r for r in rows),
        "samebits_faster_than_peer": sum((r.get("peer_over_samebits") or 0) > 1 for r in done),
        "samebits_at_least_90pct_cublas": sum((r.get("cublas_over_samebits") or 0) >= 0.9
                                              for r in done),
        "samebits_rows_alone_equal_in_batch": sanity,
    }
    for key in ("cublas_over_samebits", "peer_over_samebits"):
        vals = [r[key] for r in done if r.get(key)]
        summary[f"geomean_{key}"] = math.exp(sum(map(math.log, vals)) / len(vals)) if vals else None
    print(json.dumps(summary), flush=True)
    if args.out:
        with open(args.out + ".tmp", "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                       "triton": getattr(sys.modules.get("triton"), "__version__", None),
                       "cuda": torch.version.cuda, "peer_file": peer_file, "reps": args.reps,
                       "w_rotation": not args.hot,
                       "bf16_reduced_precision_reduction":
                           torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction,
                       "summary": summary, "rows": rows}, f, indent=2)
        os.replace(args.out + ".tmp", args.out)
    return 0 if sanity else 1


if __name__ == "__main__":
    raise SystemExit(main())
