# samebits' batch-invariant kernels as typed Python functions: each a thin call of its
# torch.ops.samebits op (argument checks and errors stay in C++), with shapes and dtypes documented.
"""The bundled kernels besides attention (see :mod:`samebits.attention`).

Every function runs on CPU tensors (the kernels' C++ twins) and on CUDA tensors (the CUDA kernels,
Hopper sm_90a) and gives each row, item or sequence the same bits whatever else is in the batch.
Bad arguments raise ``RuntimeError`` with a message naming the argument and what is accepted.
"""
from __future__ import annotations

from typing import NamedTuple, Optional

import torch

__all__ = [
    "TopkResult", "IndexerResult", "AddRmsNormResult",
    "sum", "mean", "sum_varlen", "topk", "topk_varlen", "indexer",
    "rms_norm", "add_rms_norm", "softmax", "log_softmax", "linear", "matmul",
]


class TopkResult(NamedTuple):
    """The k largest of each row: ``values`` in the input's dtype, ``indices`` int64."""

    values: torch.Tensor
    indices: torch.Tensor


class IndexerResult(NamedTuple):
    """The indexer's outputs: every key's score, and each item's top k of them."""

    scores: torch.Tensor
    top_values: torch.Tensor
    top_indices: torch.Tensor


class AddRmsNormResult(NamedTuple):
    """The fused residual RMSNorm: ``y = rms_norm(h)`` and the new residual ``h = x + residual``."""

    y: torch.Tensor
    h: torch.Tensor


def sum(x: torch.Tensor, dim: int) -> torch.Tensor:  # noqa: A001 (torch's name)
    """``x.sum(dim)``, in an order fixed by the reduced length alone.

    Args:
        x: ``[...]`` float32, float16 or bfloat16, any strides.
        dim: the dim to reduce (negative counts from the end).

    Returns:
        ``x``'s shape without ``dim``, float32.
    """
    return torch.ops.samebits.sum(x, dim)


def mean(x: torch.Tensor, dim: int) -> torch.Tensor:
    """``x.mean(dim)``: :func:`sum` divided by the length (NaN over an empty dim).

    Args:
        x: ``[...]`` float32, float16 or bfloat16, any strides.
        dim: the dim to average (negative counts from the end).

    Returns:
        ``x``'s shape without ``dim``, float32.
    """
    return torch.ops.samebits.mean(x, dim)


def sum_varlen(values: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    """Row sums of rows packed end to end: row r is ``values[offsets[r]:offsets[r + 1]]``.

    Args:
        values: ``[total]`` float32, float16 or bfloat16.
        offsets: ``[rows + 1]`` int64, rising, on ``values``' device.

    Returns:
        ``[rows]`` float32, each row's bits as if it were summed alone.
    """
    return torch.ops.samebits.sum_varlen(values, offsets)


def topk(x: torch.Tensor, k: int, algorithm: str = "auto") -> TopkResult:
    """The k largest of each row (last dim), in the order of a stable descending sort.

    Ties keep the lower index first; -0.0 and +0.0 keep their order too.

    Args:
        x: ``[..., N]`` float32, float16 or bfloat16.
        k: 1 to N.
        algorithm: ``"auto"``, ``"radix_select"``, ``"warp_select"`` or ``"split_select"`` (CUDA;
            the same bits whichever runs).

    Returns:
        ``values [..., k]`` in ``x``'s dtype and ``indices [..., k]`` int64.
    """
    return TopkResult(*torch.ops.samebits.topk(x, k, algorithm))


def topk_varlen(values: torch.Tensor, offsets: torch.Tensor, k: int, max_length: int = -1,
                algorithm: str = "auto", unsafe: bool = False,
                status: Optional[torch.Tensor] = None) -> TopkResult:
    """:func:`topk` over rows packed end to end: row r is ``values[offsets[r]:offsets[r + 1]]``.

    On CUDA the offsets never leave the device: no host sync, so a CUDA graph can capture the
    call. The kernels check every row themselves: a row that runs outside ``values``, decreases
    (a negative length) or is longer than ``max_length`` is read nowhere and marked, every slot
    NaN with index -1, and its flaws (1: outside, 2: decreasing, 4: longer than ``max_length``)
    are OR-ed into ``status`` when given. CPU offsets are checked on the host and raise, as do
    CUDA ones when the environment sets ``SAMEBITS_DEBUG_METADATA=1`` (a sync; not under capture).

    Args:
        values: ``[total]`` float32, float16 or bfloat16.
        offsets: ``[rows + 1]`` int64 on ``values``' device.
        k: at least 1; slots past a short row's end hold -inf and index -1.
        max_length: bounds every row, sizes the launch and picks the algorithm (as
            FlashAttention's ``max_seqlen``); a longer row is marked. -1: the longest row on the
            CPU, ``values.numel()`` on CUDA (safe, but slower than a tight bound). Whichever
            algorithm runs, the bits are the same.
        algorithm: as for :func:`topk`.
        unsafe: ignored; kept so that old callers still run (nothing is unchecked any more).
        status: optional ``int32 [1]`` on ``values``' device; flaws are OR-ed in, never cleared.

    Returns:
        ``values [rows, k]`` and ``indices [rows, k]`` int64 (positions within each row).
    """
    return TopkResult(*torch.ops.samebits.topk_varlen(values, offsets, k, max_length, algorithm,
                                                      unsafe, status))


def indexer(q: torch.Tensor, keys: torch.Tensor, offsets: torch.Tensor, weights: torch.Tensor,
            k: int, max_length: int = -1, q_scale: Optional[torch.Tensor] = None,
            k_scale: Optional[torch.Tensor] = None, unsafe: bool = False,
            algorithm: str = "tensor_cores",
            status: Optional[torch.Tensor] = None) -> IndexerResult:
    """The attention indexer of reference 000 over variable-length items, in one call.

    Each key's score is the sum over heads of ``relu(q[b, h] . key * scale) * weights[b, h]``,
    then each item's top k; every item's bits as if it ran alone. The offsets are guarded as
    :func:`topk_varlen`'s: a flawed item reads no key and writes no score, its ``top_values`` are
    NaN and ``top_indices`` -1, and its flaws go into ``status``.

    Args:
        q: ``[B, H, d]`` bfloat16 or float8_e4m3fn; H in {4, 8, 16, 32, 64}, d a multiple of 4
            up to 256.
        keys: ``[total, d]`` of ``q``'s dtype; item b's keys at rows
            ``offsets[b]:offsets[b + 1]``.
        offsets: ``[B + 1]`` int64.
        weights: ``[B, H]`` float32.
        k: how many keys each item selects.
        max_length: bounds every item and sizes the launch; -1: the longest item on the CPU,
            ``keys.size(0)`` on CUDA (safe, but slower than a tight bound).
        q_scale: ``[B]`` float32, float8 only (default 1).
        k_scale: ``[B]`` float32, float8 only (default 1).
        unsafe: ignored, as for :func:`topk_varlen`.
        algorithm: how q K^T is formed: ``"tensor_cores"`` (bf16 MMA on CUDA; its CPU twin is
            within the same error bound, not the same bits) or ``"exact"`` (float32 fma in order:
            CPU and CUDA give the same bits).
        status: as for :func:`topk_varlen`.

    Returns:
        ``scores [total]`` float32 (packed like ``keys``; positions no valid item covers are
        unspecified), ``top_values [B, k]`` float32 and ``top_indices [B, k]`` int64 (positions
        within each item).
    """
    return IndexerResult(*torch.ops.samebits.indexer(q, keys, offsets, weights, k, max_length,
                                                     q_scale, k_scale, unsafe, algorithm, status))


def rms_norm(x: torch.Tensor, w: torch.Tensor, eps: float) -> torch.Tensor:
    """RMSNorm of each row: ``x / sqrt(mean(x^2) + eps) * w``, computed in float32.

    Args:
        x: ``[..., D]`` float32, float16 or bfloat16 (rows contiguous, any row stride).
        w: ``[D]`` of ``x``'s dtype.
        eps: added to the mean square.

    Returns:
        ``[..., D]`` in ``x``'s dtype.
    """
    return torch.ops.samebits.rms_norm(x, w, eps)


def add_rms_norm(x: torch.Tensor, residual: torch.Tensor, w: torch.Tensor,
                 eps: float) -> AddRmsNormResult:
    """The fused residual form: ``h = x + residual`` (rounded to the dtype), ``y = rms_norm(h)``.

    Args:
        x: ``[..., D]`` float32, float16 or bfloat16.
        residual: ``x``'s shape and dtype.
        w: ``[D]`` of ``x``'s dtype.
        eps: added to the mean square.

    Returns:
        ``y`` and ``h`` (the next layer's residual), both ``[..., D]`` in ``x``'s dtype.
    """
    return AddRmsNormResult(*torch.ops.samebits.add_rms_norm(x, residual, w, eps))


def softmax(x: torch.Tensor, dtype: Optional[torch.dtype] = None) -> torch.Tensor:
    """Softmax over the last dim.

    Args:
        x: ``[..., N]`` float32, float16 or bfloat16, any strides.
        dtype: None (the result in ``x``'s dtype) or ``torch.float32``.

    Returns:
        ``[..., N]``.
    """
    return torch.ops.samebits.softmax(x, dtype)


def log_softmax(x: torch.Tensor, dtype: Optional[torch.dtype] = None) -> torch.Tensor:
    """Log-softmax over the last dim.

    Args:
        x: ``[..., N]`` float32, float16 or bfloat16, any strides.
        dtype: None (the result in ``x``'s dtype) or ``torch.float32``.

    Returns:
        ``[..., N]``.
    """
    return torch.ops.samebits.log_softmax(x, dtype)


def linear(x: torch.Tensor, w: torch.Tensor, bias: Optional[torch.Tensor] = None) -> torch.Tensor:
    """``x @ w.T + bias``, each row's bits whatever the number of rows.

    Args:
        x: ``[..., K]`` float32, float16 or bfloat16.
        w: ``[N, K]`` of ``x``'s dtype.
        bias: ``[N]`` of ``x``'s dtype, or None.

    Returns:
        ``[..., N]`` in ``x``'s dtype.
    """
    return torch.ops.samebits.linear(x, w, bias)


def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``a @ b`` with :func:`linear`'s bits (through a contiguous copy of ``b.T``).

    Args:
        a: ``[..., K]`` (2-D or more) float32, float16 or bfloat16.
        b: ``[K, N]`` of ``a``'s dtype.

    Returns:
        ``[..., N]`` in ``a``'s dtype.
    """
    return torch.ops.samebits.matmul(a, b)
