# samebits.run() and samebits.render(): contracts run and reports rendered by the C++ engine the
# CLI uses (samebits._core), with the report handed back as a small typed object.
"""Run contracts and render reports from Python, as ``samebits run`` and ``samebits report
render`` do (the same engine, the same report)."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Literal, Optional, Sequence, Union

from . import _core

__all__ = ["Report", "run", "render"]

PathLike = Union[str, "os.PathLike[str]"]
RenderFormat = Literal["html", "markdown", "junit"]
_SUFFIXES = {"html": ".html", "markdown": ".md", "junit": ".xml"}


@dataclass(frozen=True)
class Report:
    """A run's report: the JSON ``samebits run`` writes (``reports/report.schema.json``).

    Attributes:
        data: the whole report as parsed JSON.
        exit_code: as ``samebits run`` exits: 0 every outcome as expected, 1 an unexpected one, 3
            a case that could not run.
        path: the file the report was written to, or None.
    """

    data: Dict[str, Any] = field(repr=False)
    exit_code: int
    path: Optional[Path] = None

    @property
    def summary(self) -> Dict[str, Any]:
        """Counts of the run: ``cases``, ``held``, ``violated``, ``skipped``, ``errors``,
        ``checks``, ``as_expected``, ``unexpected``, ``findings``, ``exit_code``, ..."""
        return self.data["summary"]

    @property
    def checks(self) -> List[Dict[str, Any]]:
        """One entry per check and implementation: its expected and observed outcome."""
        return self.data["checks"]

    @property
    def cases(self) -> List[Dict[str, Any]]:
        """Every case run: its id, verdict, comparison and output digests."""
        return self.data["cases"]

    @property
    def ok(self) -> bool:
        """Whether every check's outcome was as expected (exit code 0)."""
        return self.exit_code == 0


def _paths(contract: Union[None, PathLike, Sequence[PathLike]]) -> List[str]:
    if contract is None:
        return []
    if isinstance(contract, (str, os.PathLike)):
        return [os.fspath(contract)]
    return [os.fspath(c) for c in contract]


def run(contract: Union[None, PathLike, Sequence[PathLike]] = None, *, device: str = "cpu",
        filter: str = "", case: str = "", seed: int = 0, capture: str = "auto", jobs: int = 0,
        report: Optional[PathLike] = None, observations: Sequence[PathLike] = (),
        progress: bool = False) -> Report:
    """Runs contracts through samebits' engine, as ``samebits run`` does, and returns the report.

    Args:
        contract: a contract file, a folder of them, a report (to rerun its contracts), or a list
            of these; None runs the default suite built into samebits.
        device: ``"cpu"``, ``"cuda"`` or ``"auto"`` (CUDA where a GPU is visible).
        filter: run only cases whose id matches this regex at the start of a part
            (``"softmax/"``, ``"batch_invariance"``, ``"dtype=bfloat16"``).
        case: run exactly the case with this id.
        seed: the seed every case's inputs derive from.
        capture: record the CUDA kernels each case launched: ``"auto"``, ``"on"``, ``"off"``.
        jobs: cases worked at once (0: ``samebits run``'s default for the device).
        report: where to write the JSON report as well (None: not written; :func:`render` needs
            a written report).
        observations: baselines of recorded platforms besides the embedded ones.
        progress: draw a progress bar on stderr.

    Returns:
        The :class:`Report`; a run with unexpected outcomes returns one with ``exit_code`` 1.

    Raises:
        ContractError: (a ``ValueError``) an unusable contract, argument or output path, before
            any case runs.
        InfrastructureError: (a ``RuntimeError``) no CUDA device for ``device="cuda"``, or a
            report that could not be written.
        KeyboardInterrupt: Ctrl-C stopped the run after the case under way.
    """
    result = _core.run(_paths(contract), device=device, filter=filter, case_id=case, seed=seed,
                       capture=capture, jobs=jobs, progress=progress,
                       report="" if report is None else os.fspath(report),
                       observations=_paths(observations))
    if result.interrupted:
        raise KeyboardInterrupt("samebits.run: stopped after the case under way")
    return Report(data=json.loads(result.report_json), exit_code=result.exit_code,
                  path=None if report is None else Path(report))


def render(report: Union[PathLike, Report], format: RenderFormat = "html",
           out: Optional[PathLike] = None) -> Path:
    """Writes a rendering of a written report, as ``samebits report render`` does.

    Args:
        report: a report file (``.json`` or ``.json.gz``), or a :class:`Report` written by
            :func:`run` with ``report=``.
        format: ``"html"`` (self-contained page), ``"markdown"`` (a PR comment) or ``"junit"``
            (one test case per check, surprises as failures).
        out: the file to write; default: the report's path with ``.html``, ``.md`` or ``.xml``.

    Returns:
        The path written.

    Raises:
        ContractError: an unknown format, or a report that cannot be read.
        ValueError: a :class:`Report` that was never written to a file.
    """
    if isinstance(report, Report):
        if report.path is None:
            raise ValueError("samebits.render: this report was not written to a file; run with "
                             "report=PATH first")
        report = report.path
    source = Path(report)
    if out is None:
        stem = source.name
        for suffix in (".gz", ".json"):
            stem = stem[: -len(suffix)] if stem.endswith(suffix) else stem
        out = source.with_name(stem + _SUFFIXES.get(format, "." + format))
    _core.render(os.fspath(source), format, os.fspath(out))
    return Path(out)
