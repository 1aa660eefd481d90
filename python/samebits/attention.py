# samebits' batch-invariant attention as typed Python functions over dense, packed and paged inputs:
# thin calls of torch.ops.samebits.attention* (checks and errors stay in C++), shapes documented.
"""Attention whose every row has its sequence's own bits, whatever the batch, padding or split.

bfloat16 or float16; head dim d in {64, 128, 256}; H query heads, a multiple of the Hkv key/value
heads (grouped-query attention). CPU tensors run the C++ twin, CUDA tensors the Hopper kernels.
Bad arguments raise ``RuntimeError`` naming the argument and what is accepted.

:func:`attention` and :func:`attention_varlen` are differentiable (``loss.backward()`` works):
their backward is :func:`attention_backward` / :func:`attention_varlen_backward`, whose dq, dk and
dv for one sequence are the same bits whatever the batch (the exact order, on CPU and CUDA; it
recomputes the probabilities from the saved lse). ``lse`` itself carries no gradient. The
autograd kernels are registered in C++ with the ops, so C++ callers (the harness's gradient
checks) differentiate them too.
"""
from __future__ import annotations

from typing import NamedTuple, Optional

import torch

__all__ = ["AttentionResult", "AttentionGradients", "attention", "attention_varlen",
           "attention_with_kvcache", "attention_backward", "attention_varlen_backward"]


class AttentionResult(NamedTuple):
    """``out`` like q (q's dtype) and ``lse``, the float32 natural log-sum-exp of the scaled
    scores: ``[B, H, Lq]`` for dense inputs, ``[H, Tq]`` for packed ones."""

    out: torch.Tensor
    lse: torch.Tensor


class AttentionGradients(NamedTuple):
    """``dq``, ``dk`` and ``dv``, shaped like q, k and v in q's dtype."""

    dq: torch.Tensor
    dk: torch.Tensor
    dv: torch.Tensor


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = True,
              scale: Optional[float] = None) -> AttentionResult:
    """Dense attention: ``softmax(q k^T * scale) v`` per batch entry and head.

    Args:
        q: ``[B, H, Lq, d]``.
        k: ``[B, Hkv, Lk, d]`` of q's dtype.
        v: ``[B, Hkv, Lk, d]`` of q's dtype.
        causal: the queries are the last Lq of the Lk positions: query i sees keys
            ``[0, Lk - Lq + i]``.
        scale: default ``1 / sqrt(d)``.

    Returns:
        ``out [B, H, Lq, d]`` and ``lse [B, H, Lq]``.
    """
    return AttentionResult(*torch.ops.samebits.attention(q, k, v, causal, scale))


def attention_varlen(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, q_offsets: torch.Tensor,
                     kv_offsets: torch.Tensor, max_q_len: int = -1, causal: bool = True,
                     scale: Optional[float] = None, max_kv_len: int = -1,
                     status: Optional[torch.Tensor] = None) -> AttentionResult:
    """Packed sequences: sequence b's queries at rows ``q_offsets[b]:q_offsets[b + 1]`` of q, its
    keys and values at rows ``kv_offsets[b]:kv_offsets[b + 1]`` of k and v.

    On CUDA the offsets never leave the device (no host sync; the call captures into a CUDA
    graph): the kernels judge every sequence themselves. A sequence whose offsets fall outside q
    or k, decrease, or exceed ``max_q_len`` / ``max_kv_len`` is read nowhere; its rows of ``out``
    and ``lse`` are NaN and its flaws are OR-ed into ``status`` (1 outside, 2 decreasing, 4 too
    long). ``SAMEBITS_DEBUG_METADATA=1`` checks them on the host instead and raises (a sync). CPU
    offsets are checked on the host and raise.

    Args:
        q: ``[Tq, H, d]``.
        k: ``[Tk, Hkv, d]`` of q's dtype.
        v: ``[Tk, Hkv, d]`` of q's dtype.
        q_offsets: ``[B + 1]`` int64.
        kv_offsets: ``[B + 1]`` int64.
        max_q_len: bounds every sequence's queries and sizes the launch; -1: ``Tq`` on CUDA (pass
            the real bound for speed: decode is fastest with 1), the longest on the CPU.
        causal: as for :func:`attention`, per sequence.
        scale: default ``1 / sqrt(d)``.
        max_kv_len: bounds every sequence's keys and sizes the split launch; -1: ``Tk`` on CUDA,
            the longest on the CPU.
        status: optional int32 ``[1]`` on q's device, written in place (never cleared).

    Returns:
        ``out [Tq, H, d]`` and ``lse [H, Tq]``.
    """
    return AttentionResult(*torch.ops.samebits.attention_varlen(
        q, k, v, q_offsets, kv_offsets, max_q_len, causal, scale, max_kv_len, status))


def attention_with_kvcache(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor,
                           block_table: torch.Tensor, cache_lengths: torch.Tensor,
                           q_offsets: torch.Tensor, k_new: Optional[torch.Tensor] = None,
                           v_new: Optional[torch.Tensor] = None, max_q_len: int = -1,
                           causal: bool = True, scale: Optional[float] = None,
                           max_kv_len: int = -1,
                           status: Optional[torch.Tensor] = None) -> AttentionResult:
    """Attention over a paged KV cache (decode, chunked prefill).

    Sequence b's pages are ``block_table[b]``, in order, and it has ``cache_lengths[b]`` keys
    cached; its new tokens' queries are rows ``q_offsets[b]:q_offsets[b + 1]`` of q. ``k_new`` and
    ``v_new``, when given, are first written into the caches (in place) at positions
    ``cache_lengths[b] + i``; sequence b then attends over ``cache_lengths[b] + q_len(b)`` keys.

    On CUDA no metadata leave the device: a decode step captures once into a CUDA graph and
    replays with ``cache_lengths``, ``block_table`` and ``q_offsets`` rewritten in place. The
    kernels judge every sequence as :func:`attention_varlen` does, and also flag a negative cache
    length (8), more pages than ``block_table`` holds (16) and a used table entry outside the
    cache (32): such a sequence reads and writes nothing, its rows are NaN, its flaws go into
    ``status``. CPU metadata are checked on the host and raise.

    Args:
        q: ``[Tq, H, d]``.
        k_cache: ``[pages, page_size, Hkv, d]`` of q's dtype (written when k_new is given).
        v_cache: ``[pages, page_size, Hkv, d]`` of q's dtype (written when v_new is given).
        block_table: ``[B, max_pages]`` int32.
        cache_lengths: ``[B]`` int64.
        q_offsets: ``[B + 1]`` int64.
        k_new: ``[Tq, Hkv, d]`` or None.
        v_new: ``[Tq, Hkv, d]`` or None (given with k_new).
        max_q_len: bounds every sequence's new tokens; -1: ``Tq`` on CUDA (pass 1 for decode),
            the longest on the CPU.
        causal: each new token sees the cached keys and the new ones up to itself.
        scale: default ``1 / sqrt(d)``.
        max_kv_len: bounds every sequence's keys (cached and new); -1: ``max_pages * page_size``
            on CUDA, the longest on the CPU.
        status: optional int32 ``[1]`` on q's device, written in place (never cleared).

    Returns:
        ``out [Tq, H, d]`` and ``lse [H, Tq]``.
    """
    return AttentionResult(*torch.ops.samebits.attention_with_kvcache(
        q, k_cache, v_cache, block_table, cache_lengths, q_offsets, k_new, v_new, max_q_len,
        causal, scale, max_kv_len, status))


def attention_backward(dout: torch.Tensor, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                       out: torch.Tensor, lse: torch.Tensor, causal: bool = True,
                       scale: Optional[float] = None) -> AttentionGradients:
    """The gradients of :func:`attention` for the upstream gradient ``dout`` (like q), given the
    forward's arguments and its ``out`` and ``lse``."""
    return AttentionGradients(*torch.ops.samebits.attention_backward(
        dout, q, k, v, out, lse, causal, scale))


def attention_varlen_backward(dout: torch.Tensor, q: torch.Tensor, k: torch.Tensor,
                              v: torch.Tensor, out: torch.Tensor, lse: torch.Tensor,
                              q_offsets: torch.Tensor, kv_offsets: torch.Tensor,
                              max_q_len: int = -1, causal: bool = True,
                              scale: Optional[float] = None, max_kv_len: int = -1,
                              status: Optional[torch.Tensor] = None) -> AttentionGradients:
    """The gradients of :func:`attention_varlen` for the upstream gradient ``dout`` (like q),
    given the forward's arguments and its ``out`` and ``lse``; key rows outside every sequence
    get zeros. ``max_q_len``, ``max_kv_len`` and ``status`` as for :func:`attention_varlen`: on
    CUDA a sequence with flawed offsets is read nowhere, its dq rows are NaN and its flaws are
    OR-ed into ``status``."""
    return AttentionGradients(*torch.ops.samebits.attention_varlen_backward(
        dout, q, k, v, out, lse, q_offsets, kv_offsets, max_q_len, causal, scale, max_kv_len,
        status))
