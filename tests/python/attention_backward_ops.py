# torch.ops.samebits.attention*_backward from Python (CPU; CUDA where visible): bad arguments raise
# naming what is accepted; loss.backward() gives the ops' bits and float64 autograd's values.
import functools
import importlib.util
import math
import pathlib
import sys

import torch

from error_paths import expect_error, host_checked, main

ROOT = pathlib.Path(__file__).resolve().parents[2]


@functools.lru_cache(maxsize=None)
def attention_module():
    """python/samebits/attention.py alone (the typed wrappers), without the C++ engine; the ops
    and their autograd kernels come from the library loaded by --lib."""
    spec = importlib.util.spec_from_file_location("samebits_attention",
                                                  ROOT / "python/samebits/attention.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def reference_grads(q, k, v, dout, causal):
    """float64 autograd of softmax(q k^T / sqrt(d)) v over the same (rounded) inputs."""
    q64, k64, v64 = (x.detach().cpu().double().requires_grad_() for x in (q, k, v))
    group = q.size(1) // k.size(1)
    kk, vv = k64.repeat_interleave(group, 1), v64.repeat_interleave(group, 1)
    s = q64 @ kk.transpose(-1, -2) / math.sqrt(q.size(-1))
    if causal:
        lq, lk = q.size(2), k.size(2)
        s = s.masked_fill(torch.arange(lk).view(1, -1) > torch.arange(lk - lq, lk).view(-1, 1),
                          float("-inf"))
    (torch.softmax(s, -1) @ vv * dout.cpu().double()).sum().backward()
    return q64.grad, k64.grad, v64.grad


def check(device):
    ops, att = torch.ops.samebits, attention_module()
    failures = []
    gen = torch.Generator().manual_seed(3)
    bf = dict(device=device, dtype=torch.bfloat16)
    q, k, v = (torch.randn(*shape, generator=gen).to(**bf)
               for shape in ((2, 4, 30, 64), (2, 2, 40, 64), (2, 2, 40, 64)))
    dout = torch.randn(2, 4, 30, 64, generator=gen).to(**bf)
    for causal in (True, False):
        # The control: autograd through samebits.attention gives the explicit op's bits, and within
        # bfloat16's rounding of float64 autograd (2^-6 of the largest gradient, a few ulps).
        leaves = [x.clone().requires_grad_() for x in (q, k, v)]
        out, lse = att.attention(*leaves, causal=causal)
        out.backward(dout)
        grads = ops.attention_backward(dout, q, k, v, out.detach(), lse, causal)
        for name, got, want, ref in zip("qkv", [x.grad for x in leaves], grads,
                                        reference_grads(q, k, v, dout, causal)):
            if not torch.equal(got.view(torch.int16), want.view(torch.int16)):
                failures.append(f"d{name}: loss.backward() differs from attention_backward")
            if (got.cpu().double() - ref).abs().max() > 2 ** -6 * ref.abs().max():
                failures.append(f"d{name}: causal={causal}: off float64 autograd")
    out, lse = ops.attention(q, k, v)
    # Packed: the dense batch as two sequences gives the dense bits; so does autograd through it.
    packed = lambda x: x.transpose(1, 2).reshape(-1, x.size(1), 64)  # noqa: E731
    pq, pk, pv, pdo, po = (packed(x) for x in (q, k, v, dout, out))
    plse = lse.permute(1, 0, 2).reshape(4, -1)
    q_off = torch.tensor([0, 30, 60], device=device)
    kv_off = torch.tensor([0, 40, 80], device=device)
    dense = ops.attention_backward(dout, q, k, v, out, lse)
    varlen = ops.attention_varlen_backward(pdo, pq, pk, pv, po, plse, q_off, kv_off)
    for name, d, p in zip("qkv", dense, varlen):
        if not torch.equal(packed(d).view(torch.int16), p.view(torch.int16)):
            failures.append(f"d{name}: the packed layout differs from the dense one")
    leaves = [x.clone().requires_grad_() for x in (pq, pk, pv)]
    att.attention_varlen(*leaves, q_off, kv_off).out.backward(pdo)
    if not all(torch.equal(x.grad.view(torch.int16), p.view(torch.int16))
               for x, p in zip(leaves, varlen)):
        failures.append("attention_varlen: loss.backward() differs from attention_varlen_backward")
    # A sequence of 5 keys and no queries between the two: zeros for its keys, the others' bits.
    gap_k, gap_v = (torch.cat([x[:40], x[:0].new_ones(5, 2, 64), x[40:]]) for x in (pk, pv))
    gap_kv = torch.tensor([0, 40, 45, 85], device=device)
    q_gap = torch.tensor([0, 30, 30, 60], device=device)
    g = ops.attention_varlen_backward(pdo, pq, gap_k, gap_v, po, plse, q_gap, gap_kv, 30)
    if not (torch.equal(g[1][40:45], torch.zeros_like(g[1][40:45]))
            and torch.equal(torch.cat([g[1][:40], g[1][45:]]).view(torch.int16),
                            varlen[1].view(torch.int16))
            and torch.equal(g[0].view(torch.int16), varlen[0].view(torch.int16))):
        failures.append("a sequence without queries got gradients or moved the others' bits")
    bad = [
        ("float32 dout", "dout must have q's dtype",
         lambda: ops.attention_backward(dout.float(), q, k, v, out, lse)),
        ("dout of another shape", "dout must have q's shape",
         lambda: ops.attention_backward(dout[:, :, :10], q, k, v, out, lse)),
        ("out of another shape", "out must have q's shape",
         lambda: ops.attention_backward(dout, q, k, v, out[:1], lse)),
        ("lse in bfloat16", "lse must be the forward's float32 [B, H, Lq]",
         lambda: ops.attention_backward(dout, q, k, v, out, lse.bfloat16())),
        ("lse of another shape", "lse must be the forward's float32 [B, H, Lq]",
         lambda: ops.attention_backward(dout, q, k, v, out, lse[:, :2])),
        ("lse missing", "lse is required",
         lambda: ops.attention_backward(dout, q, k, v, out, None)),
        ("packed lse missing", "lse is required",
         lambda: ops.attention_varlen_backward(pdo, pq, pk, pv, po, None, q_off, kv_off)),
        ("float32 q", "q takes bfloat16 or float16",
         lambda: ops.attention_backward(dout, q.float(), k, v, out, lse)),
        ("head dim 32", "head dim d must be 64, 128 or 256",
         lambda: ops.attention_backward(dout[..., :32], q[..., :32], k[..., :32], v[..., :32],
                                        out[..., :32], lse)),
        ("packed lse as dense", "lse must be the forward's float32 [H, Tq]",
         lambda: ops.attention_varlen_backward(pdo, pq, pk, pv, po, lse, q_off, kv_off)),
        ("offsets past the end", "offsets must rise",
         host_checked(device, lambda: ops.attention_varlen_backward(
             pdo, pq, pk, pv, po, plse, q_off, torch.tensor([0, 40, 90], device=device)))),
        ("mismatched offsets", "kv_offsets must be int64 [B + 1]",
         lambda: ops.attention_varlen_backward(pdo, pq, pk, pv, po, plse, q_off, kv_off[:2])),
        ("int32 offsets", "q_offsets must be int64",
         lambda: ops.attention_varlen_backward(pdo, pq, pk, pv, po, plse, q_off.int(), kv_off)),
        ("packed dout of another shape", "dout must have q's shape",
         lambda: ops.attention_varlen_backward(pdo[:5], pq, pk, pv, po, plse, q_off, kv_off)),
        ("status of int64", "status must be an int32 tensor of one element",
         lambda: ops.attention_varlen_backward(pdo, pq, pk, pv, po, plse, q_off, kv_off, -1,
                                               True, None, -1,
                                               torch.zeros(1, dtype=torch.long, device=device))),
    ]
    if device != "cpu":
        bad += [
            ("dout on the CPU", "dout must be on q's device",
             lambda: ops.attention_backward(dout.cpu(), q, k, v, out, lse)),
            ("lse on the CPU", "on q's device",
             lambda: ops.attention_backward(dout, q, k, v, out, lse.cpu())),
            ("offsets on the CPU", "must be on q's device",
             lambda: ops.attention_varlen_backward(pdo, pq, pk, pv, po, plse, q_off.cpu(), kv_off)),
        ]
    failures += [expect_error(*case) for case in bad]
    if device != "cpu":
        # By default CUDA metadata stay on the device: the sequence whose keys run past k is read
        # nowhere and its dq rows are NaN; its neighbour keeps its bits.
        status = torch.zeros(1, dtype=torch.int32, device=device)
        flawed = ops.attention_varlen_backward(pdo, pq, pk, pv, po, plse, q_off,
                                               torch.tensor([0, 40, 90], device=device), 30,
                                               True, None, 50, status)
        good_status = torch.zeros(1, dtype=torch.int32, device=device)
        good = ops.attention_varlen_backward(pdo, pq, pk, pv, po, plse, q_off, kv_off, 30, True,
                                             None, 40, good_status)
        if not (flawed[0][30:].isnan().all() and not flawed[0][:30].isnan().any()
                and torch.equal(flawed[0][:30].view(torch.int16), good[0][:30].view(torch.int16))):
            failures.append("offsets past the end: the flawed sequence's dq rows are not NaN, or "
                            "its neighbour's bits moved")
        # Flaw 1 (outside k) in the flawed call's status; none in the sound call's, whose tight
        # bounds give the bits of the default ones.
        if status.item() != 1 or good_status.item() != 0:
            failures.append(f"status: {status.item()} and {good_status.item()}, want 1 and 0")
        default = ops.attention_varlen_backward(pdo, pq, pk, pv, po, plse, q_off, kv_off)
        if not all(torch.equal(a.view(torch.int16), b.view(torch.int16))
                   for a, b in zip(default, good)):
            failures.append("tight max_q_len and max_kv_len changed the gradients' bits")
    return [f"{device}: {f}" for f in failures if f]


if __name__ == "__main__":
    sys.exit(main(check, "attention backward ops"))
