# What samebits.check() gives back: the report, each check that did not hold in the engine's own
# words, and raise_if_violated() for a test to gate on (an AssertionError, so pytest reports it).
"""The result of :func:`samebits.check`."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Tuple

from .running import PathLike, RenderFormat, Report, render as _render

__all__ = ["Violation", "InvarianceError", "CheckResult"]


@dataclass(frozen=True)
class Violation:
    """A check whose outcome was not its promise (held on every case).

    Attributes:
        check: the check's name (its kind). kind: its kind. outcome: the report's outcome
            (``unexpected_violation`` or ``errored``).
        reason: one line: how many cases, and how the first one differs.
        detail: the first deciding case as ``samebits show`` prints it: the case id, both sides,
            and the first mismatches (index, both values, their bits, ULP).
    """

    check: str
    kind: str
    outcome: str
    reason: str
    detail: str

    def __str__(self) -> str:
        return f"{self.check}: {self.reason}"


class InvarianceError(AssertionError):
    """A check of :func:`check` did not hold; ``result`` is the :class:`CheckResult`."""

    def __init__(self, result: "CheckResult") -> None:
        super().__init__(result.summary())
        self.result = result


@dataclass(frozen=True)
class CheckResult:
    """What :func:`check` found: the report, and each check that did not hold."""

    name: str
    report: Report
    violations: Tuple[Violation, ...]

    @property
    def ok(self) -> bool:
        """Whether every check held on every case (the report's exit code 0), each check having
        run some case: a check whose every case was skipped proves nothing, so it is not ok."""
        return self.report.exit_code == 0 and self._ran()

    @property
    def verdict(self) -> str:
        """``"holds"``, ``"violated"`` (a case's outputs differed), ``"error"`` (cases did not
        run: the callable raised or returned no tensor) or ``"skipped"`` (a check ran no case, e.g.
        a gradient check of a callable with no backward: :attr:`skip_reason` says why)."""
        if self.report.exit_code == 0:
            return "holds" if self._ran() else "skipped"
        violated = any(v.outcome == "unexpected_violation" for v in self.violations)
        return "violated" if violated else "error"

    @property
    def skip_reason(self) -> Optional[str]:
        """Why the first skipped case was skipped, or None where none was."""
        return next((c.get("reason") for c in self.report.cases
                     if c.get("verdict") == "skipped"), None)

    def _ran(self) -> bool:
        """Whether every check ran at least one case (none was skipped whole)."""
        checks = self.report.data.get("checks", [])
        return bool(checks) and all(c["held"] + c["violated"] + c["errors"] > 0 for c in checks)

    @property
    def path(self) -> Optional[Path]:
        """The report file, where ``report=`` wrote one."""
        return self.report.path

    def summary(self) -> str:
        """Every check that did not hold, with its first deciding case in full."""
        s = self.report.summary
        head = (f"samebits.check({self.name}): {self.verdict}: {len(self.violations)} of "
                f"{s['checks']} checks not as promised ({s['cases']} cases: {s['held']} held, "
                f"{s['violated']} violated, {s['errors']} errors, {s['skipped']} skipped)")
        if self.verdict == "skipped":
            head += f": {self.skip_reason}"
        if self.path is not None:
            head += f"; report: {self.path}"
        parts = [head]
        for v in self.violations:
            parts.append(f"- {v}")
            if v.detail:
                parts.append("\n".join("    " + line for line in v.detail.rstrip().splitlines()))
        return "\n".join(parts)

    def raise_if_violated(self) -> None:
        """Raises :class:`InvarianceError` with :meth:`summary` unless every check held (a check
        that ran no case did not)."""
        if not self.ok:
            raise InvarianceError(self)

    def render(self, format: RenderFormat = "html", out: Optional[PathLike] = None) -> Path:
        """:func:`samebits.render` of the written report."""
        return _render(self.report, format, out)
