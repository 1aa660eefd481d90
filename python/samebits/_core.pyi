# Type stub of samebits._core (python/src/core_module.cpp), the pybind11 module over the C++
# engine: what samebits.running calls, typed for checkers and editors.
from typing import Any, Callable, List, Optional, Tuple

__version__: str

class ContractError(ValueError):
    """A contract, an argument or an input file that cannot be used (samebits run's exit 2)."""

class InfrastructureError(RuntimeError):
    """A device that is not there, or an output that could not be written (exit 3)."""

class EngineResult:
    """What one run gives back: the report's JSON text, the exit code, whether Ctrl-C stopped it."""

    @property
    def report_json(self) -> str: ...
    @property
    def exit_code(self) -> int: ...
    @property
    def interrupted(self) -> bool: ...

def run(contracts: List[str], *, device: str, filter: str, case_id: str, seed: int,
        capture: str, jobs: int, progress: bool, report: str,
        observations: List[str]) -> EngineResult:
    """Plans, runs and judges contracts (none: the embedded suite) as `samebits run` does."""

def render(report_path: str, format: str, out: str) -> None:
    """Writes a report's html, markdown or junit rendering to `out`."""

class CheckFailure:
    """A check of samebits.check() whose outcome was not its promise."""

    @property
    def check(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def outcome(self) -> str: ...
    @property
    def headline(self) -> str: ...
    @property
    def detail(self) -> str: ...

class CheckOutcome:
    """A samebits.check() run: the engine's result and the checks not as promised."""

    @property
    def result(self) -> EngineResult: ...
    @property
    def failures(self) -> List[CheckFailure]: ...

def check(fn: Callable[..., Any], contract_json: str, schema: str, *, source: str, device: str,
          seed: int, progress: bool, report: str) -> CheckOutcome:
    """Runs a contract whose op ("python::NAME", with `schema`) calls fn, as `samebits run` runs
    any contract."""

def localize(a: Callable[[], None], b: List[Callable[[], None]],
             format_stack: Optional[Callable[[], str]], plain_ms: Optional[float], *,
             a_map: Tuple[int, int, int, int, int, int],
             b_maps: List[Tuple[int, int, int, int, int, int]], call_name: str, a_name: str,
             b_name: str, subject_json: str, capture_kernels: bool, report: str,
             html: str, rerun_contract: str) -> str:
    """Records a() and b's calls op by op and compares them on the item's rows: the finding's
    JSON. With call_name, b's calls hold a's rows one after another ("call_name.j")."""
