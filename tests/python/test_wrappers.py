# samebits' kernel functions give exactly what torch.ops.samebits gives for the same arguments (the
# wrappers add nothing), and bad arguments raise with the C++ message. CUDA where a GPU is visible.
import pytest
import torch

import samebits

ops = torch.ops.samebits
DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
    not torch.cuda.is_available(), reason="no CUDA GPU visible"))]


def same_bits(a, b):
    """Tensors (or tuples of them) equal bit for bit, dtypes and shapes included."""
    if isinstance(a, torch.Tensor):
        return (a.dtype == b.dtype and a.shape == b.shape
                and torch.equal(a.view(-1).view(torch.uint8), b.view(-1).view(torch.uint8)))
    return len(a) == len(b) and all(same_bits(x, y) for x, y in zip(a, b))


def randn(*shape, dtype=torch.float32, device="cpu"):
    """Normal values drawn on the CPU (the same on every device), then moved."""
    generator = torch.Generator(device="cpu").manual_seed(sum(shape))
    return torch.randn(*shape, generator=generator).to(dtype=dtype, device=device)


def calls(device):
    """(name, wrapper call, torch.ops call) for every kernel, on small inputs."""
    x = randn(6, 40, device=device)
    off = torch.tensor([0, 7, 7, 40], device=device)
    flat = randn(40, device=device)
    bf = dict(dtype=torch.bfloat16, device=device)
    q, k, v = randn(2, 4, 16, 64, **bf), randn(2, 2, 24, 64, **bf), randn(2, 2, 24, 64, **bf)
    pq, pk, pv = randn(20, 4, 64, **bf), randn(30, 2, 64, **bf), randn(30, 2, 64, **bf)
    q_off = torch.tensor([0, 8, 20], device=device)
    kv_off = torch.tensor([0, 10, 30], device=device)
    w = randn(40, device=device)
    lw = randn(24, 40, device=device)
    iq, ikeys = randn(3, 4, 32, **bf), randn(50, 32, **bf)
    ioff = torch.tensor([0, 10, 30, 50], device=device)
    iw = randn(3, 4, device=device)
    return [
        ("sum", lambda: samebits.sum(x, 0), lambda: ops.sum(x, 0)),
        ("mean", lambda: samebits.mean(x, -1), lambda: ops.mean(x, -1)),
        ("sum_varlen", lambda: samebits.sum_varlen(flat, off), lambda: ops.sum_varlen(flat, off)),
        ("topk", lambda: samebits.topk(x, 5), lambda: ops.topk(x, 5)),
        ("topk_varlen", lambda: samebits.topk_varlen(flat, off, 3),
         lambda: ops.topk_varlen(flat, off, 3)),
        ("indexer", lambda: samebits.indexer(iq, ikeys, ioff, iw, 4, algorithm="exact"),
         lambda: ops.indexer(iq, ikeys, ioff, iw, 4, algorithm="exact")),
        ("attention", lambda: samebits.attention(q, k, v), lambda: ops.attention(q, k, v)),
        ("attention non-causal", lambda: samebits.attention(q, k, v, causal=False, scale=0.5),
         lambda: ops.attention(q, k, v, causal=False, scale=0.5)),
        ("attention_varlen", lambda: samebits.attention_varlen(pq, pk, pv, q_off, kv_off),
         lambda: ops.attention_varlen(pq, pk, pv, q_off, kv_off)),
        ("rms_norm", lambda: samebits.rms_norm(x, w, 1e-6), lambda: ops.rms_norm(x, w, 1e-6)),
        ("add_rms_norm", lambda: samebits.add_rms_norm(x, x * 2, w, 1e-6),
         lambda: ops.add_rms_norm(x, x * 2, w, 1e-6)),
        ("softmax", lambda: samebits.softmax(x), lambda: ops.softmax(x)),
        ("log_softmax float32 out", lambda: samebits.log_softmax(x.bfloat16(), torch.float32),
         lambda: ops.log_softmax(x.bfloat16(), torch.float32)),
        ("linear", lambda: samebits.linear(x, lw), lambda: ops.linear(x, lw)),
        ("linear with bias", lambda: samebits.linear(x, lw, lw[:, 0]),
         lambda: ops.linear(x, lw, lw[:, 0])),
        ("matmul", lambda: samebits.matmul(x, lw.t()), lambda: ops.matmul(x, lw.t())),
    ]


@pytest.mark.parametrize("device", DEVICES)
def test_each_wrapper_gives_the_ops_bits(device):
    for name, wrapped, direct in calls(device):
        assert same_bits(wrapped(), direct()), name


@pytest.mark.parametrize("device", DEVICES)
def test_results_are_named(device):
    x = randn(3, 50, device=device)
    values, indices = samebits.topk(x, 4)
    assert samebits.topk(x, 4).indices.dtype == torch.int64 and values.shape == (3, 4)
    y, h = samebits.add_rms_norm(x, x, torch.ones(50, device=device), 1e-6)
    assert same_bits(samebits.add_rms_norm(x, x, torch.ones(50, device=device), 1e-6).h, h)
    q = randn(1, 4, 8, 64, dtype=torch.bfloat16, device=device)
    out = samebits.attention(q, q[:, :2], q[:, :2])
    assert out.out.shape == q.shape and out.lse.shape == (1, 4, 8) and out.lse.dtype == torch.float32


@pytest.mark.parametrize("device", DEVICES)
def test_kvcache_writes_the_new_tokens_as_the_op_does(device):
    bf = dict(dtype=torch.bfloat16, device=device)
    q, k_new, v_new = randn(2, 4, 64, **bf), randn(2, 2, 64, **bf), randn(2, 2, 64, **bf)
    k_cache, v_cache = randn(8, 16, 2, 64, **bf), randn(8, 16, 2, 64, **bf)
    table = torch.arange(8, dtype=torch.int32, device=device).view(2, 4)
    lengths = torch.tensor([5, 20], device=device)
    q_off = torch.tensor([0, 1, 2], device=device)
    k1, v1, k2, v2 = k_cache.clone(), v_cache.clone(), k_cache.clone(), v_cache.clone()
    wrapped = samebits.attention_with_kvcache(q, k1, v1, table, lengths, q_off, k_new, v_new)
    direct = ops.attention_with_kvcache(q, k2, v2, table, lengths, q_off, k_new, v_new)
    assert same_bits(wrapped, direct)
    assert same_bits(k1, k2) and same_bits(v1, v2) and not same_bits(k1, k_cache)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("call, message", [
    (lambda d: samebits.sum(torch.ones(3, 4, dtype=torch.long, device=d), 1),
     "takes float32, float16 or bfloat16, not Long"),
    (lambda d: samebits.mean(torch.ones(3, 4, dtype=torch.float64, device=d), 0),
     "samebits.mean takes float32, float16 or bfloat16, not Double"),
    (lambda d: samebits.sum_varlen(torch.ones(12, device=d), torch.tensor([0, 4, 13], device=d)),
     "offsets must rise to at most values.numel() = 12"),
    (lambda d: samebits.topk(torch.ones(2, 100, device=d), 101),
     "k must be in [1, 100] (the last dim), got 101"),
    (lambda d: samebits.topk(torch.ones(2, 100, device=d), 3, algorithm="fastest"),
     "unknown algorithm \"fastest\""),
    (lambda d: samebits.attention(*[torch.ones(1, 2, 4, 64, device=d)] * 3),
     "q takes bfloat16 or float16"),
    (lambda d: samebits.attention(*[torch.ones(1, 2, 4, 32, dtype=torch.bfloat16, device=d)] * 3),
     "head dim d must be 64, 128 or 256"),
    (lambda d: samebits.rms_norm(torch.ones(2, 8, device=d), torch.ones(7, device=d), 1e-6),
     "samebits.rms_norm: w must be [D] = [8], got [7]"),
    (lambda d: samebits.softmax(torch.ones(2, 8, device=d), torch.float16),
     "dtype must be None (the result in x's dtype) or torch.float32, got Half"),
    (lambda d: samebits.linear(torch.ones(2, 8, device=d), torch.ones(3, 9, device=d)),
     "samebits.linear: w must be [N, K] with K = x.size(-1) = 8, got [3, 9]"),
])
def test_bad_arguments_raise_the_ops_message(device, call, message):
    with pytest.raises(RuntimeError) as error:
        call(device)
    assert message in str(error.value), str(error.value)
