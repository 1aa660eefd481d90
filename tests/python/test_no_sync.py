# top-k and the indexer on CUDA make no host sync on their default path, capture into a CUDA graph
# that replays to eager's bits (with offsets changed in place, as an engine drives it), and mark
# hostile rows with a status instead of reading past their tensors. Skipped without a GPU.
import pytest
import torch

import samebits

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU visible")

OUTSIDE, DECREASING, TOO_LONG = 1, 2, 4


def same_bits(a, b):
    return (a.dtype == b.dtype and a.shape == b.shape
            and torch.equal(a.reshape(-1).view(torch.uint8), b.reshape(-1).view(torch.uint8)))


def inputs():
    generator = torch.Generator().manual_seed(7)
    values = torch.randn(3000, generator=generator).cuda()
    q = torch.randn(3, 8, 64, generator=generator).to(torch.bfloat16).cuda()
    keys = torch.randn(3000, 64, generator=generator).to(torch.bfloat16).cuda()
    weights = torch.rand(3, 8, generator=generator).cuda()
    offsets = torch.tensor([0, 1000, 1000, 3000]).cuda()
    return values, q, keys, weights, offsets


def calls(values, q, keys, weights, offsets, status=None):
    """Every default-path call (no max_length; or one given) of both ops, as (name, thunk)."""
    return [
        ("topk_varlen", lambda: samebits.topk_varlen(values, offsets, 8, status=status)),
        ("topk_varlen max_length", lambda: samebits.topk_varlen(values, offsets, 8, 2000,
                                                                status=status)),
        ("topk_varlen radix_select", lambda: samebits.topk_varlen(
            values, offsets, 8, algorithm="radix_select", status=status)),
        ("topk_varlen split_select", lambda: samebits.topk_varlen(
            values, offsets, 8, 2000, algorithm="split_select", status=status)),
        ("topk_varlen warp_select", lambda: samebits.topk_varlen(
            values, offsets, 8, 2000, algorithm="warp_select", status=status)),
        ("indexer", lambda: samebits.indexer(q, keys, offsets, weights, 16, status=status)),
        ("indexer exact", lambda: samebits.indexer(q, keys, offsets, weights, 16, 2000,
                                                   algorithm="exact", status=status)),
    ]


def assert_no_host_sync(named_calls):
    """Each call, after a warm-up (the first call of a kernel may set its attributes), under
    torch's sync debug mode "error": a copy to the host or a synchronize fails the test."""
    for name, call in named_calls:
        call()
        torch.cuda.synchronize()
        torch.cuda.set_sync_debug_mode("error")
        try:
            call()
        except RuntimeError as e:
            pytest.fail(f"{name} synchronized with the host: {e}")
        finally:
            torch.cuda.set_sync_debug_mode("default")


def test_default_calls_make_no_host_sync():
    values, q, keys, weights, offsets = inputs()
    status = torch.zeros(1, dtype=torch.int32, device="cuda")
    assert_no_host_sync(calls(values, q, keys, weights, offsets, status))
    assert status.item() == 0


def test_debug_switch_syncs():
    """The control: SAMEBITS_DEBUG_METADATA copies the offsets to the host, which the sync
    debug mode catches (so the test above can fail)."""
    values, _, _, _, offsets = inputs()
    with pytest.MonkeyPatch.context() as env:
        env.setenv("SAMEBITS_DEBUG_METADATA", "1")
        torch.cuda.set_sync_debug_mode("error")
        try:
            with pytest.raises(RuntimeError):
                samebits.topk_varlen(values, offsets, 8)
        finally:
            torch.cuda.set_sync_debug_mode("default")


def test_capture_replays_eager_with_offsets_changed_in_place():
    values, q, keys, weights, offsets = inputs()
    status = torch.zeros(1, dtype=torch.int32, device="cuda")
    for name, call in calls(values, q, keys, weights, offsets, status):
        offsets.copy_(torch.tensor([0, 1000, 1000, 3000]))
        eager = call()
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            call()
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            captured = call()
        graph.replay()
        torch.cuda.synchronize()
        for got, want in zip(captured, eager):
            assert same_bits(got, want), f"{name}: replay differs from eager"
        # New lengths, written in place: the replay follows them.
        offsets.copy_(torch.tensor([0, 10, 1500, 2999]))
        graph.replay()
        fresh = call()
        torch.cuda.synchronize()
        for got, want in zip(captured, fresh):
            if got.dim() == 1 and got.numel() == keys.size(0):  # the indexer's scores: key 2999
                got, want = got[:2999], want[:2999]  # is in no item now, its slot unwritten
            assert same_bits(got, want), f"{name}: replay after an in-place update differs"
        # A stale capture would be caught: the results did change.
        assert not same_bits(captured[-1], eager[-1]), f"{name}: the update changed nothing"
        assert status.item() == 0, name
        # Hostile offsets written in place: marked rows and a status, no fault.
        offsets.copy_(torch.tensor([0, 2000, 100, 5000]))
        graph.replay()
        torch.cuda.synchronize()
        assert status.item() == OUTSIDE | DECREASING | TOO_LONG, name  # [100, 5000): both
        indices = captured[-1]
        assert bool((indices[1:] == -1).all()), f"{name}: flawed rows not marked"
        assert bool((indices[0, :8] >= 0).all()), f"{name}: the clean row was marked"
        status.zero_()


def test_hostile_rows_are_marked_without_sync():
    values, q, keys, weights, _ = inputs()
    cases = [([0, 100, 3001], [0, OUTSIDE | TOO_LONG]),  # [100, 3001): past 3000 and 2000 ([0, 200, 100, 300], [0, DECREASING, 0]),
             ([-5, 10, 20], [OUTSIDE, 0]), ([0, 10, 2500, 3000], [0, TOO_LONG, 0]),
             ([0, 2**40, 3000], [OUTSIDE | TOO_LONG, OUTSIDE | DECREASING])]
    for offsets, flaws in cases:
        off = torch.tensor(offsets, device="cuda")
        rows = len(flaws)
        status = torch.zeros(1, dtype=torch.int32, device="cuda")
        v, i = samebits.topk_varlen(values, off, 4, 2000, status=status)
        s2 = torch.zeros(1, dtype=torch.int32, device="cuda")
        _, tv, ti = samebits.indexer(q[:rows].contiguous(), keys, off, weights[:rows].contiguous(),
                                     4, 2000, status=s2)
        want = 0
        for r, f in enumerate(flaws):
            want |= f
            marked = bool((i[r] == -1).all()) and bool(torch.isnan(v[r]).all())
            assert marked == bool(f), f"topk_varlen {offsets} row {r}"
            marked = bool((ti[r] == -1).all()) and bool(torch.isnan(tv[r]).all())
            assert marked == bool(f), f"indexer {offsets} item {r}"
        assert status.item() == want and s2.item() == want, offsets
        with pytest.MonkeyPatch.context() as env:  # the debug switch raises instead
            env.setenv("SAMEBITS_DEBUG_METADATA", "1")
            with pytest.raises(RuntimeError, match="samebits.topk_varlen: "):
                samebits.topk_varlen(values, off, 4, 2000)


# The attention ops (issue 32): dense, varlen and paged, the same no-sync, capture and guard tests.
NEGATIVE_CACHE_LENGTH, PAGES_BEYOND_TABLE, PAGE_OUTSIDE = 8, 16, 32


def bf16(generator, *shape):
    return torch.randn(*shape, generator=generator).to(torch.bfloat16).cuda()


class Paged:
    """Three decoding sequences over a cache of 24 pages of 16 (H 4, Hkv 2, d 64), each with a
    block-table row of 8 scrambled pages, and one new token each (q, k_new, v_new)."""

    def __init__(self, seed=5):
        g = torch.Generator().manual_seed(seed)
        self.k_cache, self.v_cache = bf16(g, 24, 16, 2, 64), bf16(g, 24, 16, 2, 64)
        self.table = torch.randperm(24, generator=g)[:24].view(3, 8).int().cuda()
        self.cache_lengths = torch.tensor([10, 33, 70]).cuda()
        self.q_offsets = torch.arange(4).cuda()
        self.q, self.k_new, self.v_new = bf16(g, 3, 4, 64), bf16(g, 3, 2, 64), bf16(g, 3, 2, 64)

    def call(self, append=True, k_cache=None, v_cache=None, status=None, bounded=True, **kw):
        return samebits.attention_with_kvcache(
            self.q, self.k_cache if k_cache is None else k_cache,
            self.v_cache if v_cache is None else v_cache, self.table, self.cache_lengths,
            self.q_offsets, self.k_new if append else None, self.v_new if append else None,
            max_q_len=1 if bounded else -1, max_kv_len=128 if bounded else -1, status=status, **kw)


def attention_calls(status):
    g = torch.Generator().manual_seed(11)
    q4, k4, v4 = bf16(g, 2, 4, 96, 64), bf16(g, 2, 2, 96, 64), bf16(g, 2, 2, 96, 64)
    q, k, v = bf16(g, 100, 4, 64), bf16(g, 300, 2, 64), bf16(g, 300, 2, 64)
    q_offsets, kv_offsets = torch.tensor([0, 40, 100]).cuda(), torch.tensor([0, 120, 300]).cuda()
    paged = Paged()
    return [
        ("attention", lambda: samebits.attention(q4, k4, v4)),
        ("attention_varlen", lambda: samebits.attention_varlen(
            q, k, v, q_offsets, kv_offsets, status=status)),
        ("attention_varlen bounded", lambda: samebits.attention_varlen(
            q, k, v, q_offsets, kv_offsets, 60, max_kv_len=180, status=status)),
        ("attention_varlen exact", lambda: samebits.attention_varlen(
            q, k, v, q_offsets, kv_offsets, scale=-0.125, status=status)),
        ("attention_with_kvcache", lambda: paged.call(append=False, status=status,
                                                      bounded=False)),
        ("attention_with_kvcache append", lambda: paged.call(status=status)),
        ("attention_with_kvcache exact", lambda: paged.call(status=status, scale=-0.125)),
    ]


def test_attention_calls_make_no_host_sync():
    status = torch.zeros(1, dtype=torch.int32, device="cuda")
    assert_no_host_sync(attention_calls(status))
    assert status.item() == 0


def test_attention_debug_switch_syncs():
    """The control: SAMEBITS_DEBUG_METADATA copies the metadata to the host, which the sync
    debug mode catches (so the test above can fail)."""
    paged = Paged()
    with pytest.MonkeyPatch.context() as env:
        env.setenv("SAMEBITS_DEBUG_METADATA", "1")
        torch.cuda.set_sync_debug_mode("error")
        try:
            with pytest.raises(RuntimeError):
                paged.call(append=False)
        finally:
            torch.cuda.set_sync_debug_mode("default")


def capture(call):
    """(graph, outputs) of `call` captured once, after a warm-up on a side stream."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        call()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = call()
    return graph, captured


def test_attention_captures_replay_eager_bits():
    status = torch.zeros(1, dtype=torch.int32, device="cuda")
    for name, call in attention_calls(status):
        eager = call()  # (an append writes the same keys at the same places each time)
        graph, captured = capture(call)
        graph.replay()
        torch.cuda.synchronize()
        for got, want in zip(captured, eager):
            assert same_bits(got, want), f"{name}: replay differs from eager"
    assert status.item() == 0


def test_dense_prefill_replays_follow_inputs_written_in_place():
    """The dense prefill runs persistent blocks that take turns from a counter the op zeroes on
    the stream: each replay must zero it again, or its blocks find no turn left and leave the
    outputs as they were. So replay several times, with new queries and keys written in place,
    each against an eager call; the control is that the outputs did change."""
    g = torch.Generator().manual_seed(13)
    q, k, v = bf16(g, 2, 8, 300, 128), bf16(g, 2, 2, 300, 128), bf16(g, 2, 2, 300, 128)
    graph, captured = capture(lambda: samebits.attention(q, k, v))
    previous = None
    for step in range(3):
        q.copy_(torch.randn(q.shape, generator=g))
        k.copy_(torch.randn(k.shape, generator=g))
        graph.replay()
        eager = samebits.attention(q, k, v)
        torch.cuda.synchronize()
        assert same_bits(captured.out, eager.out), f"replay {step}: out"
        assert same_bits(captured.lse, eager.lse), f"replay {step}: lse"
        if previous is not None:
            assert not same_bits(captured.out, previous), f"replay {step}: nothing changed"
        previous = captured.out.clone()


def test_paged_decode_captured_once_follows_metadata_written_in_place():
    """An engine's decode loop: one capture with k_new/v_new, then per step new lengths, a new
    block table and new tokens written into the captured tensors. Each replay equals an eager call
    on a copy of the caches as they were, in out, lse and the caches it leaves."""
    paged = Paged()
    status = torch.zeros(1, dtype=torch.int32, device="cuda")
    k0, v0 = paged.k_cache.clone(), paged.v_cache.clone()
    graph, captured = capture(lambda: paged.call(status=status))
    # The control's stale capture: the same call over a copy of the lengths, captured once and
    # never updated (a capture that baked its metadata in).
    stale_lengths = paged.cache_lengths.clone()
    stale_graph, stale = capture(lambda: samebits.attention_with_kvcache(
        paged.q, paged.k_cache.clone(), paged.v_cache.clone(), paged.table, stale_lengths,
        paged.q_offsets, paged.k_new, paged.v_new, 1, max_kv_len=128))
    paged.k_cache.copy_(k0)
    paged.v_cache.copy_(v0)
    g = torch.Generator().manual_seed(9)
    previous = None
    for step, lengths in enumerate([[10, 33, 70], [11, 34, 71], [0, 100, 5], [127, 64, 16]]):
        paged.cache_lengths.copy_(torch.tensor(lengths))
        paged.table.copy_(torch.randperm(24, generator=g).view(3, 8))
        paged.q.copy_(torch.randn(3, 4, 64, generator=g))
        paged.k_new.copy_(torch.randn(3, 2, 64, generator=g))
        paged.v_new.copy_(torch.randn(3, 2, 64, generator=g))
        k_eager, v_eager = paged.k_cache.clone(), paged.v_cache.clone()
        graph.replay()
        eager = paged.call(k_cache=k_eager, v_cache=v_eager)
        torch.cuda.synchronize()
        assert same_bits(captured.out, eager.out), f"step {step}: out"
        assert same_bits(captured.lse, eager.lse), f"step {step}: lse"
        assert same_bits(paged.k_cache, k_eager) and same_bits(paged.v_cache, v_eager), step
        if previous is not None:
            assert not same_bits(captured.out, previous), f"step {step}: nothing changed"
        previous = captured.out.clone()
        # The control: the stale capture replays its old lengths, and the comparison sees it.
        stale_graph.replay()
        torch.cuda.synchronize()
        if step > 0:
            assert not same_bits(stale.lse, eager.lse), f"step {step}: a stale capture passed"
    assert status.item() == 0
    # Hostile metadata written in place: marked rows and a status, no fault, no write.
    paged.table[1, 0] = 10**6
    paged.cache_lengths[2] = -1
    paged.k_new.copy_(torch.randn(3, 2, 64, generator=g))  # (else the same bits rewritten)
    k_before = paged.k_cache.clone()
    graph.replay()
    torch.cuda.synchronize()
    assert status.item() == PAGE_OUTSIDE | NEGATIVE_CACHE_LENGTH
    assert bool(torch.isnan(captured.out[1:].float()).all())
    assert bool(torch.isnan(captured.lse[:, 1:]).all())
    assert not bool(torch.isnan(captured.out[0].float()).any()), "the sound sequence was marked"
    changed = (paged.k_cache != k_before).flatten(1).any(1).nonzero().flatten().tolist()
    assert changed == [paged.table[0, 127 // 16].item()], "only sequence 0's page was written"


def test_attention_hostile_metadata_without_sync_and_debug_messages():
    g = torch.Generator().manual_seed(3)
    q, k, v = bf16(g, 100, 4, 64), bf16(g, 300, 2, 64), bf16(g, 300, 2, 64)
    cases = [([0, 40, 101], [0, 120, 300], OUTSIDE), ([0, 40, 100], [0, 120, 90], DECREASING),
             ([0, 40, 100], [0, 120, 2**40], OUTSIDE | TOO_LONG)]
    for q_offsets, kv_offsets, flaw in cases:
        qo, ko = torch.tensor(q_offsets).cuda(), torch.tensor(kv_offsets).cuda()
        status = torch.zeros(1, dtype=torch.int32, device="cuda")
        out, lse = samebits.attention_varlen(q, k, v, qo, ko, status=status)
        assert status.item() == flaw, (q_offsets, kv_offsets)
        assert bool(torch.isnan(out[40:].float()).all()) and bool(torch.isnan(lse[:, 40:]).all())
        assert not bool(torch.isnan(out[:40].float()).any())
        with pytest.MonkeyPatch.context() as env:  # the debug switch raises instead
            env.setenv("SAMEBITS_DEBUG_METADATA", "1")
            with pytest.raises(RuntimeError, match="samebits.attention_varlen: offsets must rise"):
                samebits.attention_varlen(q, k, v, qo, ko)
    paged = Paged()
    paged.table[2, 1] = 24
    status = torch.zeros(1, dtype=torch.int32, device="cuda")
    out, _ = paged.call(status=status)
    assert status.item() == PAGE_OUTSIDE
    with pytest.MonkeyPatch.context() as env:
        env.setenv("SAMEBITS_DEBUG_METADATA", "1")
        with pytest.raises(RuntimeError, match=r"block_table\[2\]\[1\] = 24 is not a page"):
            paged.call()
