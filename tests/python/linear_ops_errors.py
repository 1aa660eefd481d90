# torch.ops.samebits.linear and samebits.matmul as users call them, from Python: every bad argument
# raises an exception whose message names the value and what is accepted, on CPU tensors and (where
# a GPU is visible) on CUDA tensors; none ends the process. Good calls work (controls), strided and
# misaligned rows included (staged by the binding, the same bits).
import sys

import torch

from error_paths import expect_equal, expect_error, main


def check(device):
    ops = torch.ops.samebits
    failures = []
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        x = torch.arange(24, dtype=torch.float32).view(3, 8).div(8).to(dtype).to(device)
        w = torch.eye(8)[:5].to(dtype).to(device)  # picks columns 0..4 of x: exact in any order
        b = torch.arange(5, dtype=torch.float32).to(dtype).to(device)
        name = str(dtype).replace("torch.", "")
        failures += [
            expect_equal(f"{name} linear (control)", ops.linear(x, w, b), (x[:, :5].float() + b.float()).to(dtype)),
            expect_equal(f"{name} linear without bias (control)", ops.linear(x, w), x[:, :5]),
            expect_equal(f"{name} matmul (control)", ops.matmul(x, w.t()), x[:, :5]),
            expect_equal(f"{name} linear of 3-d x", ops.linear(x.view(1, 3, 8), w), x[:, :5].view(1, 3, 5)),
            expect_equal(f"{name} linear of a column slice (strided rows)", ops.linear(x[:, 1:], w[:, 1:]),
                         ops.linear(x[:, 1:].contiguous(), w[:, 1:].contiguous())),
            expect_equal(f"{name} linear of no rows", ops.linear(x[:0], w, b), torch.zeros(0, 5, dtype=dtype)),
            expect_equal(f"{name} matmul of no rows", ops.matmul(x[:0].view(2, 0, 8), w.t()),
                         torch.zeros(2, 0, 5, dtype=dtype)),
            expect_equal(f"{name} K = 0: the bias", ops.linear(x[:, :0], w[:, :0], b), b.expand(3, 5)),
            expect_error(f"{name} w of another K", "w must be [N, K] with K = x.size(-1) = 8, got [5, 7]",
                         lambda: ops.linear(x, w[:, :7])),
            expect_error(f"{name} 1-d w", "w must be [N, K], got [8]", lambda: ops.linear(x, w[0])),
            expect_error(f"{name} 0-d x", "x must be [..., K] (at least 1-D)", lambda: ops.linear(x[0, 0], w)),
            expect_error(f"{name} bias of another N", "bias must be [N] with N = w.size(0) = 5, got [4]",
                         lambda: ops.linear(x, w, b[:4])),
            expect_error(f"{name} 2-d bias", "bias must be [N]", lambda: ops.linear(x, w, b.view(1, 5))),
            expect_error(f"{name} w of another dtype", "w must have x's dtype",
                         lambda: ops.linear(x, w.double())),
            expect_error(f"{name} bias of another dtype", "bias must have x's dtype",
                         lambda: ops.linear(x, w, b.double())),
            expect_error(f"{name} 1-d matmul a", "a must be [..., K] with at least 2 dims",
                         lambda: ops.matmul(x[0], w.t())),
            expect_error(f"{name} matmul b of another K", "b must be [K, N] with K = a.size(-1) = 8, got [7, 5]",
                         lambda: ops.matmul(x, w.t()[:7])),
            expect_error(f"{name} 3-d matmul b", "b must be [K, N]", lambda: ops.matmul(x, w.t().view(1, 8, 5))),
        ]
    x = torch.zeros(3, 8, device=device)
    failures += [
        expect_error("float64 linear", "samebits.linear takes float32, float16 or bfloat16, not Double",
                     lambda: ops.linear(x.double(), torch.zeros(5, 8, dtype=torch.float64, device=device))),
        expect_error("int32 linear", "takes float32, float16 or bfloat16, not Int",
                     lambda: ops.linear(x.int(), torch.zeros(5, 8, dtype=torch.int32, device=device))),
        expect_error("float64 matmul", "takes float32, float16 or bfloat16, not Double",
                     lambda: ops.matmul(x.double(), torch.zeros(8, 5, dtype=torch.float64, device=device))),
    ]
    if device != "cpu":
        failures += [
            expect_error("w on the host", "w must be on x's device", lambda: ops.linear(x, torch.zeros(5, 8))),
            expect_error("bias on the host", "bias must be on x's device",
                         lambda: ops.linear(x, torch.zeros(5, 8, device=device), torch.zeros(5))),
            expect_error("matmul b on the host", "w must be on x's device", lambda: ops.matmul(x, torch.zeros(8, 5))),
        ]
        # Misaligned bf16 rows (one-element offset, odd row stride): staged, the same bits.
        a = torch.randn(65, 1001, device=device, dtype=torch.bfloat16)
        w = torch.randn(33, 1001, device=device, dtype=torch.bfloat16)
        buf = torch.empty(65 * 1002 + 1, device=device, dtype=torch.bfloat16)
        view = buf[1:].view(65, 1002)[:, :1001]
        view.copy_(a)
        failures.append(expect_equal("misaligned bf16 rows", ops.linear(view, w), ops.linear(a, w)))
    return [f"{device}: {f}" for f in failures if f]


if __name__ == "__main__":
    sys.exit(main(check, "linear and matmul ops' error paths"))
