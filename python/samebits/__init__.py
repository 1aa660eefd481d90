# The samebits Python package: its batch-invariant kernels as typed functions, and the contracts
# engine of the samebits CLI (run, render), one C++ engine under both.
"""samebits: do I get the same bits for the same item, whatever the batch around it?

Importing samebits loads torch, then ``samebits._core`` (the C++ engine), which registers the
kernels as ``torch.ops.samebits.*``; the functions here call those ops::

    import samebits, torch
    values, indices = samebits.topk(torch.randn(4, 1000), k=8)
    report = samebits.run("contracts/sum.json", device="cpu", report="report.json")
    samebits.render("report.json", "html")
    samebits.check(my_fn, samebits.Input(shape=(1, "n")), axes={"n": [64]}).raise_if_violated()
"""
import torch  # noqa: F401 (first: _core's LibTorch and the ops' registry are torch's)

from . import _core
from ._core import ContractError, InfrastructureError
from .checking import (CHECK_KINDS, Axis, CheckResult, Input, InvarianceError, Output, Violation,
                       check)
from .attention import (AttentionGradients, AttentionResult, attention, attention_backward,
                        attention_varlen, attention_varlen_backward, attention_with_kvcache)
from .kernels import (AddRmsNormResult, IndexerResult, TopkResult, add_rms_norm, indexer,
                      linear, log_softmax, matmul, mean, rms_norm, softmax, sum, sum_varlen,
                      topk, topk_varlen)
from .localizing import COMPARISONS, Localization, Packed, Padded, localize
from .running import Report, render, run

__version__: str = _core.__version__

__all__ = [
    "__version__", "ContractError", "InfrastructureError", "Report", "run", "render",
    "AttentionResult", "attention", "attention_varlen", "attention_with_kvcache",
    "AttentionGradients", "attention_backward", "attention_varlen_backward",
    "TopkResult", "IndexerResult", "AddRmsNormResult", "sum", "mean", "sum_varlen", "topk",
    "topk_varlen", "indexer", "rms_norm", "add_rms_norm", "softmax", "log_softmax", "linear",
    "matmul", "check", "Input", "Axis", "Output", "CheckResult", "Violation", "InvarianceError",
    "CHECK_KINDS", "localize", "Localization", "Packed", "Padded", "COMPARISONS",
]
