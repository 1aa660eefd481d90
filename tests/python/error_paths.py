# What the ops' error-path scripts share: a bad call must raise with a message naming what is
# accepted, a good call must give the expected values, and main() runs a script's checks per device.
import argparse
import os

import torch


def expect_error(what, needle, fn, kinds=(RuntimeError,)):
    try:
        fn()
    except kinds as e:
        if needle not in str(e):
            return f"{what}: message lacks {needle!r}: {str(e).splitlines()[0]}"
        return None
    return f"{what}: no error raised"


def expect_equal(what, got, want):
    same = torch.equal(got.cpu(), want.cpu()) or (got.is_floating_point() and torch.equal(
        got.cpu().isnan(), want.isnan()) and bool(want.isnan().all()))
    return None if same else f"{what}: got {got}, want {want}"


def host_checked(device, fn):
    """fn with its metadata checked on the host: as it is on the CPU; on CUDA, where the kernels
    judge metadata on the device (NaN rows and a status, no sync), under SAMEBITS_DEBUG_METADATA=1,
    which raises the same messages."""
    if device == "cpu":
        return fn

    def call():
        os.environ["SAMEBITS_DEBUG_METADATA"] = "1"
        try:
            return fn()
        finally:
            del os.environ["SAMEBITS_DEBUG_METADATA"]
    return call


def main(check, label):
    """Loads --lib, runs check(device) on the CPU and (where visible) CUDA; exit 1 on a failure."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    a = ap.parse_args()
    torch.ops.load_library(a.lib)
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    failures = []
    for d in devices:
        failures += check(d)
    for f in failures:
        print("FAIL:", f)
    print(f"{'FAIL' if failures else 'ok'}: {label} on {', '.join(devices)}")
    return 1 if failures else 0
