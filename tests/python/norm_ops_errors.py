# torch.ops.samebits.rms_norm and add_rms_norm as users call them, from Python: every bad argument
# raises an exception whose message names the value and what is accepted, on CPU tensors and (where
# a GPU is visible) on CUDA tensors; none ends the process. Good calls work (controls), strided,
# misaligned and expanded rows included (the same bits).
import sys

import torch

from error_paths import expect_equal, expect_error, main


def check(device):
    ops = torch.ops.samebits
    failures = []
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        name = str(dtype).replace("torch.", "")
        # Rows of +-2: mean square 4, so y = x / 2 * w exactly (eps = 0).
        x = (torch.tensor([2.0, -2.0] * 4).view(1, 8).repeat(3, 1)).to(dtype).to(device)
        w = torch.full((8,), 3.0).to(dtype).to(device)
        r = torch.zeros_like(x)
        y, h = ops.add_rms_norm(x, r, w, 0.0)
        wide = torch.zeros(3, 11, dtype=dtype, device=device)
        wide[:, :8] = x
        flat = torch.zeros(25, dtype=dtype, device=device)
        flat[1:] = x.reshape(-1)
        failures += [
            expect_equal(f"{name} rms_norm (control)", ops.rms_norm(x, w, 0.0), (x.float() * 1.5).to(dtype)),
            expect_equal(f"{name} add_rms_norm y (control)", y, (x.float() * 1.5).to(dtype)),
            expect_equal(f"{name} add_rms_norm h (control)", h, x),
            expect_equal(f"{name} strided rows", ops.rms_norm(wide[:, :8], w, 1e-6), ops.rms_norm(x, w, 1e-6)),
            expect_equal(f"{name} misaligned rows", ops.rms_norm(flat[1:].view(3, 8), w, 1e-6),
                         ops.rms_norm(x, w, 1e-6)),
            expect_equal(f"{name} expanded rows", ops.rms_norm(x[0].expand(3, 8), w, 1e-6),
                         ops.rms_norm(x, w, 1e-6)),
            expect_equal(f"{name} no rows", ops.rms_norm(x[:0], w, 1e-6), torch.zeros(0, 8, dtype=dtype)),
            expect_error(f"{name} w of another D", "w must be [D] = [8], got [7]",
                         lambda: ops.rms_norm(x, w[:7], 1e-6)),
            expect_error(f"{name} w of another dtype", "w must have x's dtype",
                         lambda: ops.rms_norm(x, w.double(), 1e-6)),
            expect_error(f"{name} empty rows", "the normalised dim (x's last) must not be empty",
                         lambda: ops.rms_norm(x[:, :0], w[:0], 1e-6)),
            expect_error(f"{name} 0-d x", "x must have at least one dim", lambda: ops.rms_norm(x[0, 0], w[:1], 1e-6)),
            expect_error(f"{name} negative eps", "eps must be finite and >= 0, got -1",
                         lambda: ops.rms_norm(x, w, -1.0)),
            expect_error(f"{name} NaN eps", "eps must be finite and >= 0",
                         lambda: ops.rms_norm(x, w, float("nan"))),
            expect_error(f"{name} residual of another shape", "residual must have x's shape",
                         lambda: ops.add_rms_norm(x, r[:2], w, 1e-6)),
            expect_error(f"{name} residual of another dtype", "residual must have x's dtype",
                         lambda: ops.add_rms_norm(x, r.double(), w, 1e-6)),
        ]
    x = torch.zeros(3, 8, device=device)
    failures += [
        expect_error("float64 rms_norm", "samebits.rms_norm takes float32, float16 or bfloat16, not Double",
                     lambda: ops.rms_norm(x.double(), torch.zeros(8, dtype=torch.float64, device=device), 1e-6)),
        expect_error("int32 add_rms_norm", "takes float32, float16 or bfloat16, not Int",
                     lambda: ops.add_rms_norm(x.int(), x.int(), torch.zeros(8, dtype=torch.int32, device=device),
                                              1e-6)),
    ]
    if device != "cpu":
        failures += [
            expect_error("w on the host", "w must be on x's device", lambda: ops.rms_norm(x, torch.zeros(8), 1e-6)),
            expect_error("residual on the host", "residual must be on x's device",
                         lambda: ops.add_rms_norm(x, torch.zeros(3, 8), torch.zeros(8, device=device), 1e-6)),
        ]
    return [f"{device}: {f}" for f in failures if f]


if __name__ == "__main__":
    sys.exit(main(check, "rms_norm and add_rms_norm ops' error paths"))
