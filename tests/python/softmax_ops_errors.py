# torch.ops.samebits.softmax / log_softmax from Python: every bad argument raises a RuntimeError
# whose message names what is accepted, on CPU and (where a GPU is visible) CUDA tensors; layouts
# the op takes (strided, transposed, misaligned, empty) give the contiguous row's bits.
import sys

import torch

from error_paths import expect_equal, expect_error, main


def bits(t):
    return t.contiguous().view(torch.int32 if t.element_size() == 4 else torch.int16)


def check(device):
    ops = torch.ops.samebits
    failures = []
    for name in ("softmax", "log_softmax"):
        op = getattr(ops, name)
        x = torch.randn(6, 1001, device=device)
        want = op(x)  # the control: a good call works
        ref = getattr(torch, name)(x.double(), -1).float()
        if not torch.allclose(want, ref, rtol=1e-5, atol=1e-6):
            failures.append(f"{name}: far from float64")
        wide = torch.full((6, 1005), float("nan"), device=device)
        wide[:, :1001] = x
        storage = torch.full((6 * 1001 + 1,), float("nan"), device=device)
        shifted = storage[1:].view(6, 1001)
        shifted.copy_(x)
        failures += [
            expect_equal(f"{name} strided rows", bits(op(wide[:, :1001])), bits(want)),
            expect_equal(f"{name} misaligned rows", bits(op(shifted)), bits(want)),
            expect_equal(f"{name} transposed storage", bits(op(x.t().contiguous().t())), bits(want)),
            expect_equal(f"{name} row alone", bits(op(x[3])), bits(want[3])),
            expect_equal(f"{name} empty", torch.tensor(op(x[:0]).shape), torch.tensor([0, 1001])),
            expect_equal(f"{name} bf16 to float32 dtype", torch.tensor(op(x.bfloat16(), torch.float32).dtype == torch.float32), torch.tensor(True)),
            expect_equal(f"{name} keeps bf16", torch.tensor(op(x.bfloat16()).dtype == torch.bfloat16), torch.tensor(True)),
            expect_error(f"{name} float64", "takes float32, float16 or bfloat16", lambda: op(x.double())),
            expect_error(f"{name} int64", "takes float32, float16 or bfloat16", lambda: op(x.long())),
            expect_error(f"{name} 0-dim", "at least one dim", lambda: op(x[0, 0])),
            expect_error(f"{name} dtype float16", "dtype must be None", lambda: op(x, torch.float16)),
            expect_error(f"{name} dtype float64", "dtype must be None", lambda: op(x.half(), torch.float64)),
        ]
    return [f"{device}: {f}" for f in failures if f]


if __name__ == "__main__":
    sys.exit(main(check, "softmax ops error paths"))
