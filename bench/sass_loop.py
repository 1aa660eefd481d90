# A warp-specialized kernel's code as cuobjdump prints it, without a GPU: the computing warps' tile
# loop (its size, and how much of it runs on the uniform datapath), and whether two builds differ.
"""Static figures of warp-specialized kernels from ``cuobjdump -sass`` text, and a comparison.

    cuobjdump -sass build/ci/kernels/CMakeFiles/samebits_kernels.dir/attention/\\
attention_warpgroups.cu.o > new.sass
    python3 bench/sass_loop.py new.sass [--kernel REGEX] [--against main.sass]

For each kernel whose warpgroups trade registers (``USETMAXREG``), the computing warps' code runs
from the ``USETMAXREG.TRY_ALLOC`` to the ``USETMAXREG.DEALLOC``; within it the tile loop is taken
as the lines from the first ``HGMMA`` to the last. Printed per kernel: the computing warps'
instructions, the loop's, and in the loop the uniform-datapath instructions (``U*``), the ``R2UR``
moves (values built in vector registers that wgmma needs in uniform ones) and the uniform
predicates it uses. A change whose loop grows in ``R2UR`` and loses its ``U*`` instructions runs
its descriptor arithmetic per thread, every tile: stop 52 measured such a change 6 % slower.

--against OTHER compares each kernel's instructions with the same kernel's in OTHER (names with
the anonymous namespace's hash taken out): ``identical``, or how many lines differ and the first.
Exit 1 where any differ. Neither needs a GPU; cuobjdump comes with the CUDA toolkit (or the
``nvidia-cuda-cuobjdump`` wheel).
"""
import argparse
import collections
import re
import shutil
import subprocess
import sys

INSTRUCTION = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;")
FUNCTION = re.compile(r"Function : (\S+)")
ANONYMOUS = re.compile(r"_GLOBAL__N__[0-9a-f]+_\d+")


def kernels(path, mangled=None):
    """{name without the anonymous namespace's hash: [instruction, ...]} in the file's order;
    `mangled`, where given, gets each such name's whole mangled name."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as error:
        sys.exit(f"{path}: {error.strerror}")
    out, current = {}, None
    for line in text.splitlines():
        function = FUNCTION.search(line)
        if function:
            key = ANONYMOUS.sub("", function.group(1))
            current = out.setdefault(key, [])
            if mangled is not None:
                mangled[key] = function.group(1)
            continue
        instruction = INSTRUCTION.search(line)
        if instruction and current is not None:
            current.append(instruction.group(1))
    if not out:
        sys.exit(f"{path}: no 'Function :' lines: not cuobjdump -sass output")
    return out


def opcode(instruction):
    """The opcode's first part: '@!P0 BRA 0x10' -> 'BRA', 'HGMMA.64x64x16.F32' -> 'HGMMA'."""
    words = instruction.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0].split(".")[0] if words else ""


def figures(code):
    """(computing warps' instructions, loop figures) or None where the warpgroups trade nothing."""
    alloc = next((i for i, s in enumerate(code) if "USETMAXREG.TRY_ALLOC" in s), None)
    dealloc = next((i for i, s in enumerate(code) if "USETMAXREG.DEALLOC" in s), None)
    if alloc is None or dealloc is None or dealloc < alloc:
        return None
    math = code[alloc + 1:dealloc]
    mma = [i for i, s in enumerate(math) if opcode(s) == "HGMMA"]
    loop = math[mma[0]:mma[-1] + 1] if mma else []
    ops = collections.Counter(opcode(s) for s in loop)
    predicates = sorted({int(p) for s in loop for p in re.findall(r"\bUP(\d)\b", s)})
    return len(math), {
        "instructions": len(loop),
        "hgmma": ops["HGMMA"],
        "uniform": sum(n for op, n in ops.items() if op.startswith("U")),
        "r2ur": ops["R2UR"],
        "predicates": predicates,
    }


def readable(mangled):
    """{name: its demangled form without parameters} (through c++filt where there is one)."""
    names = list(mangled)
    shown = {n: n for n in names}
    if names and shutil.which("c++filt"):
        done = subprocess.run(["c++filt"], input="\n".join(mangled[n] for n in names),
                              capture_output=True, text=True)
        lines = done.stdout.splitlines()
        if done.returncode == 0 and len(lines) == len(names):
            for n, line in zip(names, lines):
                line = re.sub(r"^void ", "", line.replace("(anonymous namespace)::", ""))
                cut = line.rfind(">(")  # (the parameters of a template; else of a function)
                shown[n] = line[:cut + 1] if cut >= 0 else line.split("(")[0]
    return shown


def pairs(mine, theirs):
    """{name here: name there}: by name, then the rest in order (a changed signature renames)."""
    matched = {n: n for n in mine if n in theirs}
    rest = [n for n in theirs if n not in matched]
    for n in mine:
        if n not in matched and rest:
            matched[n] = rest.pop(0)
    return matched


def compare(mine, theirs):
    """A line on how a kernel's instructions differ from the other build's, and whether."""
    if theirs is None:
        return "not in the other build", True
    differ = [i for i in range(max(len(mine), len(theirs)))
              if i >= len(mine) or i >= len(theirs) or mine[i] != theirs[i]]
    if not differ:
        return f"identical ({len(mine)} instructions)", False
    i = differ[0]
    here = mine[i] if i < len(mine) else "(end)"
    there = theirs[i] if i < len(theirs) else "(end)"
    return (f"{len(differ)} of {max(len(mine), len(theirs))} lines differ; first at {i}: "
            f"{here!r} here, {there!r} there"), True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sass", help="cuobjdump -sass output")
    ap.add_argument("--kernel", help="only kernels whose name matches this regular expression")
    ap.add_argument("--against", metavar="OTHER", help="another build's cuobjdump -sass output")
    args = ap.parse_args()
    mangled = {}
    code = kernels(args.sass, mangled)
    try:
        pattern = re.compile(args.kernel) if args.kernel else None
    except re.error as error:
        sys.exit(f"--kernel {args.kernel}: not a regular expression ({error})")
    names = [n for n in code if not pattern or pattern.search(n)]
    if not names:
        sys.exit(f"--kernel {args.kernel}: no kernel in {args.sass} matches; it has: "
                 + ", ".join(code))
    other = kernels(args.against, mangled) if args.against else None
    paired = pairs(list(code), list(other)) if other is not None else {}
    shown = readable(mangled)
    differ = False
    for name in names:
        found = figures(code[name])
        if found is None:
            print(f"{shown[name]}: no USETMAXREG.TRY_ALLOC and DEALLOC: no computing warps' code")
        else:
            math, loop = found
            uses = ",".join(f"UP{p}" for p in loop["predicates"]) or "none"
            print(f"{shown[name]}: computing warps {math} instructions; tile loop "
                  f"{loop['instructions']} ({loop['hgmma']} HGMMA, {loop['uniform']} uniform, "
                  f"{loop['r2ur']} R2UR, uniform predicates {uses})")
        if other is not None:
            there = paired.get(name)
            line, different = compare(code[name], other.get(there) if there else None)
            named = f" (there {shown[there]})" if there and shown[there] != shown[name] else ""
            print(f"  against {args.against}{named}: {line}")
            differ = differ or different
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
