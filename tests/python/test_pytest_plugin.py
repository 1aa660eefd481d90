# samebits' pytest plugin gates a user's suite (tests/python/sample_suite, run here by pytester):
# the planted batch-dependent callable fails through the marker and the fixture with the readable
# summary, the row-wise one passes, and --samebits-report keeps each report with JUnit and HTML.
from pathlib import Path

SAMPLE = Path(__file__).parent / "sample_suite" / "test_invariance.py"


def run_sample(pytester, *args):
    pytester.makepyfile(test_invariance=SAMPLE.read_text())
    return pytester.runpytest("-p", "samebits.pytest_plugin", *args)


def test_the_plugin_gates_a_sample_suite(pytester):
    result = run_sample(pytester, "--samebits-report", "reports")
    result.assert_outcomes(passed=2, failed=2)
    out = result.stdout.str()
    for test in ("test_centered_marked", "test_centered_fixture"):
        assert f"FAILED test_invariance.py::{test}" in out
    assert "samebits.check(centered): violated" in out
    assert "batch_invariance: new violation:" in out and "ULP" in out
    reports = pytester.path / "reports"
    stems = {p.name.rsplit(".", 1)[0] for p in reports.iterdir()}
    assert len(stems) == 4, sorted(reports.iterdir())
    for stem in stems:
        for suffix in (".json", ".xml", ".html"):
            assert (reports / (stem + suffix)).exists(), stem + suffix


def test_the_marker_is_registered_and_misuse_is_clear(pytester):
    pytester.makepyfile(test_misuse="""
        import pytest
        import samebits

        @pytest.mark.samebits(axes={"n": [4]})
        def test_no_inputs():
            return abs

        @pytest.mark.samebits(inputs=samebits.Input(shape=(1, 4)))
        def test_returns_no_callable():
            return 3
    """)
    result = pytester.runpytest("-p", "samebits.pytest_plugin", "--strict-markers")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*@pytest.mark.samebits needs inputs=...*",
                                 "*returns the callable to check; it returned a int*"])
