# Loads a probe library (tests/runtime_probe) in a child process and checks how its op's error
# reaches Python: `whole` (numbers included) for a library linked like samebits_torch_ops;
# `broken` (numbers garbled, or the child killed by a signal: SIGSEGV on the Ubuntu 24.04 GPU
# host) for the control with its own static libstdc++. Exit 0 when the library does as told.
import subprocess
import sys


def child(lib):
    import torch

    torch.ops.load_library(lib)
    try:
        torch.ops.samebits_probe.fail_with_number(torch.zeros(1, 100), 101)
    except RuntimeError as e:
        print("message:", str(e).splitlines()[0], flush=True)
        return 0
    print("no error raised", flush=True)
    return 1


def main():
    if sys.argv[1] == "--child":
        return child(sys.argv[2])
    expect, lib = sys.argv[1], sys.argv[2]
    run = subprocess.run([sys.executable, __file__, "--child", lib], capture_output=True, text=True)
    lines = [l for l in run.stdout.splitlines() if l.startswith("message:")]
    whole = run.returncode == 0 and any("k must be at most 100, got 101" in l for l in lines)
    seen = f"exit {run.returncode}, " + (lines[0] if lines else "no message")
    ok = whole if expect == "whole" else not whole
    print(f"{'ok' if ok else 'FAIL'}: expected {expect}; {seen}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
