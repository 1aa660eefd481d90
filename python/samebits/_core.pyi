# Type stub of samebits._core (python/src/core_module.cpp), the pybind11 module over the C++
# engine: what samebits.running calls, typed for checkers and editors.
from typing import List

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
