# torch.ops.samebits.attention* as users call them, from Python: every bad argument raises a
# RuntimeError whose message names what is accepted, on CPU tensors and (where a GPU is visible)
# on CUDA tensors; none ends the process. Good calls on the same tensors work (the control).
import sys

import torch

from error_paths import expect_error, host_checked, main


def check(device):
    ops = torch.ops.samebits
    bf = dict(device=device, dtype=torch.bfloat16)
    q = torch.randn(2, 4, 100, 64, **bf)
    k = torch.randn(2, 2, 100, 64, **bf)
    v = torch.randn(2, 2, 100, 64, **bf)
    out, lse = ops.attention(q, k, v)  # the control: a good call works
    assert out.shape == q.shape and lse.shape == (2, 4, 100), (out.shape, lse.shape)
    off = torch.tensor([0, 100, 200], device=device)
    pq, pk, pv = (x.transpose(1, 2).reshape(-1, x.size(1), 64) for x in (q, k, v))
    vout, _ = ops.attention_varlen(pq, pk, pv, off, off)
    assert torch.equal(vout.view(torch.int16), out.transpose(1, 2).reshape(-1, 4, 64).view(torch.int16))
    cache = torch.zeros(20, 16, 2, 64, **bf)
    table = torch.arange(14, dtype=torch.int32, device=device).view(2, 7)
    none = torch.zeros(2, dtype=torch.long, device=device)
    failures = [
        expect_error("float32 q", "q takes bfloat16 or float16", lambda: ops.attention(q.float(), k, v)),
        expect_error("mixed dtypes", "k must have q's dtype", lambda: ops.attention(q, k.half(), v)),
        expect_error("head dim 32", "head dim d must be 64, 128 or 256", lambda: ops.attention(q[..., :32], k, v)),
        expect_error("heads 3 over 2", "must be a multiple of Hkv", lambda: ops.attention(q[:, :3], k, v)),
        expect_error("rank 3 dense", "must be [B, H, L, d]", lambda: ops.attention(q[0], k, v)),
        expect_error("batch mismatch", "k and v must be [B, Hkv", lambda: ops.attention(q, k[:1], v[:1])),
        expect_error("offsets out of order", "offsets must rise",
                     host_checked(device, lambda: ops.attention_varlen(
                         pq, pk, pv, torch.tensor([0, 150, 100], device=device), off))),
        expect_error("offsets past the end", "offsets must rise",
                     host_checked(device, lambda: ops.attention_varlen(
                         pq, pk, pv, off, torch.tensor([0, 100, 900], device=device)))),
        expect_error("int32 offsets", "kv_offsets must be int64", lambda: ops.attention_varlen(pq, pk, pv, off, off.int())),
        expect_error("max_q_len too small", "exceeds max_length",
                     host_checked(device, lambda: ops.attention_varlen(pq, pk, pv, off, off, 10))),
        expect_error("page out of range", "is not a page of k_cache",
                     host_checked(device, lambda: ops.attention_with_kvcache(
                         pq, cache[:10], cache[:10].clone(), table, none, off))),
        expect_error("k_new alone", "give k_new and v_new together",
                     lambda: ops.attention_with_kvcache(pq, cache, cache.clone(), table, none, off, pk)),
        expect_error("negative cache length", "is negative",
                     host_checked(device, lambda: ops.attention_with_kvcache(
                         pq, cache, cache.clone(), table, -none - 1, off))),
        expect_error("too few table slots", "block_table has 3",
                     host_checked(device, lambda: ops.attention_with_kvcache(
                         pq, cache, cache.clone(), table[:, :3], none, off))),
    ]
    if device != "cpu":
        failures.append(expect_error("tensors on two devices", "must be on q's device",
                                     lambda: ops.attention(q, k.cpu(), v)))
    return [f"{device}: {f}" for f in failures if f]


if __name__ == "__main__":
    sys.exit(main(check, "attention ops error paths"))
