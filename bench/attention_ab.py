# Two or more builds of the attention ops side by side: do their outputs have the same bits over
# the paths a kernel change can touch, and how long does each take at the prefill bar shapes.
"""A/B of torch.ops.samebits.attention* between builds of libsamebits_torch_ops.so.

    python3 bench/attention_ab.py --lib main=build-a/libsamebits_torch_ops.so \\
        --lib new=build-b/libsamebits_torch_ops.so [--device cuda] [--rounds 2] [--no-times]

Each library runs in a process of its own (torch.ops namespaces are per process). Bits: out and lse
of every case below hashed (sha256) on the same inputs, every library against the first; the cases
cover dense GQA packs with partial tiles, d 64 float16, split borders whole and full, heads-inner
strides, a short batch, many turns over persistent blocks and the long bar shapes, varlen,
chunked prefill over paged caches (pages of 64 and 16, NaN in unused slots) and paged decodes
(on the CPU the same paths at smaller sizes, without the three largest). Times
(CUDA only): 5 x 10 calls of causal bf16 d 128 prefill at the issue 32 bar shapes, CUDA events, the
libraries alternating round by round, with cuDNN's SDPA beside them. Exit 1 if any bits differ.
Each worker's end is printed to stderr as it comes (its kind, library and seconds), since the
summary waits for all of them: a run cut short by a timeout still says how far it got.
--perturb NAME changes one input element for that library: the control that a difference shows.
"""
import argparse
import hashlib
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch

SHAPES = [("16x1024", 16, 1024, 8), ("4x4096", 4, 4096, 32), ("1x16k", 1, 16384, 8)]


def digest(*tensors):
    """sha256 of the tensors' bytes (through torch.save's raw storage: no NumPy needed)."""
    h = hashlib.sha256()
    for t in tensors:
        buf = io.BytesIO()
        torch.save(t.detach().contiguous().view(torch.uint8).cpu(), buf)
        h.update(buf.getvalue())
    return h.hexdigest()[:16]


def bit_cases(device, perturb):
    """(name, digest) of every case; `perturb` changes one element of the first input made."""
    ops = torch.ops.samebits
    gen = torch.Generator(device=device).manual_seed(7)
    first = [True]
    small = device == "cpu"

    def rand(*shape, dtype=torch.bfloat16):
        t = torch.randn(*shape, device=device, dtype=dtype, generator=gen)
        if perturb and first[0]:
            t.view(-1)[0] += 1
        first[0] = False
        return t

    out = []

    def dense(name, b, h, hkv, length, d, causal, dtype=torch.bfloat16, inner=False):
        if inner:
            q, k, v = (rand(b, length, n, d, dtype=dtype).transpose(1, 2) for n in (h, hkv, hkv))
        else:
            q, k, v = (rand(b, n, length, d, dtype=dtype) for n in (h, hkv, hkv))
        out.append((name, digest(*ops.attention(q, k, v, causal))))

    dense("gqa_partial", 2, 8, 2, 100 if small else 1000, 128, True)
    dense("d64_fp16_full", 3, 4, 4, 33 if small else 333, 64, False, torch.float16)
    dense("split_cross", 1, 2 if small else 4, 2, 2100 if small else 4500, 128, True)
    dense("split_cross_full", 1, 2, 1, 2100 if small else 5000, 64, False)
    dense("heads_inner", 2, 8, 4, 70 if small else 700, 128, True, inner=True)
    dense("short", 5, 2, 1, 70, 128, True)
    if not small:
        dense("many_turns", 16, 32, 8, 1024, 128, True)
        dense("bar_4x4096", 4, 32, 32, 4096, 128, True)
        dense("bar_1x16k", 1, 32, 8, 16384, 128, True)
    lengths = [10, 120, 7, 64] if small else [100, 1200, 2100, 7, 64]
    off = torch.tensor([0] + list(torch.tensor(lengths).cumsum(0)), device=device)
    total = int(off[-1])
    q, k, v = rand(total, 8, 128), rand(total, 2, 128), rand(total, 2, 128)
    out.append(("varlen", digest(*ops.attention_varlen(q, k, v, off, off))))
    for page, batch, hq, hkv, cached_lengths, new in [
            (64, 3, 8, 2, [100, 70, 5] if small else [1000, 700, 5], 30 if small else 300),
            (16, 3, 8, 2, [100, 70, 5] if small else [1000, 700, 5], 30 if small else 300),
            (64, 3, 32, 8, [5, 70, 200] if small else [5, 700, 2049], 1),
            (16, 4, 8, 2, [100, 64, 300, 1] if small else [100, 64, 3000, 1], 1),
            (64, 2, 32, 8, [30, 100] if small else [300, 1000], 3)]:
        d = 128
        per = -(-(max(cached_lengths) + new) // page)
        pages = batch * per + 3
        caches = [torch.full((pages, page, hkv, d), float("nan"), device=device,
                             dtype=torch.bfloat16) for _ in range(2)]
        table = torch.randperm(pages, generator=torch.Generator().manual_seed(5))[:batch * per]
        table = table.to(device=device, dtype=torch.int32).view(batch, per)
        for b, n in enumerate(cached_lengths):
            pos = torch.arange(n, device=device)
            for cache in caches:
                cache[table.long()[b, pos // page], pos % page] = rand(n, hkv, d)
        cached = torch.tensor(cached_lengths, device=device, dtype=torch.long)
        q_off = torch.arange(0, batch * new + 1, new, device=device)
        qn, kn, vn = rand(batch * new, hq, d), rand(batch * new, hkv, d), rand(batch * new, hkv, d)
        result = ops.attention_with_kvcache(qn, caches[0], caches[1], table, cached, q_off, kn, vn,
                                            new, True, None, -1, None)
        out.append((f"paged{page}_{new}new_{hq}x{hkv}", digest(*result)))
    return out


def event_times(fn, n=5, k=10):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(n):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(k):
            fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / k)
    return times


def prefill_times():
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F
    gen = torch.Generator(device="cuda").manual_seed(1)
    rows = {}
    for label, b, length, hkv in SHAPES:
        q = torch.randn(b, 32, length, 128, device="cuda", dtype=torch.bfloat16, generator=gen)
        k, v = (torch.randn(b, hkv, length, 128, device="cuda", dtype=torch.bfloat16,
                            generator=gen) for _ in range(2))
        mine = event_times(lambda: torch.ops.samebits.attention(q, k, v, True))
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            cudnn = event_times(lambda: F.scaled_dot_product_attention(
                q, k, v, is_causal=True, enable_gqa=hkv != 32))
        rows[label] = {"samebits_ms": mine, "cudnn_ms": cudnn}
    return rows


def worker(args):
    torch.ops.load_library(args.lib_path)
    result = {}
    if args.bits:
        result["bits"] = bit_cases(args.device, args.perturb_inputs)
    if args.times:
        result["times"] = prefill_times()
    with open(args.out, "w") as f:
        json.dump(result, f)


def run_worker(path, device, bits, times, perturb, out):
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--lib-path", path,
           "--device", device, "--out", out]
    cmd += (["--bits"] if bits else []) + (["--times"] if times else [])
    cmd += ["--perturb-inputs"] if perturb else []
    start = time.monotonic()
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{path}: the worker failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    with open(out) as f:
        result = json.load(f)
    # (as each worker ends, so that a run cut short still says how far it got)
    print(f"worker {'bits' if bits else 'times'} {path}: {time.monotonic() - start:.1f} s",
          file=sys.stderr, flush=True)
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", action="append", default=[], metavar="NAME=PATH")
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--no-times", action="store_true", help="bits only")
    ap.add_argument("--perturb", metavar="NAME", help="change one input element for this library")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--lib-path", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    ap.add_argument("--bits", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--times", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--perturb-inputs", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    libs = []
    for spec in args.lib:
        name, sep, path = spec.partition("=")
        if not sep or not name or not os.path.isfile(path):
            ap.error(f"--lib {spec}: give NAME=PATH of an existing libsamebits_torch_ops.so")
        libs.append((name, path))
    if len(libs) < 2:
        ap.error("give at least two --lib NAME=PATH to compare")
    if args.perturb and args.perturb not in dict(libs):
        names = ", ".join(n for n, _ in libs)
        ap.error(f"--perturb {args.perturb}: no --lib of that name ({names})")
    times = args.device == "cuda" and not args.no_times
    with tempfile.TemporaryDirectory() as tmp:
        bits = {name: run_worker(path, args.device, True, False, name == args.perturb,
                                 os.path.join(tmp, f"{name}.json"))["bits"]
                for name, path in libs}
        samples = {name: {} for name, _ in libs}
        for r in range(args.rounds if times else 0):
            for name, path in libs:
                rows = run_worker(path, args.device, False, True, False,
                                  os.path.join(tmp, f"{name}-{r}.json"))["times"]
                for label, row in rows.items():
                    for key, values in row.items():
                        samples[name].setdefault(label, {}).setdefault(key, []).extend(values)
    first = libs[0][0]
    differ = 0
    for i, (case, value) in enumerate(bits[first]):
        others = [(name, dict(bits[name]).get(case)) for name, _ in libs[1:]]
        bad = [name for name, other in others if other != value]
        differ += bool(bad)
        print(f"bits {case:28s} " + ("equal" if not bad else "DIFFER: " + ", ".join(bad)))
    for label, _, _, _ in SHAPES if times else []:
        base = statistics.median(samples[first][label]["samebits_ms"])
        for name, _ in libs:
            mine, cudnn = samples[name][label]["samebits_ms"], samples[name][label]["cudnn_ms"]
            share = min(cudnn) / statistics.median(mine)
            print(f"time {label:8s} {name:10s} samebits {min(mine):.3f}-{max(mine):.3f} ms "
                  f"(median {statistics.median(mine) / base:.3f}x {first}'s), cuDNN "
                  f"{min(cudnn):.3f}-{max(cudnn):.3f}, share {share:.3f}")
    print(f"{differ} of {len(bits[first])} cases differ in bits from {first}'s")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
