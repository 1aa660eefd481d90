# A stand-in for samebits._core where the package's wrappers run over a built ops library alone (the
# GPU machine's Python is not the one _core was built for): it loads SAMEBITS_OPS_LIB, no engine.
"""Copied as samebits/_core.py beside python/samebits/*.py by scripts/gpu-check (attention mode),
so that tests/python/test_no_sync.py runs on a GPU machine over the library the gpu preset built.
The contracts engine (run, render, check, localize) is not here: calling it raises."""
import os

import torch

_LIB = os.environ.get("SAMEBITS_OPS_LIB", "")
if not os.path.isfile(_LIB):
    raise ImportError(f"samebits._core stand-in: SAMEBITS_OPS_LIB={_LIB!r} names no file; give "
                      "the path of a built libsamebits_torch_ops.so")
torch.ops.load_library(_LIB)

__version__ = "stand-in"


class ContractError(ValueError):
    pass


class InfrastructureError(RuntimeError):
    pass


def _engine(*args, **kwargs):
    raise RuntimeError("the contracts engine is not in this stand-in for samebits._core")


check = run = render = localize = _engine
