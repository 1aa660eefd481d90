# samebits.localize(): the first op where an item's bits diverge between two runs of a Python
# model (alone vs batch, a batch twice, whole vs in calls), by `samebits localize`'s engine.
"""Where does an item's output first change when a batch surrounds it, or when it is fed in chunks?

``samebits.localize`` calls the model twice under samebits' op recorder (every ATen op, C++ or
Python alike, through RecordFunction), keeps each op's digest and the item's rows, lines the two
runs' ops up and names the first op whose rows for the item differ: its schema, both sides' shapes,
strides, dtypes and kernels, the Python stack of the call, a ULP histogram, then every later op::

    import samebits, torch
    found = samebits.localize(model, x[3:4], x, rows=samebits.Padded(3), html="where.html")
    print(found)                  # diverges at aten::sub.Tensor in layers.1 (op 12 of 40) ...
    found.first["op"]             # the JSON of `samebits localize --report`

Submodules of an ``nn.Module`` name the ops' regions (``layers.1``), as the C++ decoder's scopes do.

For ``chunked_vs_whole`` and ``prefill_vs_decode`` run b is a sequence of calls on a stateful model
(an engine's chunked prefill, or its decode steps), each holding the next rows of the whole call::

    calls = [(x[:, i:i + 7], i) for i in range(0, x.shape[1], 7)]   # (tokens, start position)
    found = samebits.localize(model, (x, 0), calls, rows=samebits.Padded(0),
                              compare="chunked_vs_whole")
"""
from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import torch

from . import _core
from ._core import ContractError
from .running import PathLike

__all__ = ["Packed", "Padded", "Localization", "localize", "COMPARISONS"]

COMPARISONS: Tuple[str, ...] = ("alone_vs_batch", "run_vs_run", "chunked_vs_whole",
                                "prefill_vs_decode")

# The comparisons whose run b is a sequence of calls: (run names, a call's name).
_IN_CALLS = {"chunked_vs_whole": (("whole", "chunked"), "chunk"),
             "prefill_vs_decode": (("prefill", "decode"), "step")}


@dataclass(frozen=True)
class Packed:
    """The item is rows ``[offset, offset + length)`` of the batch's packed token dim.

    ``length`` defaults to the item's first tensor's dim 0, ``tokens`` (the batch's packed rows)
    to the batch's first tensor's dim 0.
    """

    offset: int
    length: Optional[int] = None
    tokens: Optional[int] = None


@dataclass(frozen=True)
class Padded:
    """The item is sequence ``index`` of a padded ``[sequences, rows, ...]`` batch, its first
    ``length`` rows (default: the item's first tensor's dim 1, alone as ``[1, length, ...]``)."""

    index: int
    length: Optional[int] = None
    sequences: Optional[int] = None
    rows: Optional[int] = None


@dataclass
class Localization:
    """What localize found: ``verdict`` ("diverges", "identical", "nothing comparable"), the first
    divergence (``first``, None if none), the ops from it on (``timeline``), and the whole JSON."""

    json: Dict[str, Any]
    path: Optional[str] = None
    html: Optional[str] = None

    @property
    def verdict(self) -> str:
        return self.json["verdict"]

    @property
    def first(self) -> Optional[Dict[str, Any]]:
        return self.json.get("first_divergence")

    @property
    def rerun(self) -> Optional[Dict[str, Any]]:
        """The first divergent op as a contract: its ``check`` kind, the ``contract`` file and the
        ``command`` that reruns it alone, or ``why_not`` (None without a first divergence)."""
        return self.json.get("rerun")

    @property
    def timeline(self) -> List[Dict[str, Any]]:
        return self.json.get("timeline", [])

    def __str__(self) -> str:
        counts = self.json.get("counts", {})
        if not self.first:
            return f"samebits.localize: {self.verdict} ({counts})"
        return (f"samebits.localize: {self.verdict} at {self.first.get('op')} in "
                f"{self.first.get('region') or 'the model'} ({counts})")


def _tensors(args: Tuple[Any, ...]) -> List[torch.Tensor]:
    return [a for a in args if isinstance(a, torch.Tensor)]


def _as_args(value: Any, what: str) -> Tuple[Any, ...]:
    args = value if isinstance(value, tuple) else (value,)
    if not _tensors(args):
        raise ContractError(f"samebits.localize: {what} must be a tensor or a tuple of arguments "
                            f"holding at least one tensor, got {type(value).__name__}")
    return args


def _dim(t: torch.Tensor, d: int, what: str) -> int:
    if t.dim() <= d:
        raise ContractError(f"samebits.localize: {what} has {t.dim()} dims; rows= needs dim {d}")
    return int(t.shape[d])


# (tokens, offset, length, sequences, sequence, padded_rows), as _core.localize takes it.
def _maps(rows: Union[Packed, Padded], item: Tuple[Any, ...], batch: Tuple[Any, ...]):
    first_item, first_batch = _tensors(item)[0], _tensors(batch)[0]
    if isinstance(rows, Packed):
        length = rows.length if rows.length is not None else _dim(first_item, 0, "item's tensor")
        tokens = rows.tokens if rows.tokens is not None else _dim(first_batch, 0, "batch's tensor")
        if rows.offset < 0 or length < 1 or rows.offset + length > tokens:
            raise ContractError(f"samebits.localize: rows=Packed({rows.offset}, {length}) lies "
                                f"outside the batch's {tokens} packed rows")
        return (length, 0, length, 1, 0, 0), (tokens, rows.offset, length, 1, 0, 0)
    if isinstance(rows, Padded):
        length = rows.length if rows.length is not None else _dim(first_item, 1, "item's tensor")
        sequences = (rows.sequences if rows.sequences is not None
                     else _dim(first_batch, 0, "batch's tensor"))
        padded = rows.rows if rows.rows is not None else _dim(first_batch, 1, "batch's tensor")
        if not 0 <= rows.index < sequences or length < 1 or length > padded:
            raise ContractError(f"samebits.localize: rows=Padded({rows.index}, {length}) lies "
                                f"outside the batch's {sequences} sequences of {padded} rows")
        return (length, 0, length, 1, 0, 0), (0, 0, length, sequences, rows.index, padded)
    raise ContractError("samebits.localize: rows must be samebits.Packed(offset, ...) or "
                        f"samebits.Padded(index, ...), got {type(rows).__name__}")


def _whole(length: int) -> Tuple[int, int, int, int, int, int]:
    return (length, 0, length, 1, 0, 0)


def _call_maps(rows: Union[Packed, Padded, None], compare: str, item: Tuple[Any, ...],
               calls: List[Tuple[Any, ...]]):
    """The whole call's map and each call's, its rows the next ones of the whole call's."""
    if rows is None or rows == Packed(0):
        dim = 0
    elif rows == Padded(0):
        dim = 1
    else:
        raise ContractError(f"samebits.localize: rows= for {compare} must be None or "
                            "samebits.Packed(0) (rows along dim 0) or samebits.Padded(0) (a "
                            f"[1, rows, ...] batch of one sequence), got {rows!r}")
    least = 2 if compare == "chunked_vs_whole" else 1
    if len(calls) < least:
        raise ContractError(f"samebits.localize: batch= for {compare} must be a sequence of at "
                            f"least {least} calls, got {len(calls)}")
    lengths = [_dim(_tensors(c)[0], dim, f"call {j}'s first tensor") for j, c in enumerate(calls)]
    whole = _dim(_tensors(item)[0], dim, "item's first tensor")
    if compare == "prefill_vs_decode" and any(n != 1 for n in lengths):
        j = next(j for j, n in enumerate(lengths) if n != 1)
        raise ContractError(f"samebits.localize: batch= for prefill_vs_decode feeds one row per "
                            f"call (dim {dim}); call {j} has {lengths[j]}")
    if sum(lengths) != whole:
        raise ContractError(f"samebits.localize: batch='s calls hold {sum(lengths)} rows (dim "
                            f"{dim}) and the whole call {whole}; accepted: as many")
    return _whole(whole), [_whole(n) for n in lengths]


_SKIP = (os.path.dirname(torch.__file__), os.path.dirname(__file__))


def _format_stack() -> str:
    """The innermost three frames outside torch and samebits: where the model called the op."""
    frames, f = [], sys._getframe(1)
    while f is not None and len(frames) < 3:
        name = f.f_code.co_filename
        if not name.startswith(_SKIP):
            frames.append(f"{name}:{f.f_lineno} in {f.f_code.co_name}")
        f = f.f_back
    return "\n".join(frames)


class _Regions:
    """Each submodule's forward inside a RecordFunction user scope named after it (layers.1)."""

    def __init__(self, model: Any):
        self.handles, self.open = [], []
        if not isinstance(model, torch.nn.Module):
            return
        for name, module in model.named_modules():
            if not name:
                continue
            self.handles.append(module.register_forward_pre_hook(self._enter(name)))
            self.handles.append(module.register_forward_hook(self._exit))

    def _enter(self, name: str) -> Callable:
        def hook(module, args):
            scope = torch.autograd.profiler.record_function(name)
            scope.__enter__()
            self.open.append(scope)
        return hook

    def _exit(self, module, args, output) -> None:
        self.open.pop().__exit__(None, None, None)

    def close(self) -> None:
        while self.open:  # a forward that raised left its scopes open
            self.open.pop().__exit__(None, None, None)
        for h in self.handles:
            h.remove()


def _check_output(path: Optional[PathLike], argument: str) -> None:
    """An output the finding is written to: refused before the model runs, never after."""
    if not path:
        return
    target = os.path.abspath(os.fspath(path))
    folder = os.path.dirname(target)
    if os.path.isdir(target):
        raise ContractError(f"samebits.localize: {argument}={os.fspath(path)!r} is a folder; "
                            "give a file path")
    if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
        raise ContractError(f"samebits.localize: {argument}={os.fspath(path)!r}: its folder "
                            f"{folder!r} does not exist or cannot be written")


def _sync(args: Tuple[Any, ...]) -> None:
    if any(t.is_cuda for t in _tensors(args)):
        torch.cuda.synchronize()


def localize(model: Callable[..., Any], item: Any, batch: Any, *,
             rows: Union[Packed, Padded, None] = None, compare: str = "alone_vs_batch",
             report: Optional[PathLike] = None, html: Optional[PathLike] = None,
             rerun_contract: Optional[PathLike] = None, stacks: bool = True,
             kernels: bool = True) -> Localization:
    """Find the first op whose output rows for one item differ between two runs of ``model``.

    Args:
        model: a function or ``nn.Module``; called as ``model(*item)`` and ``model(*batch)``, or
            for ``chunked_vs_whole`` and ``prefill_vs_decode`` once per call of ``batch``.
        item: the item alone: a tensor or a tuple of arguments (unused for ``run_vs_run``). For
            ``chunked_vs_whole`` and ``prefill_vs_decode``: the whole call (the one-shot prefill).
        batch: the batch holding the item: a tensor or a tuple of arguments. For
            ``chunked_vs_whole`` and ``prefill_vs_decode``: a list of calls (each a tensor or a
            tuple of arguments) made in order on a stateful model, whose rows are the next rows of
            the whole call's: chunks (at least two), or one row per call (a decode step each). Each
            call's arguments must say where it starts (a start position, a cache length), as an
            engine's step does; every run starts from position 0, so a run's calls overwrite what
            the run before left in the model's cache.
        rows: where the item lies in the batch: ``Packed(offset)`` (rows of a packed token dim) or
            ``Padded(index)`` (a sequence of a ``[B, S, ...]`` batch). For ``run_vs_run``, the
            rows compared (default: all of them, ``Packed(0)`` over the whole batch). For
            ``chunked_vs_whole`` and ``prefill_vs_decode``, the dim the calls' rows run along:
            None or ``Packed(0)`` dim 0 of each call's first tensor, ``Padded(0)`` dim 1 (a
            ``[1, S, ...]`` batch of one sequence); the calls' rows must add up to the whole's.
        compare: one of :data:`COMPARISONS`: "alone_vs_batch" (item vs batch), "run_vs_run" (the
            batch twice), "chunked_vs_whole" (the whole call vs its chunks) or "prefill_vs_decode"
            (the whole call vs one row per call). Op k of a call is compared with op k of the
            whole call on the call's rows; the first divergence is the first in (call, op) order,
            its region prefixed with the call's name ("chunk.0/layers.1", "step.3/layers.0").
        report: write the finding's JSON here (``samebits.localize/1``, as the CLI's --report).
        html: write its self-contained HTML page here.
        rerun_contract: where the first divergent ``aten::`` op goes as a schema contract that
            ``samebits run FILE`` (or :func:`samebits.run`) reruns alone, as the CLI's
            --rerun-contract; default ``first-divergence.json`` beside ``report`` (or ``html``),
            none where neither is given. ``Localization.rerun`` says what was written, or why not.
        stacks: record each op's Python stack (the innermost frames outside torch).
        kernels: on CUDA, record each op's kernels (CUPTI).

    Returns:
        A :class:`Localization`. The model's own exceptions propagate, prefixed with which call
        raised; bad arguments raise ``samebits.ContractError`` before the model runs.
    """
    if compare not in COMPARISONS:
        raise ContractError(f"samebits.localize: compare must be one of {', '.join(COMPARISONS)}, "
                            f"got {compare!r}")
    if not callable(model):
        raise ContractError(f"samebits.localize: model must be callable, got "
                            f"{type(model).__name__}")
    call_name = ""
    if compare in _IN_CALLS:
        if not isinstance(batch, (list, tuple)):
            raise ContractError(f"samebits.localize: batch= for {compare} must be a list of "
                                f"calls (each a tensor or a tuple of arguments), got "
                                f"{type(batch).__name__}")
        calls = [_as_args(c, f"batch[{j}]") for j, c in enumerate(batch)]
        item_args = _as_args(item, "item")
        names, call_name = _IN_CALLS[compare]
        a_map, b_maps = _call_maps(rows, compare, item_args, calls)
    elif compare == "run_vs_run":
        calls = [_as_args(batch, "batch")]
        item_args = calls[0]
        rows = rows if rows is not None else Packed(0, length=_tensors(item_args)[0].shape[0])
        _, b_map = _maps(rows, item_args, item_args)
        a_map, b_maps, names = b_map, [b_map], ("run1", "run2")
    else:
        calls = [_as_args(batch, "batch")]
        item_args = _as_args(item, "item")
        if rows is None:
            raise ContractError("samebits.localize: rows= is required for alone_vs_batch: "
                                "samebits.Packed(offset) or samebits.Padded(index)")
        a_map, b_map = _maps(rows, item_args, calls[0])
        b_maps, names = [b_map], ("alone", "batch")
    _check_output(report, "report")
    _check_output(html, "html")
    if rerun_contract is None and (report or html):
        rerun_contract = os.path.join(os.path.dirname(os.path.abspath(os.fspath(report or html))),
                                      "first-divergence.json")
    _check_output(rerun_contract, "rerun_contract")

    def call(args: Tuple[Any, ...], side: str) -> Callable[[], None]:
        def run() -> None:
            try:
                with torch.no_grad():
                    out = model(*args)
            except Exception as e:
                raise RuntimeError(f"samebits.localize: the model raised on the {side} call: "
                                   f"{type(e).__name__}: {e}") from e
            if not _tensors(out if isinstance(out, tuple) else (out,)):
                raise ContractError(f"samebits.localize: the model returned "
                                    f"{type(out).__name__} on the {side} call, not a tensor")
            _sync(args)
        return run

    run_a = call(item_args, names[0])
    run_b = [call(args, f"{call_name}.{j}" if call_name else names[1])
             for j, args in enumerate(calls)]
    for run in run_b:  # warm-up: first-call costs land in no timing
        run()
    begin = time.perf_counter()
    for run in run_b:
        run()
    plain_ms = (time.perf_counter() - begin) * 1000
    subject = {"model": type(model).__qualname__, "compare": compare,
               "device": str(_tensors(calls[0])[0].device), "rows": repr(rows)}
    if call_name:
        subject["calls"] = len(calls)
    regions = _Regions(model)
    try:
        text = _core.localize(run_a, run_b, _format_stack if stacks else None, plain_ms,
                              a_map=a_map, b_maps=b_maps, call_name=call_name, a_name=names[0],
                              b_name=names[1], subject_json=json.dumps(subject),
                              capture_kernels=kernels and any(
                                  t.is_cuda for t in _tensors(calls[0])),
                              report=os.fspath(report) if report else "",
                              html=os.fspath(html) if html else "",
                              rerun_contract=os.fspath(rerun_contract) if rerun_contract else "")
    finally:
        regions.close()
    return Localization(json.loads(text), os.fspath(report) if report else None,
                        os.fspath(html) if html else None)
