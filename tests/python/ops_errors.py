# torch.ops.samebits' reductions, top-k and indexer as users call them, from Python: every bad
# argument raises an exception whose message names the value and what is accepted, on CPU tensors
# and (where a GPU is visible) on CUDA tensors; none ends the process. Good calls work (controls).
# The messages carry numbers on purpose: a C++ runtime that cannot format them (a second, static
# libstdc++ in the ops library) shows up here as a missing number, or as the crash it caused.
import os
import sys

import torch

from error_paths import expect_equal, expect_error, main


def check_reduce(device):
    ops = torch.ops.samebits
    x = torch.arange(12, dtype=torch.float32, device=device).view(3, 4)
    off = torch.tensor([0, 4, 12], device=device)
    return [
        expect_equal("sum rows (control)", ops.sum(x, 1), torch.tensor([6.0, 22.0, 38.0])),
        expect_equal("sum_varlen (control)", ops.sum_varlen(x.flatten(), off), torch.tensor([6.0, 60.0])),
        expect_equal("sum over an empty dim", ops.sum(x[:, :0], 1), torch.zeros(3)),
        expect_equal("mean over an empty dim", ops.mean(x[:, :0], 1), torch.full((3,), float("nan"))),
        expect_equal("sum of no rows", ops.sum(x[:0], 1), torch.zeros(0)),
        expect_equal("sum_varlen of empty rows", ops.sum_varlen(x.flatten()[:0], off[:2] * 0), torch.zeros(1)),
        expect_error("int64 sum", "takes float32, float16 or bfloat16, not Long",
                     lambda: ops.sum(x.long(), 1)),
        expect_error("float64 mean", "samebits.mean takes float32, float16 or bfloat16, not Double",
                     lambda: ops.mean(x.double(), 0)),
        expect_error("dim 2 of a 2-d tensor", "[-2, 1]", lambda: ops.sum(x, 2), (RuntimeError, IndexError)),
        expect_error("0-d sum", "needs at least one dim", lambda: ops.sum(x[0, 0], 0)),
        expect_error("2-d sum_varlen", "values must be 1-D", lambda: ops.sum_varlen(x, off)),
        expect_error("int32 offsets", "offsets must be a 1-D int64", lambda: ops.sum_varlen(x.flatten(), off.int())),
        expect_error("offsets past the end", "offsets must rise to at most values.numel() = 12; row 1 has [4, 13)",
                     lambda: ops.sum_varlen(x.flatten(), torch.tensor([0, 4, 13], device=device))),
        expect_error("offsets falling", "row 0 has [5, 4)",
                     lambda: ops.sum_varlen(x.flatten(), torch.tensor([5, 4, 12], device=device))),
        expect_error("negative first offset", "offsets[0] must be >= 0, got -1",
                     lambda: ops.sum_varlen(x.flatten(), torch.tensor([-1, 4, 12], device=device))),
    ]


def check_topk(device):
    ops = torch.ops.samebits
    x = torch.arange(100, dtype=torch.float32, device=device).flip(0).view(1, 100)
    off = torch.tensor([0, 40, 100], device=device)
    values, indices = ops.topk(x, 3)
    return [
        expect_equal("topk (control)", indices, torch.tensor([[0, 1, 2]])),
        expect_equal("topk values (control)", values, torch.tensor([[99.0, 98.0, 97.0]])),
        expect_equal("topk of no rows", ops.topk(x[:0], 3)[1], torch.zeros(0, 3, dtype=torch.long)),
        expect_equal("topk_varlen of empty rows", ops.topk_varlen(x.flatten()[:0], off * 0, 2)[1],
                     torch.full((2, 2), -1)),
        expect_equal("topk_varlen of a short row (control of the empty slots)",
                     ops.topk_varlen(x.flatten()[:1], off[:2] * 0 + torch.tensor([0, 1], device=device), 2)[1],
                     torch.tensor([[0, -1]])),
        expect_error("k past the row", "k must be in [1, 100] (the last dim), got 101", lambda: ops.topk(x, 101)),
        expect_error("k = 0", "k must be in [1, 100] (the last dim), got 0", lambda: ops.topk(x, 0)),
        expect_error("negative k", "got -5", lambda: ops.topk(x, -5)),
        expect_error("0-d topk", "needs at least one dim", lambda: ops.topk(x[0, 0], 1)),
        expect_error("int32 topk", "samebits.topk takes float32, float16 or bfloat16, not Int",
                     lambda: ops.topk(x.int(), 3)),
        expect_error("unknown algorithm", 'unknown algorithm "bitonic"', lambda: ops.topk(x, 3, "bitonic")),
        expect_error("warp_select past its k", "warp_select takes k <= ",
                     lambda: ops.topk(torch.zeros(1, 4096, device=device), 2048, "warp_select")),
        expect_error("split_select past its k", "split_select takes k <= 4096",
                     lambda: ops.topk(torch.zeros(1, 8192, device=device), 5000, "split_select")),
        expect_equal("split_select of a short varlen row (k past its length: filler slots)",
                     ops.topk_varlen(torch.tensor([2.0, 1.0], device=device), torch.tensor([0, 2], device=device),
                                     3, algorithm="split_select")[1],
                     torch.tensor([[0, 1, -1]])),
        expect_error("2-d topk_varlen", "values must be 1-D", lambda: ops.topk_varlen(x, off, 3)),
        expect_error("int32 varlen offsets", "offsets must be a 1-D int64",
                     lambda: ops.topk_varlen(x.flatten(), off.int(), 3)),
        expect_error("varlen offsets past the end", "row 1 has [40, 101)",
                     debug(lambda: ops.topk_varlen(x.flatten(), torch.tensor([0, 40, 101], device=device), 3))),
        expect_error("max_length below a row", "a row of length 60 exceeds max_length = 50",
                     debug(lambda: ops.topk_varlen(x.flatten(), off, 3, 50))),
        expect_error("max_length below a row, unsafe on host offsets", "a row of length 60 exceeds max_length = 50",
                     lambda: ops.topk_varlen(x.flatten().cpu(), off.cpu(), 3, 50, unsafe=True)),
        expect_error("varlen k = 0", "k must be at least 1, got 0", lambda: ops.topk_varlen(x.flatten(), off, 0)),
    ]


def check_indexer(device):
    ops = torch.ops.samebits
    bf = dict(device=device, dtype=torch.bfloat16)
    q = torch.randn(2, 4, 64, **bf)
    keys = torch.randn(300, 64, **bf)
    off = torch.tensor([0, 100, 300], device=device)
    w = torch.rand(2, 4, device=device)
    scores, _, top = ops.indexer(q, keys, off, w, 8)
    exact, _, _ = ops.indexer(q, keys, off, w, 8, algorithm="exact")
    return [
        None if scores.shape[0] == 300 and top.shape == (2, 8) else f"indexer (control): {scores.shape}, {top.shape}",
        None if exact.shape == scores.shape else f"indexer exact (control): {exact.shape}",
        expect_error("unknown algorithm", 'algorithm must be "tensor_cores" or "exact", got "fast"',
                     lambda: ops.indexer(q, keys, off, w, 8, algorithm="fast")),
        expect_error("2-d q", "q must be [B, H, d], got [4, 64]", lambda: ops.indexer(q[0], keys, off, w, 8)),
        expect_error("keys' d", "keys must be [total, d] with d = 64, got [300, 32]",
                     lambda: ops.indexer(q, keys[:, :32], off, w, 8)),
        expect_error("float16 q", "take bfloat16 or float8_e4m3fn, not Half",
                     lambda: ops.indexer(q.half(), keys.half(), off, w, 8)),
        expect_error("3 heads", "must be 4, 8, 16, 32 or 64, got 3", lambda: ops.indexer(q[:, :3], keys, off, w[:, :3], 8)),
        expect_error("k = 0", "k must be in [1, ", lambda: ops.indexer(q, keys, off, w, 0)),
        expect_error("weights' shape", "weights must be float32 [B, H] = [2, 4], got Float [2, 3]",
                     lambda: ops.indexer(q, keys, off, w[:, :3], 8)),
        expect_error("offsets' length", "offsets must be int64 [B + 1], got Long [2]",
                     lambda: ops.indexer(q, keys, off[:2], w, 8)),
        expect_error("offsets past the keys", "offsets must rise to at most keys.size(0) = 300",
                     debug(lambda: ops.indexer(q, keys, torch.tensor([0, 100, 301], device=device), w, 8))),
        expect_error("max_length below an item", "a row of length 200 exceeds max_length = 150",
                     debug(lambda: ops.indexer(q, keys, off, w, 8, 150))),
        expect_error("scales with bf16", "q_scale and k_scale go with float8_e4m3fn inputs only",
                     lambda: ops.indexer(q, keys, off, w, 8, -1, torch.ones(2, device=device))),
    ]


def check(device):
    failures = check_reduce(device) + check_topk(device) + check_indexer(device)
    if device != "cpu":
        ops = torch.ops.samebits
        x = torch.zeros(1, 100, device=device)
        failures += [
            expect_error("offsets on the host", "values and offsets must be on one device",
                         lambda: ops.topk_varlen(x.flatten(), torch.tensor([0, 100]), 3)),
            expect_error("indexer keys on the host", "every tensor must be on q's device",
                         lambda: ops.indexer(torch.zeros(1, 4, 64, device=device, dtype=torch.bfloat16),
                                             torch.zeros(10, 64, dtype=torch.bfloat16),
                                             torch.tensor([0, 10], device=device),
                                             torch.ones(1, 4, device=device), 4)),
        ]
        failures += check_graph_capture(device)
    return [f"{device}: {f}" for f in failures if f]


def check_graph_capture(device):
    """CUDA offsets stay on the device: the default call (no max_length, no unsafe) captures and
    replays to the eager results; the debug switch's host check is refused under capture."""
    ops = torch.ops.samebits
    x = torch.randn(160, device=device)
    off = torch.tensor([0, 60, 100, 160], device=device)
    want_v, want_i = ops.topk_varlen(x, off, 5)
    failures = []
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        ops.topk_varlen(x, off, 5)  # warm-up outside the capture
        stream.synchronize()
        refused = torch.cuda.CUDAGraph()
        failures.append(expect_error(
            "debug-checked topk_varlen under capture", "SAMEBITS_DEBUG_METADATA copies the offsets",
            debug(lambda: capture(refused, stream, lambda: ops.topk_varlen(x, off, 5)))))
        graph = torch.cuda.CUDAGraph()
        try:
            got_v, got_i = capture(graph, stream, lambda: ops.topk_varlen(x, off, 5))
        except RuntimeError as e:
            return failures + [f"topk_varlen under capture: {str(e).splitlines()[0]}"]
    graph.replay()
    torch.cuda.synchronize()
    return failures + [expect_equal("captured topk_varlen values", got_v, want_v),
                       expect_equal("captured topk_varlen indices", got_i, want_i)]


def debug(fn):
    """fn, run with SAMEBITS_DEBUG_METADATA=1: CUDA offsets are checked on the host and raise
    (host offsets always are)."""
    def run():
        os.environ["SAMEBITS_DEBUG_METADATA"] = "1"
        try:
            return fn()
        finally:
            del os.environ["SAMEBITS_DEBUG_METADATA"]
    return run


def capture(graph, stream, fn):
    with torch.cuda.graph(graph, stream=stream):
        return fn()


if __name__ == "__main__":
    sys.exit(main(check, "reduce, top-k and indexer ops' error paths"))
