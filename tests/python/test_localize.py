# samebits.localize(): a planted batch-dependent layer of a Python model is named (op, module, line,
# call), elementwise and cached-max models are identical alone, batched, chunked and step by step,
# and bad arguments and a model that raises give clear errors. Exact: elementwise ops and max only.
import json

import pytest
import torch

import samebits


class Block(torch.nn.Module):
    def __init__(self, planted=False):
        super().__init__()
        self.planted = planted

    def forward(self, x):
        y = torch.relu(x) * 0.5 + x.abs()
        if self.planted:
            y = y - 0.25 * y.mean(0, keepdim=True)  # PLANTED: reads the rest of the batch
        return y


class Model(torch.nn.Module):
    def __init__(self, planted_layer=None):
        super().__init__()
        self.layers = torch.nn.ModuleList([Block(i == planted_layer) for i in range(3)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x * 2


def planted_line():
    with open(__file__) as f:
        return next(i for i, line in enumerate(f, 1) if "# PLANTED" in line)


@pytest.fixture
def packed():
    return torch.randn(10, 64, generator=torch.Generator().manual_seed(3))


@pytest.mark.parametrize("layer", [0, 1, 2])
def test_the_planted_layer_is_named_with_its_line(packed, layer, tmp_path):
    found = samebits.localize(Model(planted_layer=layer), packed[3:6], packed,
                              rows=samebits.Packed(3), report=tmp_path / "f.json",
                              html=tmp_path / "f.html")
    assert found.verdict == "diverges"
    assert found.first["op"] == "aten::sub.Tensor"
    assert found.first["region"] == f"layers.{layer}"
    assert f"test_localize.py:{planted_line()} in forward" in found.first["batch"]["stack"]
    assert found.first["batch"]["outputs"][0]["shape"] == [10, 64]
    assert found.first["alone"]["outputs"][0]["shape"] == [3, 64]
    # The ops after it differ too, the timeline says so; the report on disk is the same finding.
    assert len(found.timeline) >= 2
    assert json.loads((tmp_path / "f.json").read_text())["first_divergence"]["op"] == "aten::sub.Tensor"
    page = (tmp_path / "f.html").read_text()
    assert "aten::sub.Tensor" in page and "<script" not in page


def test_the_first_divergent_op_is_written_as_a_contract_that_fails_alone(packed, tmp_path):
    # A scan over the batch's rows (a known answer: the item's rows alone hold only their own
    # prefix) is the first divergent op; its contract, rerun alone, breaks batch invariance.
    def scan(x):
        return torch.cumsum(x, 0) * 2.0

    found = samebits.localize(scan, packed[3:6], packed, rows=samebits.Packed(3),
                              report=tmp_path / "f.json")
    assert found.first["op"] == "aten::cumsum"
    written = tmp_path / "first-divergence.json"
    assert found.rerun["check"] == "batch_invariance" and found.rerun["why_not"] is None
    assert found.rerun["contract"] == str(written) and str(written) in found.rerun["command"]
    assert json.loads(written.read_text())["op"] == "aten::cumsum"
    rerun = samebits.run(written, device="cpu")
    assert rerun.exit_code == 1 and rerun.summary["violated"] > 0


def test_a_row_wise_model_writes_no_contract(packed, tmp_path):
    found = samebits.localize(Model(), packed[3:6], packed, rows=samebits.Packed(3),
                              rerun_contract=tmp_path / "c.json")
    assert found.rerun is None and not (tmp_path / "c.json").exists()


def test_an_elementwise_model_is_identical_alone_and_in_a_batch(packed):
    found = samebits.localize(Model(), packed[3:6], packed, rows=samebits.Packed(3))
    assert found.verdict == "identical"
    assert found.first is None
    assert found.json["counts"]["differs"] == 0 and found.json["counts"]["equal"] > 0


def test_the_same_batch_twice_is_identical_even_when_planted(packed):
    found = samebits.localize(Model(planted_layer=1), None, packed, compare="run_vs_run")
    assert found.verdict == "identical"


def test_a_padded_batch_item_is_its_sequence():
    x = torch.randn(4, 7, 16, generator=torch.Generator().manual_seed(5))
    same = samebits.localize(Model(), x[2:3, :5], x, rows=samebits.Padded(2, length=5))
    assert same.verdict == "identical"
    planted = samebits.localize(Model(planted_layer=2), x[2:3, :5], x,
                                rows=samebits.Padded(2, length=5))
    assert planted.verdict == "diverges" and planted.first["region"] == "layers.2"


def test_bad_arguments_are_refused_before_the_model_runs(packed):
    calls = []

    def model(x):
        calls.append(1)
        return x

    with pytest.raises(samebits.ContractError, match="compare must be one of alone_vs_batch"):
        samebits.localize(model, packed[:2], packed, rows=samebits.Packed(0), compare="sideways")
    with pytest.raises(samebits.ContractError, match="rows= is required"):
        samebits.localize(model, packed[:2], packed)
    with pytest.raises(samebits.ContractError, match="outside the batch's 10 packed rows"):
        samebits.localize(model, packed[:2], packed, rows=samebits.Packed(9))
    with pytest.raises(samebits.ContractError, match="model must be callable"):
        samebits.localize(3, packed[:2], packed, rows=samebits.Packed(0))
    with pytest.raises(samebits.ContractError, match="batch must be a tensor"):
        samebits.localize(model, packed[:2], "x", rows=samebits.Packed(0))
    with pytest.raises(samebits.ContractError, match="rows must be samebits.Packed"):
        samebits.localize(model, packed[:2], packed, rows=(0, 2))
    with pytest.raises(samebits.ContractError, match="report=.*does not exist"):
        samebits.localize(model, packed[:2], packed, rows=samebits.Packed(0),
                          report="/nonexistent-folder/f.json")
    with pytest.raises(samebits.ContractError, match="html=.*is a folder"):
        samebits.localize(model, packed[:2], packed, rows=samebits.Packed(0), html="/tmp")
    assert calls == []


def test_a_model_that_raises_or_returns_no_tensor_says_which_call(packed):
    def raises(x):
        if x.shape[0] > 2:
            raise ValueError("too many rows")
        return x * 2

    with pytest.raises(RuntimeError, match="raised on the batch call: ValueError: too many rows"):
        samebits.localize(raises, packed[:2], packed, rows=samebits.Packed(0))
    with pytest.raises(samebits.ContractError, match="returned float on the batch call"):
        samebits.localize(lambda x: 3.0, packed[:2], packed, rows=samebits.Packed(0))


class CachedBlock(torch.nn.Module):
    """Row-wise, and each row adds the running max of the rows before it from a cache the model
    keeps across calls: exact whatever the chunks (max and elementwise ops only)."""

    def __init__(self, planted=False):
        super().__init__()
        self.planted = planted
        self.cache = torch.zeros(40, 16)

    def forward(self, x, start):
        self.cache[start:start + x.shape[0]] = x
        y = x + 0.5 * torch.cummax(self.cache[:start + x.shape[0]], 0).values[start:]
        if self.planted:
            y = y - 0.25 * y.mean(0, keepdim=True)  # PLANTED IN CALLS: reads the call's other rows
        return y


class CachedModel(torch.nn.Module):
    def __init__(self, planted_layer=None):
        super().__init__()
        self.layers = torch.nn.ModuleList([CachedBlock(i == planted_layer) for i in range(2)])

    def forward(self, x, start):
        for layer in self.layers:
            x = layer(x, start)
        return x * 2


def line_of(marker):
    with open(__file__) as f:
        return next(i for i, line in enumerate(f, 1) if marker in line)


@pytest.fixture
def prompt():
    return torch.randn(10, 16, generator=torch.Generator().manual_seed(7))


def chunks(x, size):
    return [(x[i:i + size], i) for i in range(0, x.shape[0], size)]


CALLS = [("chunked_vs_whole", 4, "chunk", "chunked", "whole"),
         ("prefill_vs_decode", 1, "step", "decode", "prefill")]


@pytest.mark.parametrize("compare,size,call,b,a", CALLS)
def test_a_cached_row_wise_model_is_identical_in_calls(prompt, compare, size, call, b, a):
    found = samebits.localize(CachedModel(), (prompt, 0), chunks(prompt, size), compare=compare)
    assert found.verdict == "identical", found.json["counts"]
    assert found.json["counts"]["differs"] == 0 and found.json["counts"]["equal"] > 0
    assert found.json["subject"]["calls"] == len(range(0, 10, size))
    assert [s["name"] for s in found.json["sides"]] == [a, b]


@pytest.mark.parametrize("compare,size,call,b,a", CALLS)
@pytest.mark.parametrize("layer", [0, 1])
def test_the_planted_layer_is_named_in_the_first_call(prompt, compare, size, call, b, a, layer):
    found = samebits.localize(CachedModel(planted_layer=layer), (prompt, 0), chunks(prompt, size),
                              compare=compare)
    assert found.verdict == "diverges"
    assert found.first["op"] == "aten::sub.Tensor"
    assert found.first["region"] == f"{call}.0/layers.{layer}"
    assert found.first[a]["region"] == f"layers.{layer}"
    assert f"test_localize.py:{line_of('# PLANTED IN CALLS')} in forward" in found.first[b]["stack"]
    assert found.first[b]["outputs"][0]["shape"] == [size, 16]
    assert found.first[a]["outputs"][0]["shape"] == [10, 16]


def test_padded_calls_take_their_rows_from_dim_1(prompt):
    x = prompt.unsqueeze(0)  # [1, 10, 16]
    inner = CachedModel()

    def model(t, start):
        return inner(t[0], start).unsqueeze(0) + 1

    calls = [(x[:, i:i + 3], i) for i in range(0, 10, 3)]
    found = samebits.localize(model, (x, 0), calls, rows=samebits.Padded(0),
                              compare="chunked_vs_whole")
    assert found.verdict == "identical"


def test_bad_calls_are_refused_before_the_model_runs(prompt):
    calls = []

    def model(x, start):
        calls.append(1)
        return x

    assert samebits.COMPARISONS == ("alone_vs_batch", "run_vs_run", "chunked_vs_whole",
                                    "prefill_vs_decode")
    whole = (prompt, 0)
    with pytest.raises(samebits.ContractError, match="batch= for chunked_vs_whole must be a list"):
        samebits.localize(model, whole, prompt, compare="chunked_vs_whole")
    with pytest.raises(samebits.ContractError, match="at least 2 calls, got 1"):
        samebits.localize(model, whole, [whole], compare="chunked_vs_whole")
    with pytest.raises(samebits.ContractError, match="hold 8 rows .dim 0. and the whole call 10"):
        samebits.localize(model, whole, chunks(prompt, 4)[:2], compare="chunked_vs_whole")
    with pytest.raises(samebits.ContractError, match="one row per call .dim 0.; call 0 has 2"):
        samebits.localize(model, whole, chunks(prompt, 2), compare="prefill_vs_decode")
    with pytest.raises(samebits.ContractError, match="rows= for chunked_vs_whole must be None or"):
        samebits.localize(model, whole, chunks(prompt, 4), rows=samebits.Packed(3),
                          compare="chunked_vs_whole")
    with pytest.raises(samebits.ContractError, match=r"batch\[1\] must be a tensor"):
        samebits.localize(model, whole, [whole, 3], compare="chunked_vs_whole")
    with pytest.raises(samebits.ContractError, match="compare must be one of .*prefill_vs_decode"):
        samebits.localize(model, whole, chunks(prompt, 4), compare="chunked")
    assert calls == []


def test_a_model_that_raises_on_a_call_says_which_call(prompt):
    def model(x, start):
        if start == 4:
            raise ValueError("no cache")
        return x * 2

    with pytest.raises(RuntimeError, match="raised on the chunk.1 call: ValueError: no cache"):
        samebits.localize(model, (prompt, 0), chunks(prompt, 4), compare="chunked_vs_whole")
