# samebits.check(): any Python callable (a function, an nn.Module, a Triton or CUDA extension)
# under the engine's check kinds: the contract a schema op would have, with fn as its callee.
"""Check a Python callable for batch, position, layout, padding and chunking invariance and for
determinism, as ``samebits run`` checks an ATen op: the same planner, seeds, diff and report::

    import samebits, torch
    result = samebits.check(lambda x: x - x.mean(0), samebits.Input(shape=(1, "n")),
                            axes={"n": [64, 1000]}, report="report.json")
    result.raise_if_violated()      # samebits.InvarianceError: which check, which case, the bits
    samebits.render(result, "html")
"""
from __future__ import annotations

import inspect
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import torch

from . import _core
from .check_result import CheckResult, InvarianceError, Violation
from .running import PathLike, RenderFormat, Report

__all__ = ["Axis", "Input", "Output", "Violation", "CheckResult", "InvarianceError", "check",
           "CHECK_KINDS"]

# What each kind sweeps unless `axes` or `checks` says otherwise: small, and enough to catch a
# callable whose item depends on the rest of its batch.
_DEFAULT_SWEEPS: Dict[str, Dict[str, list]] = {
    "determinism": {"batch": [4]},
    "batch_invariance": {"batch": [2, 8], "position": ["first", "last"]},
    "position_invariance": {"batch": [8], "position": ["middle", "last"]},
    "layout_invariance": {"batch": [4], "layout": ["strided:1", "offset:1"]},
    "padding_invariance": {"padding": ["right", "left", "packed"], "lengths": [[3, 1, 5]]},
    "chunking_invariance": {"batch": [2], "chunk": [1, 2]},
    "reference": {"batch": [2]},
    "gradient_invariance": {"batch": [2, 8], "position": ["first", "last"]},
    "gradient_determinism": {"batch": [4]},
}
CHECK_KINDS: Tuple[str, ...] = tuple(_DEFAULT_SWEEPS)
_SEQUENCE_KINDS = ("padding_invariance", "chunking_invariance")
# Asked for by name only: they call the callable's backward, which not every callable has.
_GRADIENT_KINDS = ("gradient_invariance", "gradient_determinism")
_IMPL = "python"


@dataclass(frozen=True)
class Axis:
    """The value of the sweep axis ``name`` (a key of ``axes``), for a parameter or a dtype."""

    name: str


@dataclass(frozen=True)
class Input:
    """One tensor parameter of the callable: how one item's tensor is drawn and batched.

    Attributes:
        shape: one item's shape: integers, axis names of ``axes`` or expressions of them
            (``"n*2"``). Items are concatenated along ``batch_dim``, so an item of one row is
            ``(1, "n")``.
        dtype: a ``torch.dtype``, its name, or ``Axis(NAME)`` to sweep it.
        batch_dim: the dim items are concatenated along; None: one tensor every item shares (a
            weight).
        seq_dim: the dim of the items' variable length (padding and chunking cut along it); its
            extent in ``shape`` must be an axis name.
        generator: how values are drawn (``"normal"``, ``"uniform"``, ...), or ``Axis(NAME)``.
        integers: draw integers in ``[low, high)`` instead (indices, targets).
        indexes: the name of another batched input whose batch dim these integers index.
    """

    shape: Sequence[Union[int, str]]
    dtype: Union[torch.dtype, str, Axis] = torch.float32
    batch_dim: Optional[int] = 0
    seq_dim: Optional[int] = None
    generator: Union[str, Axis] = "normal"
    integers: Optional[Tuple[Union[int, str], Union[int, str]]] = None
    indexes: Optional[str] = None


@dataclass(frozen=True)
class Output:
    """One tensor the callable returns (in order), and where its items and sequence lie
    (default: the first batched input's batch dim and sequence dim)."""

    name: str
    batch_dim: Optional[int] = None
    seq_dim: Optional[int] = None


def _fail(place: str, message: str) -> None:
    raise _core.ContractError(f"samebits.check: {place}: {message}")


def _dtype_name(d: Union[torch.dtype, str]) -> str:
    return str(d).replace("torch.", "") if isinstance(d, torch.dtype) else d


def _json_value(v: Any, place: str) -> Any:
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, torch.dtype):
        return _dtype_name(v)
    if isinstance(v, (list, tuple)):
        return [_json_value(e, place) for e in v]
    _fail(place, f"a value of type {type(v).__name__} has no JSON form; accepted: None, bool, "
                 "int, float, str, torch.dtype, or lists of these")


# The schema type of a parameter given this value (None: an absent optional tensor).
def _schema_type(v: Any, place: str) -> str:
    if v is None:
        return "Tensor?"
    for python, schema in ((bool, "bool"), (int, "int"), (float, "float"), (str, "str"),
                           (torch.dtype, "ScalarType")):
        if isinstance(v, python):
            return schema
    if isinstance(v, (list, tuple)) and all(isinstance(e, int) and not isinstance(e, bool)
                                            for e in v):
        return "int[]"
    _fail(place, f"a value of type {type(v).__name__}; accepted: a samebits.Input (a tensor), "
                 "None, bool, int, float, str, torch.dtype, a list of ints, or samebits.Axis(NAME)")


def _input_json(name: str, spec: Input) -> Dict[str, Any]:
    place = f'inputs["{name}"]'
    if not isinstance(spec.shape, (list, tuple)):
        _fail(f"{place}.shape", f"expected a tuple of extents (integers, axis names or "
                                f"expressions), got {spec.shape!r}")
    out: Dict[str, Any] = {"arg": name, "shape": list(spec.shape)}
    out["dtype"] = ({"axis": spec.dtype.name} if isinstance(spec.dtype, Axis)
                    else _dtype_name(spec.dtype))
    if spec.integers is not None:
        out["generator"] = {"integers": list(spec.integers)}
    else:
        out["generator"] = ({"axis": spec.generator.name} if isinstance(spec.generator, Axis)
                            else spec.generator)
    out["batch_dim"] = "none" if spec.batch_dim is None else spec.batch_dim
    if spec.seq_dim is not None:
        out["sequence_dim"] = spec.seq_dim
    if spec.indexes is not None:
        out["indexes"] = spec.indexes
    for field in ("batch_dim", "seq_dim"):
        d = getattr(spec, field)
        if d is not None and (not isinstance(d, int) or isinstance(d, bool)):
            _fail(f"{place}.{field}", f"expected an integer dim or None, got {d!r}")
    return out


def _callable_name(fn: Callable) -> str:
    if isinstance(fn, torch.nn.Module):
        return type(fn).__name__
    return getattr(fn, "__name__", None) or type(fn).__name__


def _signature(fn: Callable) -> Optional[inspect.Signature]:
    target = fn.forward if isinstance(fn, torch.nn.Module) else fn
    try:
        return inspect.signature(target)
    except (TypeError, ValueError):  # builtins (torch.nn.functional.relu) have none
        return None


def _named_inputs(fn: Callable, inputs: Any, sig: Optional[inspect.Signature]) -> Dict[str, Any]:
    if isinstance(inputs, Mapping):
        for key in inputs:
            if not isinstance(key, str) or not key.isidentifier():
                _fail("inputs", f"keys are parameter names, got {key!r}")
        return dict(inputs)
    listed = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    if sig is None:
        return {f"arg{i}": v for i, v in enumerate(listed)}
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    names = [p.name for p in sig.parameters.values() if p.kind in kinds]
    if len(listed) > len(names):
        _fail("inputs", f"{len(listed)} inputs for {len(names)} positional parameters "
                        f"({', '.join(names) or 'none'}); name them with a dict")
    return dict(zip(names, listed))


# fn's parameters as a schema ("python::f(Tensor x, *, int dim) -> Tensor"): positional-only ones
# positionally, the rest by keyword; a parameter with a default that is not given is left out (fn
# takes its default); one without is kept, so that the engine's binding says it is missing.
def _schema(op: str, fn: Callable, sig: Optional[inspect.Signature], given: Dict[str, Any],
            axes: Mapping[str, list], outputs: List[str]) -> str:
    def type_of(name: str) -> str:
        v = given[name]
        if isinstance(v, Input):
            return "Tensor"
        if isinstance(v, Axis):
            values = list(axes.get(v.name) or [0])
            return _schema_type(values[0], f'axes["{v.name}"]')
        return _schema_type(v, f'inputs["{name}"]')

    positional: List[str] = []
    keywords: List[str] = []
    if sig is None:
        positional = [f"{type_of(n)} {n}" for n in given]
    else:
        params = list(sig.parameters.values())
        named = {p.name for p in params
                 if p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)}
        extra = any(p.kind == inspect.Parameter.VAR_KEYWORD for p in params)
        for n in given:
            if n not in named and not extra:
                _fail(f'inputs["{n}"]', f"{_callable_name(fn)} has no parameter \"{n}\"; accepted: "
                                        f"{', '.join(sorted(named)) or 'none'}")
        for i, p in enumerate(params):
            if p.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
                continue
            required = p.default is inspect.Parameter.empty
            if p.name not in given and not required:
                later = [q.name for q in params[i + 1:] if q.kind == p.kind]
                if p.kind == inspect.Parameter.POSITIONAL_ONLY and set(later) & set(given):
                    _fail(f'inputs["{p.name}"]', "a positional-only parameter before a given one "
                                                 "must be given too")
                continue
            text = f"{type_of(p.name) if p.name in given else 'Tensor'} {p.name}"
            (positional if p.kind == inspect.Parameter.POSITIONAL_ONLY else keywords).append(text)
        keywords += [f"{type_of(n)} {n}" for n in given if n not in named]
    args = ", ".join(positional + (["*"] + keywords if keywords else []))
    returns = ("Tensor " + outputs[0] if len(outputs) == 1
               else "(" + ", ".join(f"Tensor {o}" for o in outputs) + ")")
    return f"{op}({args}) -> {returns}"


def _checks_json(checks: Any, compare: Any, axes: Mapping[str, list],
                 sequenced: bool) -> List[Dict[str, Any]]:
    if checks is None:
        kinds = [k for k in CHECK_KINDS if k != "reference" and k not in _GRADIENT_KINDS and
                 (sequenced or k not in _SEQUENCE_KINDS)]
        checks = {k: {} for k in kinds}
    elif isinstance(checks, str):
        checks = {checks: {}}
    elif not isinstance(checks, Mapping):
        checks = {k: {} for k in checks}
    out = []
    for kind, sweep in checks.items():
        if kind not in _DEFAULT_SWEEPS:
            _fail(f'checks["{kind}"]', f"unknown check kind; accepted: {', '.join(CHECK_KINDS)}")
        if not isinstance(sweep, Mapping):
            _fail(f'checks["{kind}"]', f"expected a dict of axis name to values, got {sweep!r}")
        merged = {k: v for k, v in _DEFAULT_SWEEPS[kind].items() if k not in axes}
        merged.update({k: _json_value(v, f'checks["{kind}"]["{k}"]') for k, v in sweep.items()})
        if isinstance(compare, Mapping) and "mode" not in compare:
            mode = compare.get(kind, "allclose" if kind == "reference" else "bitwise")
        else:
            mode = compare if compare is not None else (
                "allclose" if kind == "reference" else "bitwise")
        out.append({"name": kind, "kind": kind, "compare": _json_value(mode, "compare"),
                    "sweep": merged, "expect": {_IMPL: "holds"}})
    return out


def _sequence_axis(named: Dict[str, Any]) -> str:
    axis = ""
    for name, spec in named.items():
        if not isinstance(spec, Input) or spec.seq_dim is None:
            continue
        place = f'inputs["{name}"].seq_dim'
        if not -len(spec.shape) <= spec.seq_dim < len(spec.shape):
            _fail(place, f"dim {spec.seq_dim} is out of range for shape {tuple(spec.shape)}")
        extent = spec.shape[spec.seq_dim]
        if not isinstance(extent, str) or not extent.isidentifier():
            _fail(place, f"the sequence dim's extent must be an axis name (the items' length), "
                         f"got {extent!r}")
        if axis and extent != axis:
            _fail(place, f"every input's sequence dim must have the same extent, \"{axis}\" and "
                         f"\"{extent}\" differ")
        axis = extent
    return axis


# A ContractError's JSON path in the contract built here, as the argument of check() it came from.
def _argument_error(error: Exception, source: str, contract: Optional[Dict[str, Any]]) -> Exception:
    text = str(error)
    for prefix in ("samebits.check: ", "samebits.run: "):  # Python's own checks, run_engine's
        if text.startswith(prefix):
            return _core.ContractError(f"{source}: {text[len(prefix):]}")
    match = re.match(re.escape(source) + r": (/\S*): (.*)", text, re.S)
    if not match or contract is None:
        return error
    parts = match.group(1).strip("/").split("/")
    fields = {"sequence_dim": "seq_dim", "generator": "generator or integers"}
    place = {"op": "fn", "name": "name", "sweep": "axes", "inputs": "inputs", "checks": "checks",
             "outputs": "outputs", "sequence": "inputs (seq_dim)", "": "check"}.get(parts[0],
                                                                                 parts[0])
    listed = {"inputs": ("arg", 'inputs["{}"]'), "checks": ("kind", 'checks["{}"]'),
              "outputs": ("name", 'outputs["{}"]')}
    rest = parts[1:]
    if parts[0] in listed and rest and rest[0].isdigit():
        key, form = listed[parts[0]]
        place = form.format(contract[parts[0]][int(rest[0])][key])
        rest = rest[1:]
    elif parts[0] == "sweep" and rest:
        place, rest = f'axes["{rest[0]}"]', rest[1:]
    place += "".join(f"[{r}]" if r.isdigit() else "." + fields.get(r, r) for r in rest)
    return _core.ContractError(f"{source}: {place}: {match.group(2)}")


# The contract (the JSON a schema op's contract file holds) and fn's schema.
def _contract(fn: Callable, inputs: Any, label: str, axes: Any, checks: Any, compare: Any,
              outputs: Any) -> Tuple[Dict[str, Any], str]:
    given_axes = dict(axes or {})
    axes = {k: [_json_value(v, f'axes["{k}"]') for v in values] for k, values in
            given_axes.items()}
    sig = _signature(fn)
    named = _named_inputs(fn, inputs, sig)
    ident = re.sub(r"\W", "_", label)
    op = "python::" + ("fn_" + ident if ident[:1].isdigit() else ident)
    declared = [o if isinstance(o, Output) else Output(str(o)) for o in (outputs or ["out"])]
    sequence = _sequence_axis(named)
    contract: Dict[str, Any] = {
        "name": label, "op": op, "description": f"samebits.check({_callable_name(fn)})",
        "implementations": [_IMPL],
        "inputs": [_input_json(n, v) if isinstance(v, Input) else
                   {"arg": n, "axis": v.name} if isinstance(v, Axis) else
                   {"arg": n, "value": _json_value(v, f'inputs["{n}"]')}
                   for n, v in named.items()],
        "sweep": axes, "checks": _checks_json(checks, compare, axes, bool(sequence))}
    if sequence:
        contract["sequence"] = sequence
    if outputs is not None:
        contract["outputs"] = [{k: v for k, v in (("name", o.name), ("batch_dim", o.batch_dim),
                                                  ("sequence_dim", o.seq_dim)) if v is not None}
                               for o in declared]
    return contract, _schema(op, fn, sig, named, given_axes, [o.name for o in declared])


def check(fn: Callable, inputs: Union[Input, Sequence[Any], Mapping[str, Any]], *,
          axes: Optional[Mapping[str, Sequence[Any]]] = None,
          checks: Union[None, str, Sequence[str], Mapping[str, Mapping[str, Any]]] = None,
          compare: Union[None, str, Mapping[str, Any]] = None,
          outputs: Optional[Sequence[Union[str, Output]]] = None, name: Optional[str] = None,
          device: str = "cpu", seed: int = 0, report: Optional[PathLike] = None,
          render: Sequence[RenderFormat] = ()) -> CheckResult:
    """Runs the engine's check kinds on ``fn``: the item under test alone and in batches, at other
    positions, laid out strided or offset, padded, packed or chunked along ``seq_dim``, and called
    twice; every output compared bit for bit (or as ``compare`` says).

    Args:
        fn: any callable taking tensors and returning a tensor or a tuple or list of tensors: a
            function, an ``nn.Module``, a Triton or CUDA extension. It runs without autograd.
        inputs: its parameters: a dict of name to :class:`Input` (a tensor), :class:`Axis` (an
            axis's value) or a plain value (None, bool, int, float, str, torch.dtype, a list of
            ints); or a list matched to its positional parameters; or one :class:`Input`.
        axes: the sweep: axis name to its values (``{"n": [64, 1000]}``); the check kinds' own
            axes (``batch``, ``position``, ``layout``, ``chunk``, ``lengths``) given here replace
            their defaults in every check.
        checks: the kinds to run (:data:`CHECK_KINDS`): a list, or a dict of kind to its own axes.
            Default: determinism, batch, position and layout invariance, and padding and chunking
            invariance where an input has a ``seq_dim``.
        compare: ``"bitwise"`` (default; ``"allclose"`` for ``reference``), ``"ulp"``,
            ``"allclose"``, a comparison object (``{"mode": "ulp", "max_ulp": 2}``) or a dict of
            kind to one of these.
        outputs: the names of fn's returned tensors (or :class:`Output` with their dims);
            default one, ``"out"``.
        name: the contract's name in case ids and the report (default fn's name).
        device: ``"cpu"``, ``"cuda"`` or ``"auto"``.
        seed: the seed every case's inputs derive from.
        report: where to write the JSON report (``samebits report render``, diff, merge and
            baselines take it like any other).
        render: formats to render beside the report (``"html"``, ``"junit"``, ``"markdown"``).

    Returns:
        The :class:`CheckResult`; ``raise_if_violated()`` turns a violation into an
        :class:`InvarianceError`. A case whose call raised, or returned something that is not a
        tensor, is recorded as that case's error and the run goes on.

    Raises:
        ContractError: (a ``ValueError``) an argument the engine cannot use, named, before any case.
        InfrastructureError: no CUDA device for ``device="cuda"``, or a report not written.
    """
    if not callable(fn):
        raise TypeError(f"samebits.check: fn must be callable, got a {type(fn).__name__}")
    if render and report is None:
        raise ValueError("samebits.check: render needs report=PATH: renderings are of a written "
                         "report")
    label = name or re.sub(r"\W", "_", _callable_name(fn)).strip("_") or "callable"
    source = f"samebits.check({label})"
    contract: Optional[Dict[str, Any]] = None
    try:
        contract, schema = _contract(fn, inputs, label, axes, checks, compare, outputs)
        outcome = _core.check(fn, json.dumps(contract), schema, source=source, device=device,
                              seed=seed, progress=False,
                              report="" if report is None else os.fspath(report))
    except _core.ContractError as error:
        raise _argument_error(error, source, contract) from None
    result = outcome.result
    if result.interrupted:
        raise KeyboardInterrupt("samebits.check: stopped after the case under way")
    found = CheckResult(
        name=label,
        report=Report(data=json.loads(result.report_json), exit_code=result.exit_code,
                      path=None if report is None else Path(report)),
        violations=tuple(Violation(f.check, f.kind, f.outcome, f.headline, f.detail)
                         for f in outcome.failures))
    for format in render:
        found.render(format)
    return found
