# samebits.check(): a planted flaw per check kind is caught in the kind it targets, a row-wise
# callable holds every kind, a violation reads as which check, case, index, values and ULP, and bad
# arguments and bad callables give clear errors. Exact by construction: elementwise ops that round
# once (relu, abs, a multiply, an add), no GEMMs, so no host's ISA or thread count changes a bit.
import json

import pytest
import torch

import samebits

ROW = samebits.Input(shape=(1, "n"))
AXES = {"n": [8, 33]}
# [1, T, d] sequences, items along dim 0 and their lengths along dim 1.
SEQ = samebits.Input(shape=(1, "T", "d"), seq_dim=1)
SEQ_AXES = {"T": [6], "d": [4]}


class RowWise(torch.nn.Module):
    """Elementwise, each operation rounded once: the same bits for an element anywhere."""

    def forward(self, x):
        return torch.relu(x) * 0.5 + x.abs()


def centered(x):
    return x - x.mean(0, keepdim=True)  # each row reads the rest of the batch


def by_row(x):
    return x + torch.arange(x.shape[0], dtype=x.dtype)[:, None]  # a term of the row's place


def by_stride(x):
    return x * 2 if x.is_contiguous() else x * 3  # follows the layout, not the values


def noisy(x):
    return x + torch.rand_like(x)  # a new random term on every call


def prefix(x):
    return torch.cumsum(x, dim=1)  # each position reads the positions before it


def violated_kinds(result):
    return {v.kind for v in result.violations if v.outcome == "unexpected_violation"}


@pytest.mark.parametrize("fn, inputs, axes, kind", [
    (centered, ROW, AXES, "batch_invariance"),
    (by_row, ROW, AXES, "position_invariance"),
    (by_stride, ROW, AXES, "layout_invariance"),
    (noisy, ROW, AXES, "determinism"),
    (prefix, SEQ, SEQ_AXES, "chunking_invariance"),
])
def test_a_planted_flaw_fails_the_kind_it_targets(fn, inputs, axes, kind):
    result = samebits.check(fn, inputs, axes=axes)
    assert not result.ok and result.verdict == "violated"
    assert kind in violated_kinds(result), result.summary()
    assert result.report.exit_code == 1


def test_planted_flaws_leave_the_kinds_they_do_not_target():
    # A stride-dependent op holds in batches; a prefix sum along the sequence holds in batches and
    # padded with zeros on either side (every item's prefix stays its own), not packed (one
    # sequence then runs into the next).
    assert "batch_invariance" not in violated_kinds(samebits.check(by_stride, ROW, axes=AXES))
    padded = {"padding_invariance": {"padding": ["right", "left"]}, "batch_invariance": {}}
    assert samebits.check(prefix, SEQ, axes=SEQ_AXES, checks=padded).ok
    packed = samebits.check(prefix, SEQ, axes=SEQ_AXES,
                            checks={"padding_invariance": {"padding": ["packed"]}})
    assert violated_kinds(packed) == {"padding_invariance"}


@pytest.mark.parametrize("fn", [RowWise(), torch.relu], ids=["module", "builtin"])
def test_a_row_wise_callable_holds_every_kind(fn, tmp_path):
    result = samebits.check(fn, SEQ, axes=SEQ_AXES, checks=samebits.CHECK_KINDS,
                            report=tmp_path / "r.json", render=["html", "junit"])
    assert result.ok and result.verdict == "holds" and not result.violations, result.summary()
    kinds = {c["kind"] for c in result.report.checks}
    assert kinds == set(samebits.CHECK_KINDS)
    summary = result.report.summary
    assert summary["cases"] > 0 and summary["held"] == summary["cases"]
    assert all(c["impl"] == "python" for c in result.report.cases)
    result.raise_if_violated()
    assert (tmp_path / "r.html").exists() and (tmp_path / "r.xml").exists()


def sum_in_backward(x):
    # The forward is x exactly (the added term is zero); its backward hands each row the batch's
    # column sums: invariant forward bits, batch-dependent gradients.
    return x + (x - x.detach()) * x.sum(0, keepdim=True)


class NoisyBackward(torch.autograd.Function):
    """x * 2 forward; a fresh random term in the backward (a Python autograd node)."""

    @staticmethod
    def forward(ctx, x):
        return x * 2.0

    @staticmethod
    def backward(ctx, g):
        return g * 2.0 + torch.rand_like(g)


def test_gradient_kinds_catch_a_flaw_the_forward_does_not_show():
    assert samebits.check(sum_in_backward, ROW, axes=AXES, checks="batch_invariance").ok
    result = samebits.check(sum_in_backward, ROW, axes=AXES, checks="gradient_invariance")
    assert violated_kinds(result) == {"gradient_invariance"}, result.summary()
    assert "input gradients" in result.violations[0].detail
    noisy_backward = samebits.check(lambda x: NoisyBackward.apply(x), ROW, axes=AXES,
                                    checks=["determinism", "gradient_determinism"])
    assert violated_kinds(noisy_backward) == {"gradient_determinism"}, noisy_backward.summary()


def test_gradient_kinds_are_asked_for_by_name_and_a_callable_without_backward_is_skipped():
    assert not {"gradient_invariance", "gradient_determinism"} & {
        c["kind"] for c in samebits.check(torch.relu, ROW, axes=AXES).report.checks}

    def no_backward(x):
        with torch.no_grad():
            return x * 2.0

    result = samebits.check(no_backward, ROW, axes=AXES,
                            checks=["batch_invariance", "gradient_invariance"])
    assert not result.ok and result.verdict == "skipped", result.summary()
    assert "has no backward" in result.skip_reason
    with pytest.raises(samebits.InvarianceError, match="skipped"):
        result.raise_if_violated()


def test_a_violation_reads_as_check_case_index_values_and_ulp(tmp_path):
    result = samebits.check(centered, ROW, axes={"n": [8]}, checks=["batch_invariance"],
                            report=tmp_path / "centered.json")
    with pytest.raises(samebits.InvarianceError) as error:
        result.raise_if_violated()
    assert isinstance(error.value, AssertionError) and error.value.result is result
    text = str(error.value)
    assert text.startswith("samebits.check(centered): violated: 1 of 1 checks"), text
    assert "batch_invariance: new violation:" in text
    assert "first: case centered/batch_invariance/python/cpu/" in text
    assert "mismatches (index: baseline vs variant, bits, ULP)" in text and " ULP" in text
    assert "rerun:" not in text  # the CLI cannot rerun a Python callable
    # The report is a report like any other: it reads back and renders.
    written = json.loads((tmp_path / "centered.json").read_text())
    assert written["summary"]["violated"] > 0
    assert written["contracts"][0]["op"] == "python::centered"
    assert "<failure" in samebits.render(result.report, "junit").read_text()
    assert samebits.render(tmp_path / "centered.json", "markdown").read_text().startswith(
        "**samebits: exit 1")
    # The command line cannot call the callable: rerunning the report says so.
    with pytest.raises(samebits.ContractError, match=r"/op: python::centered is a Python callable "
                                                     r"that samebits.check\(\) ran"):
        samebits.run(tmp_path / "centered.json")


def test_each_case_gets_the_same_inputs_for_the_same_seed():
    runs = [samebits.check(RowWise(), ROW, axes=AXES, seed=7).report for _ in range(2)]
    digests = [[c["outputs"] for c in report.cases] for report in runs]
    assert digests[0] == digests[1]


def test_named_outputs_and_values_reach_the_callable():
    seen = []

    def split(x, *, scale, dims, dtype):
        seen.append((scale, tuple(dims), dtype))
        return x.to(dtype) * scale, x.abs()

    inputs = {"x": ROW, "scale": samebits.Axis("scale"), "dims": [1, 2],
              "dtype": samebits.Axis("dt")}
    result = samebits.check(split, inputs, axes={**AXES, "scale": [2.0], "dt": [torch.float64]},
                            outputs=["scaled", "magnitude"], checks=["batch_invariance"])
    assert result.ok, result.summary()
    assert set(seen) == {(2.0, (1, 2), torch.float64)}
    case = result.report.cases[0]
    assert [o["name"] for o in case["outputs"]] == ["scaled", "magnitude"]
    assert case["outputs"][0]["diff"]["dtype"] == "float64"


# ---- a callable that raises or returns no tensor: each case's error, and the run goes on ----

def test_a_callable_that_raises_is_each_case_error_and_the_run_goes_on():
    def fails_in_batches_of_8(x):
        if x.shape[0] == 8:
            raise ValueError("planted failure")
        return x * 2

    result = samebits.check(fails_in_batches_of_8, ROW, axes=AXES)
    summary = result.report.summary
    assert summary["errors"] > 0 and summary["held"] > 0 and not result.ok
    errored = [c for c in result.report.cases if c["verdict"] == "error"]
    assert errored and all("raised ValueError: planted failure (at " in c["reason"]
                           for c in errored), errored[0]["reason"]
    assert "python::fails_in_batches_of_8 raised ValueError" in result.summary()


@pytest.mark.parametrize("fn, message", [
    (lambda x: x.sum().item(), "returned a float, not a tensor or a tuple or list of tensors"),
    (lambda x: None, "returned a NoneType, not a tensor"),
    (lambda x: (x, "x"), "returned a tuple whose item 1 is a str, not a tensor"),
    (lambda x: [x, x], "returned 2 tensors; the check compares 1 (name its outputs"),
])
def test_a_callable_that_returns_no_tensor_names_what_it_returned(fn, message):
    result = samebits.check(fn, ROW, axes=AXES, checks=["determinism"])
    assert result.verdict == "error" and result.report.summary["errors"] > 0
    assert all(message in c["reason"] for c in result.report.cases), result.report.cases[0]
    assert message in result.summary()


# ---- bad arguments: a ContractError naming the argument, before any case ----

def two(x, y):
    return x + y


@pytest.mark.parametrize("fn, inputs, kwargs, message", [
    (two, {"x": ROW}, {}, 'inputs: argument "y" (Tensor) of python::two is missing and has no '
                          'default'),
    (two, {"x": ROW, "y": ROW, "z": 1}, {},
     'inputs["z"]: two has no parameter "z"; accepted: x, y'),
    (two, [ROW, ROW, ROW], {}, "inputs: 3 inputs for 2 positional parameters (x, y)"),
    (centered, samebits.Input(shape=(1, "n"), dtype="float33"), {},
     'inputs["x"].dtype: unknown dtype "float33"; accepted:'),
    (centered, samebits.Input(shape=(1, "m")), {},
     'inputs["x"].shape[1]: unknown axis "m" (in the shape)'),
    (centered, samebits.Input(shape="n"), {}, 'inputs["x"].shape: expected a tuple of extents'),
    (centered, {1: ROW}, {}, "inputs: keys are parameter names, got 1"),
    (centered, ROW, {"checks": ["speed"]}, 'checks["speed"]: unknown check kind; accepted:'),
    (centered, ROW, {"checks": {"batch_invariance": [2, 8]}},
     'checks["batch_invariance"]: expected a dict of axis name to values, got [2, 8]'),
    (centered, ROW, {"checks": {"batch_invariance": {"batch": 8}}},
     'checks["batch_invariance"].sweep.batch: expected an array of values'),
    (centered, ROW, {"checks": ["padding_invariance"]},
     'checks["padding_invariance"].kind: check kind padding_invariance cuts the items along a '
     'sequence dim'),
    (centered, samebits.Input(shape=(1, 4), seq_dim=1), {},
     'inputs["x"].seq_dim: the sequence dim\'s extent must be an axis name'),
    (centered, ROW, {"compare": "exact"}, "compare"),
    (centered, ROW, {"axes": {"n": [8], "batch": [0]}},
     'checks["determinism"]: impossible point n=8,batch=0 on cpu: batch must be at least 1'),
    (centered, {"x": ROW, "k": object()}, {},
     'inputs["k"]: a value of type object has no JSON form'),
    (centered, ROW, {"name": "no spaces"}, 'name: contract name "no spaces"'),
    (centered, ROW, {"device": "gpu"}, 'device must be one of auto, cpu, cuda, got "gpu"'),
])
def test_bad_arguments_raise_contract_errors_naming_them(fn, inputs, kwargs, message):
    with pytest.raises(samebits.ContractError) as error:
        samebits.check(fn, inputs, **{"axes": AXES, **kwargs})
    assert message in str(error.value), str(error.value)


def test_not_a_callable_and_render_without_report_are_clear():
    with pytest.raises(TypeError, match="fn must be callable, got a int"):
        samebits.check(3, ROW, axes=AXES)
    with pytest.raises(ValueError, match="render needs report=PATH"):
        samebits.check(centered, ROW, axes=AXES, render=["html"])


def samebits_attention_out(q, k, v):
    return samebits.attention(q, k, v, causal=True).out


ATTENTION = {name: samebits.Input(shape=(1, heads, "L", 64), dtype=torch.bfloat16)
             for name, heads in (("q", 4), ("k", 2), ("v", 2))}


def test_samebits_attention_gradients_hold_through_its_cpp_autograd():
    # torch.ops.samebits.attention's Autograd kernel is C++: q, k and v take their gradients from
    # the invariant backward, the same bits alone, in a batch and run to run (GQA 4/2, 9 and 70
    # keys: a tile's border and past it).
    result = samebits.check(samebits_attention_out, ATTENTION, axes={"L": [9, 70], "batch": [3]},
                            checks=["gradient_invariance", "gradient_determinism"])
    assert result.ok and result.verdict == "holds", result.summary()
    # The control: the same call with a backward that reads the batch is caught.
    flawed = samebits.check(lambda q, k, v: sum_in_backward(samebits_attention_out(q, k, v)),
                            ATTENTION, axes={"L": [9], "batch": [3]},
                            checks=["gradient_invariance"])
    assert violated_kinds(flawed) == {"gradient_invariance"}, flawed.summary()
