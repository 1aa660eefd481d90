# samebits.run() and samebits.render(): a small contract through the CLI's engine gives the report
# `samebits run` gives (case counts, verdicts, exit code), its renderings, and clear errors.
import json

import pytest
import torch

import samebits

# 2 implementations x 2 widths of one determinism check: 4 cases, all holding.
TINY = {
    "name": "tiny",
    "op": "sum",
    "implementations": ["aten", "samebits"],
    "sweep": {"rows": [2], "N": [3, 5]},
    "checks": [{"kind": "determinism", "expect": {"aten": "holds", "samebits": "holds"}}],
}
# A planted broken promise: aten's float32 sum claimed bitwise equal to the float64 reference.
BROKEN = {
    "name": "broken",
    "op": "sum",
    "implementations": ["aten"],
    "sweep": {"rows": [64], "N": [1001]},
    "checks": [{"kind": "reference", "compare": "bitwise", "expect": {"aten": "holds"}}],
}


def write(path, contract):
    path.write_text(json.dumps(contract))
    return path


@pytest.fixture
def tiny(tmp_path):
    return write(tmp_path / "tiny.json", TINY)


def test_a_small_contract_gives_the_expected_counts(tiny, tmp_path):
    report = samebits.run(tiny, device="cpu", report=tmp_path / "report.json")
    assert report.ok and report.exit_code == 0
    summary = report.summary
    assert (summary["cases"], summary["held"], summary["violated"], summary["errors"]) == (4, 4, 0, 0)
    assert (summary["checks"], summary["as_expected"], summary["unexpected"]) == (2, 2, 0)
    assert sorted({c["impl"] for c in report.cases}) == ["aten", "samebits"]
    assert all(c["id"].startswith("tiny/determinism/") for c in report.cases)
    # The file written is the report returned, and it reruns from the CLI.
    written = json.loads((tmp_path / "report.json").read_text())
    assert written["summary"] == summary and report.path == tmp_path / "report.json"
    assert report.data["command"][:2] == ["samebits", "run"]


def test_filter_and_case_select_as_on_the_command_line(tiny):
    assert samebits.run(tiny, filter="tiny/determinism/samebits").summary["cases"] == 2
    one = samebits.run(tiny).cases[0]["id"]
    again = samebits.run(tiny, case=one)
    assert [c["id"] for c in again.cases] == [one]


def test_a_broken_promise_exits_1(tmp_path):
    report = samebits.run(write(tmp_path / "broken.json", BROKEN), device="cpu")
    assert report.exit_code == 1 and not report.ok
    assert report.summary["unexpected"] == 1 and report.summary["violated"] == 1


def test_the_default_suite_runs_when_no_contract_is_named():
    report = samebits.run(device="cpu", filter="sum/determinism")
    assert report.summary["cases"] > 0
    assert all(c["contract"] == "sum" for c in report.cases)


@pytest.mark.parametrize("format, suffix, start", [
    ("html", ".html", "<!DOCTYPE html>"), ("markdown", ".md", "**samebits: exit 0"), ("junit", ".xml", "<?xml")])
def test_render_writes_each_format_beside_the_report(tiny, tmp_path, format, suffix, start):
    report = samebits.run(tiny, report=tmp_path / "r.json")
    out = samebits.render(report, format)
    assert out == tmp_path / ("r" + suffix) and out.read_text().lstrip().startswith(start)
    assert samebits.render(tmp_path / "r.json", format, tmp_path / "x" / "y") == tmp_path / "x" / "y"


@pytest.mark.parametrize("kwargs, message", [
    (dict(device="gpu"), "device must be one of auto, cpu, cuda, got \"gpu\""),
    (dict(capture="always"), "capture must be one of auto, on, off"),
    (dict(jobs=300), "jobs takes 0 (auto) or a whole number from 1 to 256, got 300"),
    (dict(capture="on"), "--capture on: kernel capture records CUDA kernels"),
    (dict(filter="nothing-matches"), "selects no case"),
])
def test_bad_arguments_raise_contract_errors(tiny, kwargs, message):
    with pytest.raises(samebits.ContractError) as error:
        samebits.run(tiny, device=kwargs.pop("device", "cpu"), **kwargs)
    assert message in str(error.value), str(error.value)


def test_bad_files_raise_contract_errors(tmp_path):
    with pytest.raises(samebits.ContractError, match="missing.json"):
        samebits.run(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"op": "nosuchop", "implementations": ["aten"], '
                   '"checks": [{"kind": "determinism", "expect": {"aten": "holds"}}]}')
    with pytest.raises(samebits.ContractError, match='unknown op "nosuchop"'):
        samebits.run(bad)
    with pytest.raises(samebits.ContractError):
        samebits.render(tmp_path / "missing.json", "html")
    with pytest.raises(samebits.ContractError, match="format must be one of html, markdown, junit"):
        samebits.render(tmp_path / "missing.json", "pdf")


def test_an_unwritten_report_cannot_be_rendered(tiny):
    with pytest.raises(ValueError, match="run with report=PATH"):
        samebits.render(samebits.run(tiny), "html")


@pytest.mark.skipif(torch.cuda.is_available(), reason="a CUDA GPU is visible")
def test_cuda_without_a_gpu_is_a_clear_error(tiny):
    with pytest.raises(samebits.ContractError, match="no CUDA GPU is visible"):
        samebits.run(tiny, device="cuda")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU visible")
def test_a_small_contract_on_cuda(tiny):
    report = samebits.run(tiny, device="cuda")
    assert report.summary["cases"] == 4 and report.exit_code == 0
