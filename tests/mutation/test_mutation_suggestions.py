"""Suggestions a user can paste: every value from the clean run, never a check the file already
has, and a request's fault that changed nothing the page shows says so (mutation/report.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_reuseit.browser.aria import aria_line_check
from pytest_reuseit.mutation import report
from pytest_reuseit.mutation.operators import Target
from pytest_reuseit.mutation.outcome import MutantResult
from pytest_reuseit.mutation.plan import Mutant
from pytest_reuseit.mutation.touches import RunTouches, StepState
from tests.support.mutate_command import mutate, report_of
from tests.support.mutation_workflows import GREETER

FILE = """name: F
task: t
start_url: http://127.0.0.1/
steps:
  - action: a
    do: [{click: "#a"}]
    post:
      - expect:
          - count: {css: "#list li", min: 1}
          - text: {css: "#total", contains: total}
          - url: "#/done"
  - action: b
    do: []
    post:
      - expect: {count: {css: "#list li", equals: 3}}
"""


def _result(target: Target, verdict: dict[str, Any] | None = None) -> MutantResult:
    mutant = Mutant("m1", "number_off_by_one", "breaking", "f.reuseit.yaml", "f::f", target)
    return MutantResult(mutant, "survived", {"status": "passed", "applied": True, **(verdict or {})})


def _check(key: str, matcher: str, **detail: Any) -> Target:
    return Target("check", 0, 9, "css='#x'", key=key, detail={"loc": {"css": "#x"}, "matcher": matcher, **detail})


def test_a_loose_check_gets_the_exact_one_with_the_clean_runs_value() -> None:
    count = report.suggestion(_result(_check("count", "min/max", count=4)), None)
    assert count.endswith('  - expect: {count: {css: "#x", equals: 4}}'), count
    assert "..." not in count
    text = report.suggestion(_result(_check("text", "contains", text="Total: 12 items")), None)
    assert text.endswith('  - expect: {text: {css: "#x", equals: "Total: 12 items"}}'), text


def test_never_a_check_the_file_already_has() -> None:
    existing = report.file_checks(FILE)
    assert report._normal("url", {"contains": "#/done"}) in existing  # a bare url is "contains"
    # The check is exact already: no "give it equals" (the survivor read it without the fault).
    exact = report.suggestion(_result(_check("count", "equals", count=1)), None, existing)
    assert "already compares exactly" in exact and "expect:" not in exact, exact
    # The exact count is in the file, at another step: not suggested again.
    target = Target("check", 0, 9, "css='#list li'", key="count")
    target.detail.update({"loc": {"css": "#list li"}, "matcher": "min/max", "count": 3})
    again = report.suggestion(_result(target), None, existing)
    assert "expect:" not in again and "elsewhere" in again, again
    # A step that led to #/done: the file checks that url already, so the step's new text instead.
    run = RunTouches("f::f", "f.reuseit.yaml", "default")
    run.steps = [StepState(0, 5, "a", "http://h/#/", "http://h/#/done", "Todo", "Todo\nAll done")]
    op = Target("op", 0, 6, "css='#a'", key="click")
    moved = report.suggestion(_result(op), run, existing)
    assert "url" not in moved and moved.endswith("- expect: {visible: {text: All done}}"), moved
    assert "url: {contains" in report.suggestion(_result(op), run)  # without it in the file


ARIA_CLEAN = '- heading "Greeter" [level=1]\n- paragraph: 3 products in the catalogue\n- button "Greet"'


def test_a_request_fault_the_page_never_showed_has_no_visible_effect() -> None:
    run = RunTouches("f::f", "f.reuseit.yaml", "default")
    run.steps = [StepState(0, 5, "a", aria=ARIA_CLEAN), StepState(1, 9, "b", aria=ARIA_CLEAN)]
    request = Target("request", 0, 0, "GET /learn.json", key="fetch")
    same = report.suggestion(_result(request, {"aria": {"0": ARIA_CLEAN, "1": ARIA_CLEAN}}), run)
    assert same.startswith("no visible effect:") and "check what GET /learn.json loads, or ignore it" in same
    # What left the page is what to check, by role and name where it has them.
    changed = ARIA_CLEAN.replace("3 products in the catalogue", "loading").replace('heading "Greeter"', 'heading "?"')
    left = report.suggestion(_result(request, {"aria": {"0": changed, "1": changed}}), run)
    assert left.endswith("- expect: {visible: {role: heading, name: Greeter}}"), left
    assert "step 1 (line 5" in left
    # The file checks that heading already: the next thing that left.
    has = report.file_checks(
        FILE.replace('{click: "#a"}]', '{click: "#a"}]\n    pre: [{expect: {visible: {role: heading, name: Greeter}}}]')
    )
    nxt = report.suggestion(_result(request, {"aria": {"0": changed}}), run, has)
    assert nxt.endswith('- expect: {visible: {text: "3 products in the catalogue"}}'), nxt
    # A typed value is never suggested (it may be a secret).
    assert aria_line_check('- textbox "Password": hunter2') is None


@pytest.mark.slow
@pytest.mark.browser
def test_suggestions_of_a_real_run_are_pasteable(tmp_path: Path, pages_url: str) -> None:
    (tmp_path / "greeter.reuseit.yaml").write_text(GREETER, encoding="utf-8")
    proc = mutate(
        tmp_path,
        ".",
        "--operators",
        "number_off_by_one,request_500",
        pytest_args=("--base-url", pages_url, "--reuseit-llm", "off"),
    )
    out = proc.stdout[-3000:]
    mutants = {m["target"]["locator"]: m for m in report_of(tmp_path)["reuseit"]["mutants"]}
    count = mutants["css='#list li'"]
    assert count["outcome"] == "survived", (count, out)
    assert count["suggestion"].endswith('- expect: {count: {css: "#list li", equals: 3}}'), count["suggestion"]
    catalogue = mutants["GET /mutation/items.json"]
    assert catalogue["outcome"] == "survived", (catalogue, out)
    assert catalogue["suggestion"].endswith('- expect: {visible: {text: "3 products in the catalogue"}}'), catalogue
    prefetch = mutants["GET /mutation/help.html"]
    assert prefetch["outcome"] == "survived", (prefetch, out)
    assert prefetch["suggestion"].startswith("no visible effect:"), prefetch["suggestion"]
    # The pages' looks made the suggestions; they are not copied into the report.
    assert all("aria" not in m["run"] for m in mutants.values())
    assert "no visible effect" in proc.stdout
