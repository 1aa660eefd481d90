# Where a warp-specialized kernel's time goes, by region of its code: Nsight Compute's per-line
# stall samples split into the copying warps and the computing warps' turn start, loop and end.
"""Split an Nsight Compute source page (per-SASS-line stall samples) into regions of the kernel.

The input is the CSV that ``ncu -i REPORT --page source --csv --print-source sass`` prints for a
report taken with ``--section SourceCounters``, e.g. for the wgmma prefill at 16 x 1024:

    ncu --clock-control none -k regex:attention_warpgroups -s 2 -c 1 \\
        --section SourceCounters --section WarpStateStats -o prefill python3 CALLS.py
    ncu -i prefill.ncu-rep --page source --csv --print-source sass > prefill.csv
    python3 bench/sass_regions.py prefill.csv --turns 4096

The kernel's warpgroups trade registers with ``setmaxnreg``: the lines after the first
``USETMAXREG.TRY_ALLOC`` up to the ``EXIT`` before ``USETMAXREG.DEALLOC`` are the computing warps'
code, the lines after the ``DEALLOC`` the copying warps'. Within the computing warps' code the
tile loop is the run of lines executed at least --loop-share of the most-executed line's count;
the lines before it are a turn's start and those after it its end (the epilogue). Each region
prints its share of the computing warps' samples, its instructions and its three largest stall
reasons; --top N lists the N lines with the most samples in each region, and --ops N its N
opcodes with the most samples (opcode and first modifier, e.g. ``MUFU.EX2``), each with its
instructions and two largest stall reasons: how stop 53 read cuDNN's loop beside samebits'. With
--turns (the persistent blocks' turns in the call: the blocks of a plain launch), instructions are
also given per warp and turn.
"""
import argparse
import collections
import csv
import sys

SAMPLES = "Warp Stall Sampling (All Samples)"
EXECUTED = "Instructions Executed"


def number(row, key):
    value = row.get(key, "") or "0"
    return int(value.replace(",", ""))


def regions(rows, loop_share):
    """(name, first, end) of the kernel's regions, or a SystemExit naming what is missing."""
    source = [r["Source"].strip() for r in rows]
    alloc = next((i for i, s in enumerate(source) if "USETMAXREG.TRY_ALLOC" in s), None)
    dealloc = next((i for i, s in enumerate(source) if "USETMAXREG.DEALLOC" in s), None)
    if alloc is None or dealloc is None:
        sys.exit("no USETMAXREG.TRY_ALLOC and USETMAXREG.DEALLOC lines: not a kernel whose "
                 "warpgroups trade registers (give the SASS source page of one)")
    math = range(alloc + 1, dealloc)
    most = max(number(rows[i], EXECUTED) for i in math)
    loop = [i for i in math if number(rows[i], EXECUTED) >= loop_share * most]
    return [("start", alloc + 1, loop[0]), ("loop", loop[0], loop[-1] + 1),
            ("end", loop[-1] + 1, dealloc), ("copying", dealloc, len(rows))]


def opcode(source):
    """The opcode and its first modifier (``MUFU.EX2``, ``HGMMA.64x64x16``), predicate dropped."""
    words = source.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return ".".join(words[0].split(".")[:2]) if words else "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", help="ncu --page source --csv --print-source sass output")
    ap.add_argument("--loop-share", type=float, default=0.9)
    ap.add_argument("--turns", type=int, help="turns in the call: instructions per warp and turn")
    ap.add_argument("--warps", type=int, default=8, help="computing warps per block (default 8)")
    ap.add_argument("--top", type=int, default=0, help="the N lines with the most samples")
    ap.add_argument("--ops", type=int, default=0, help="the N opcodes with the most samples")
    args = ap.parse_args()
    with open(args.csv, newline="") as f:
        lines = f.read().splitlines()
    # (the page starts with a line naming the kernel, then the header)
    start = next((i for i, line in enumerate(lines) if line.startswith('"Address"')), None)
    if start is None:
        sys.exit(f"{args.csv}: no header line starting with \"Address\": not ncu's source page")
    rows = list(csv.DictReader(lines[start:]))
    if not rows or SAMPLES not in rows[0]:
        sys.exit(f"{args.csv}: no '{SAMPLES}' column: take the report with "
                 "--section SourceCounters")
    stalls = [k for k in rows[0] if k.startswith("stall_") and "Not Issued" not in k]
    parts = regions(rows, args.loop_share)
    math_samples = sum(number(r, SAMPLES) for name, a, b in parts[:3] for r in rows[a:b])
    for name, a, b in parts:
        chunk = rows[a:b]
        samples = sum(number(r, SAMPLES) for r in chunk)
        executed = sum(number(r, EXECUTED) for r in chunk)
        reasons = collections.Counter()
        for r in chunk:
            for k in stalls:
                reasons[k[len("stall_"):]] += number(r, k)
        share = f"{100.0 * samples / math_samples:5.1f} % of the computing warps' samples"
        if name == "copying":  # (four warps to the computing warps' eight)
            share = f"{samples / math_samples:.2f}x the computing warps' samples"
        per_turn = ""
        if args.turns and name != "copying":
            per_turn = f", {executed / (args.turns * args.warps):.0f} a warp and turn"
        print(f"{name:8s} {samples:7d} samples ({share}), {executed / 1e6:.1f} M instructions"
              f"{per_turn}; " + ", ".join(f"{k} {v}" for k, v in reasons.most_common(3)))
        for r in sorted(chunk, key=lambda r: -number(r, SAMPLES))[:args.top]:
            print(f"    {number(r, SAMPLES):6d}  {r['Source'].strip()[:72]}")
        by_op = collections.defaultdict(collections.Counter)
        for r in chunk:
            op = by_op[opcode(r["Source"].strip())]
            op["samples"] += number(r, SAMPLES)
            op["executed"] += number(r, EXECUTED)
            for k in stalls:
                op[k] += number(r, k)
        ranked = sorted(by_op.items(), key=lambda kv: (-kv[1]["samples"], kv[0]))[:args.ops]
        for name_, op in ranked:
            top = sorted(((v, k[len("stall_"):]) for k, v in op.items() if k.startswith("stall_")),
                         key=lambda vk: (-vk[0], vk[1]))[:2]
            print(f"    {name_:18s} {op['samples']:7d} samples, {op['executed'] / 1e6:8.1f} M "
                  "instructions; " + ", ".join(f"{k} {v}" for v, k in top))


if __name__ == "__main__":
    main()
