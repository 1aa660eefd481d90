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


def test_default_calls_make_no_host_sync():
    values, q, keys, weights, offsets = inputs()
    status = torch.zeros(1, dtype=torch.int32, device="cuda")
    for name, call in calls(values, q, keys, weights, offsets, status):
        call()  # warm-up: the first call of a kernel may set its attributes
        torch.cuda.synchronize()
        torch.cuda.set_sync_debug_mode("error")
        try:
            call()
        except RuntimeError as e:
            pytest.fail(f"{name} synchronized with the host: {e}")
        finally:
            torch.cuda.set_sync_debug_mode("default")
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
