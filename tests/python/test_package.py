# `import samebits`: the version, the ops its extension registers, and a documented, typed public
# API (pytest; PYTHONPATH=<build>/python, or the package pip installed).
import inspect
import re

import pytest
import torch

import samebits

# Every op kernels/*/binding.cpp defines; importing samebits must register them all.
OPS = ["sum", "mean", "sum_varlen", "topk", "topk_varlen", "indexer", "attention",
       "attention_varlen", "attention_with_kvcache", "rms_norm", "add_rms_norm", "softmax",
       "log_softmax", "linear", "matmul", "attention_backward", "attention_varlen_backward"]


def test_version_is_the_projects():
    assert re.fullmatch(r"\d+\.\d+\.\d+", samebits.__version__), samebits.__version__
    assert samebits.__version__ == samebits._core.__version__


@pytest.mark.parametrize("name", OPS)
def test_import_registers_every_op(name):
    assert hasattr(torch.ops.samebits, name), f"torch.ops.samebits.{name} is not registered"


@pytest.mark.parametrize("name", OPS)
def test_every_op_has_a_wrapper_of_its_name(name):
    assert callable(getattr(samebits, name)), name


@pytest.mark.parametrize("name", [n for n in samebits.__all__ if n != "__version__"])
def test_public_names_are_documented(name):
    obj = getattr(samebits, name)
    assert inspect.getdoc(obj), f"samebits.{name} has no docstring"
    if inspect.isfunction(obj):
        hints = inspect.signature(obj)
        missing = [p for p in hints.parameters.values() if p.annotation is inspect.Parameter.empty]
        assert not missing and hints.return_annotation is not inspect.Signature.empty, name


def test_errors_are_the_usual_kinds():
    assert issubclass(samebits.ContractError, ValueError)
    assert issubclass(samebits.InfrastructureError, RuntimeError)
