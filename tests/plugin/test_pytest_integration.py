"""usefixtures, marks and Allure labels in workflow files (docs/workflow-format.md, "pytest integration").

Collection-only checks run in-process (no browser starts); runs go through a subprocess with a
real Chromium against the tiny page of tests/support/tiny_site.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.pytest_sessions import output_of, run_sub, write
from tests.support.tiny_site import FAIL_WF, FIXTURE_CONFTEST, FIXTURE_WF, PASS_WF, tiny_site

__all__ = ["tiny_site"]  # the fixture, for the tests below


@pytest.mark.slow
def test_usefixtures_values_are_placeholders_set_up_before_and_torn_down_after(
    pytester: pytest.Pytester, tiny_site: str
) -> None:
    pytester.makeconftest(FIXTURE_CONFTEST)
    write(pytester, "seeded.reuseit.yaml", FIXTURE_WF)
    result = run_sub(pytester, tiny_site)
    result.assert_outcomes(passed=1)
    order = (pytester.path / "order.log").read_text().splitlines()
    assert order == ["seed set up", "run start", "run end passed", "seed torn down"]


@pytest.mark.slow
def test_a_fixture_value_that_breaks_the_check_fails_the_run(pytester: pytest.Pytester, tiny_site: str) -> None:
    """The fixture's value really reaches the page: another value fails the same check."""
    pytester.makeconftest(FIXTURE_CONFTEST.replace('"planted"', '"other"'))
    write(pytester, "seeded.reuseit.yaml", FIXTURE_WF)
    result = run_sub(pytester, tiny_site)
    result.assert_outcomes(failed=1)
    assert "other-hi-" in output_of(result)


@pytest.mark.slow
def test_unknown_fixture_errors_that_file_only_and_the_session_runs(pytester: pytest.Pytester, tiny_site: str) -> None:
    """As pytest errors a Python test asking for an unknown fixture: that file's items error at setup,
    naming the file, the line and the fixtures available; every other file runs."""
    pytester.makeconftest(FIXTURE_CONFTEST)
    write(pytester, "sub/seeded.reuseit.yaml", FIXTURE_WF.replace("[seeded, greeting]", "[seeded, greeting, db_ready]"))
    write(pytester, "fine.reuseit.yaml", FIXTURE_WF)
    collected = pytester.runpytest_inprocess("--collect-only", "-q", "-p", "no:cacheprovider")
    assert collected.ret == pytest.ExitCode.OK, output_of(collected)
    result = run_sub(pytester, tiny_site)
    result.assert_outcomes(passed=1, errors=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    out = output_of(result)
    assert "ERROR at setup of Types what the fixtures seeded [default]" in out
    assert "sub/seeded.reuseit.yaml:4: usefixtures: fixture 'db_ready' not found" in out
    assert re.search(r"available fixtures: .*\bgreeting\b.*\bseeded\b", out), out
    assert "use 'pytest --fixtures sub/seeded.reuseit.yaml' for help on them" in out
    assert "Traceback" not in out and "Interrupted" not in out


def test_fixture_placeholders_are_validated_at_load(pytester: pytest.Pytester) -> None:
    """{seeded.anything} is allowed (keys are known only at run time); a name that is no fixture is not."""
    write(pytester, "typo.reuseit.yaml", FIXTURE_WF.replace("Type {seeded.word} and", "Type {seeded_x} and"))
    pytester.makeconftest(FIXTURE_CONFTEST)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--reuseit-llm", "off")
    result.assert_outcomes(failed=1)
    assert "typo.reuseit.yaml:2: task: unknown placeholder {seeded_x} (did you mean '{seeded}'?)" in output_of(result)


# --------------------------------------------------------------------------- marks

BROKEN_WF = """\
name: Site down
task: open
start_url: "http://127.0.0.1:9/index.html"
settings: {step_timeout: 3}
steps:
  - action: Press Go
    do: [{click: "#go"}]
"""


def _with(text: str, head: str) -> str:
    """Insert top-level keys after the first line (name)."""
    first, rest = text.split("\n", 1)
    return f"{first}\n{head.rstrip()}\n{rest}"


@pytest.mark.slow
def test_marks_give_pytest_statuses(pytester: pytest.Pytester, tiny_site: str) -> None:
    write(pytester, "skipped.reuseit.yaml", _with(PASS_WF, 'marks: [{skip: "frozen until Monday"}]'))
    write(
        pytester,
        "skipif_true.reuseit.yaml",
        _with(PASS_WF, 'marks: [{skipif: {condition: "sys.platform != \'nowhere\'", reason: "always here"}}]'),
    )
    write(
        pytester,
        "skipif_false.reuseit.yaml",
        _with(PASS_WF, "marks: [{skipif: {condition: \"sys.platform == 'nowhere'\", reason: never}}]"),
    )
    # The failing runs need no recovery attempt for their point (the status a mark gives): with
    # retries: 0 each waits its check timeout out once, not twice.
    fail_wf = FAIL_WF.replace("retries: 1,", "retries: 0,")
    assert fail_wf != FAIL_WF
    write(pytester, "known_bug.reuseit.yaml", _with(fail_wf, 'marks: [{xfail: "ticket 123"}]'))
    write(pytester, "fixed_bug.reuseit.yaml", _with(PASS_WF, 'marks: [{xfail: "ticket 124"}]'))
    write(pytester, "strict_bug.reuseit.yaml", _with(PASS_WF, "marks: [{xfail: {reason: ticket 125, strict: true}}]"))
    write(pytester, "down.reuseit.yaml", _with(BROKEN_WF, 'marks: [{xfail: "ticket 126"}]'))
    write(
        pytester,
        "per_variation.reuseit.yaml",
        _with(fail_wf, "variations:\n  - id: plain\n  - id: known\n    marks: [{xfail: coupon flaky}]"),
    )
    write(pytester, "pytest.ini", "[pytest]\nmarkers =\n    slow: slow workflows\n")
    write(pytester, "slow.reuseit.yaml", _with(PASS_WF, "marks: [slow]"))
    result = run_sub(pytester, tiny_site, "-rfsxX")
    result.assert_outcomes(passed=2, skipped=2, xfailed=2, xpassed=1, failed=3)
    out = output_of(result)
    assert "SKIPPED [1] skipped.reuseit.yaml: frozen until Monday" in out
    assert "SKIPPED [1] skipif_true.reuseit.yaml:1: always here" in out
    assert "XFAIL known_bug.reuseit.yaml::known_bug[default] - ticket 123" in out
    assert "XFAIL per_variation.reuseit.yaml::per_variation[known] - coupon flaky" in out
    assert "XPASS fixed_bug.reuseit.yaml::fixed_bug[default] - ticket 124" in out
    assert "[XPASS(strict)] ticket 125" in out
    # A broken run is no verdict on the known bug: it still shows.
    assert "FAILED down.reuseit.yaml::down[default]" in out
    assert "FAILED per_variation.reuseit.yaml::per_variation[plain]" in out
    # -m selects by a mark from the file.
    result = run_sub(pytester, tiny_site, "-m", "slow")
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("marks", "message"),
    [
        ("[{skip: a, xfail: b}]", "marks[0]: a mark is a name or a mapping with one key"),
        ('["not a name"]', "marks[0]: 'not a name' is not a mark name"),
        ("[{skipif: sometimes}]", "marks[0]: skipif needs a mapping"),
        ("[usefixtures]", "use the 'usefixtures' key"),
    ],
)
def test_bad_marks_are_load_errors_with_file_and_line(pytester: pytest.Pytester, marks: str, message: str) -> None:
    write(pytester, "bad.reuseit.yaml", _with(PASS_WF, f"marks: {marks}"))
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--reuseit-llm", "off")
    result.assert_outcomes(failed=1)
    out = output_of(result)
    assert "bad.reuseit.yaml:2: " in out and message in out, out


# --------------------------------------------------------------------------- Allure labels

LABELLED = """\
severity: critical
epic: Shop
feature: Checkout
story: Guest pays by card
"""


def _collected(pytester: pytest.Pytester, *args: str) -> list[str]:
    result = pytester.runpytest_inprocess("--collect-only", "-q", "-p", "no:cacheprovider", *args)
    return sorted(line.split("::")[0] for line in result.stdout.lines if "::" in line)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--allure-severities", "critical"),
        ("--allure-epics", "Shop"),
        ("--allure-features", "Checkout"),
        ("--allure-stories", "Guest pays by card"),
    ],
)
@pytest.mark.slow
def test_allure_options_select_workflows_by_label(pytester: pytest.Pytester, option: str, value: str) -> None:
    write(pytester, "labelled.reuseit.yaml", _with(PASS_WF, LABELLED))
    write(pytester, "plain.reuseit.yaml", PASS_WF)
    assert _collected(pytester) == ["labelled.reuseit.yaml", "plain.reuseit.yaml"]
    assert _collected(pytester, f"{option}={value}") == ["labelled.reuseit.yaml"]
    assert _collected(pytester, f"{option}={value}x" if option != "--allure-severities" else f"{option}=minor") == []


def test_default_severity_is_normal_for_allure_selection(pytester: pytest.Pytester) -> None:
    write(pytester, "labelled.reuseit.yaml", _with(PASS_WF, LABELLED))
    write(pytester, "plain.reuseit.yaml", PASS_WF)
    assert _collected(pytester, "--allure-severities=normal") == ["plain.reuseit.yaml"]


@pytest.mark.slow
def test_allure_result_carries_the_file_labels(pytester: pytest.Pytester, tiny_site: str) -> None:
    write(pytester, "labelled.reuseit.yaml", _with(PASS_WF, LABELLED + "tags: [smoke]\n"))
    result = run_sub(pytester, tiny_site, "--alluredir", "allure-results")
    result.assert_outcomes(passed=1)
    results = [json.loads(p.read_text()) for p in Path(pytester.path / "allure-results").glob("*-result.json")]
    assert len(results) == 1
    labels: dict[str, list[str]] = {}
    for label in results[0]["labels"]:
        labels.setdefault(label["name"], []).append(label["value"])
    assert labels["severity"] == ["critical"]
    assert labels["epic"] == ["Shop"]
    assert labels["feature"] == ["Checkout"]  # the file's own, not the workflow name
    assert labels["story"] == ["Guest pays by card"]
    assert "smoke" in labels["tag"]
