# samebits' pytest plugin: a test suite gates on invariance with one marker (or one fixture), and
# --samebits-report DIR keeps each check's report with its JUnit and HTML renderings.
"""pytest plugin of samebits (entry point ``pytest11``; from a build tree: ``-p
samebits.pytest_plugin``)::

    @pytest.mark.samebits(inputs=samebits.Input(shape=(1, "n")), axes={"n": [64, 1000]})
    def test_my_norm_is_batch_invariant():
        return MyNorm()             # the callable to check; the test fails unless every check holds

    def test_with_the_fixture(samebits_check):
        samebits_check(my_op, samebits.Input(shape=(1, "n")), axes={"n": [64]})

A check that does not hold fails its test with :meth:`samebits.CheckResult.summary`: which check,
which case, the first mismatching elements (index, both values, bits, ULP).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable, Dict

import pytest

from .checking import CheckResult, check

_MARKER = ("samebits(inputs, *, axes=None, checks=None, compare=None, outputs=None, name=None, "
           "device='cpu', seed=0): the test returns a callable; samebits.check runs on it with "
           "these arguments, and the test fails unless every check holds")
# Report files written per test id, so that two checks in one test do not share a file.
_COUNTS = pytest.StashKey[Dict[str, int]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("samebits", "samebits invariance checks")
    group.addoption("--samebits-report", metavar="DIR", default=None,
                    help="write each samebits check's JSON report into DIR, with its JUnit (.xml) "
                         "and HTML (.html) renderings")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", _MARKER)


def _report_path(config: pytest.Config, nodeid: str, counts: Dict[str, int]) -> Path:
    folder = Path(config.invocation_params.dir, config.getoption("samebits_report"))
    folder.mkdir(parents=True, exist_ok=True)
    stem = re.sub(r"[^\w.-]+", "_", nodeid).strip("_")
    counts[stem] = counts.get(stem, 0) + 1
    if counts[stem] > 1:
        stem += f"-{counts[stem]}"
    return folder / (stem + ".json")


def _gate(config: pytest.Config, nodeid: str, fn: Callable, inputs: Any,
          kwargs: Dict[str, Any]) -> CheckResult:
    __tracebackhide__ = True
    if config.getoption("samebits_report") and "report" not in kwargs:
        counts = config.stash.setdefault(_COUNTS, {})
        kwargs = {**kwargs, "report": _report_path(config, nodeid, counts)}
        kwargs.setdefault("render", ("junit", "html"))
    result = check(fn, inputs, **kwargs)
    if not result.ok:
        pytest.fail(result.summary(), pytrace=False)
    return result


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> Any:
    marker = pyfuncitem.get_closest_marker("samebits")
    if marker is None:
        return None
    __tracebackhide__ = True
    kwargs = dict(marker.kwargs)
    if len(marker.args) > 1 or (marker.args and "inputs" in kwargs):
        pytest.fail(f"{pyfuncitem.nodeid}: @pytest.mark.samebits takes inputs as its one "
                    f"positional argument, the rest by keyword", pytrace=False)
    inputs = marker.args[0] if marker.args else kwargs.pop("inputs", None)
    if inputs is None:
        pytest.fail(f"{pyfuncitem.nodeid}: @pytest.mark.samebits needs inputs=...", pytrace=False)
    names = pyfuncitem._fixtureinfo.argnames
    fn = pyfuncitem.obj(**{n: pyfuncitem.funcargs[n] for n in names})
    if not callable(fn):
        pytest.fail(f"{pyfuncitem.nodeid}: a test marked samebits returns the callable to check; "
                    f"it returned a {type(fn).__name__}", pytrace=False)
    _gate(pyfuncitem.config, pyfuncitem.nodeid, fn, inputs, kwargs)
    return True


@pytest.fixture
def samebits_check(request: pytest.FixtureRequest) -> Callable[..., CheckResult]:
    """``samebits_check(fn, inputs, **kwargs)``: :func:`samebits.check` that fails the test unless
    every check holds (and returns the result when they do)."""

    def run(fn: Callable, inputs: Any, **kwargs: Any) -> CheckResult:
        __tracebackhide__ = True
        return _gate(request.config, request.node.nodeid, fn, inputs, kwargs)

    return run
