"""A proven rename edits every use of the element (engine/uses.py), and ``--verify``'s verdicts
(cli/heal_verify.py), without a browser: the runs are built as the engine records them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_reuseit.browser.aria import PageSnapshot, compare
from pytest_reuseit.cli.heal_verify import _verdict
from pytest_reuseit.engine.proven import prove
from pytest_reuseit.engine.result import ActionRecord, RunResult, StepResult, Verdict
from pytest_reuseit.report import since_last
from pytest_reuseit.workflow.loader import LoadedWorkflow, parse
from pytest_reuseit.workflow.placeholders import Values
from tests.support.morning import heal_from

HEADER = """name: Cart
task: Put things in the cart
start_url: "{base_url}/cart"
steps:
"""
WORKFLOW = (
    HEADER
    + """  - action: Add two
    do:
      - click: {role: button, name: Add to cart}
      - click: {name: "Add to cart", role: button}  # the same, written in another order
      - click: {role: button, name: Add to cart, nth: 1}  # refined: maybe another element
      - click: 'role=button[name="Add to cart"]'  # a selector string
    fallback:
      - do: [{press: {role: button, name: Add to cart, key: Enter}}]
    post:
      - check: The button can be pressed again
        expect: {enabled: {role: button, name: Add to cart}}
  - action: Add a third
    do:
      - click: {role: button, name: Add to cart}
    post:
      - expect: {not: {visible: {role: button, name: Add to cart}}}
"""
)

THEN = '- main:\n  - heading "Cart" [level=1]\n  - button "Add to cart"\n'
NOW = THEN.replace("Add to cart", "Add to basket")


def _failed_first_click(workflow: str = WORKFLOW) -> tuple[RunResult, LoadedWorkflow]:
    loaded = parse(workflow, "wf.reuseit.yaml", builtin_names=("base_url",))
    step = StepResult(1, "Add two", 5, status="failed", page_aria=NOW, failed_phase="action")
    step.actions.append(ActionRecord("click role='button'[name='Add to cart']", "do", ok=False, error="waiting"))
    result = RunResult("Cart", "wf.reuseit.yaml", 1, "default", "original", "Put", {}, status="failed")
    result.steps, result.failed_step, result.failed_phase = [step], 1, "action"
    result.changed = {**compare(PageSnapshot(aria=THEN), PageSnapshot(aria=NOW)), "since": "2026-11-26T02:00:00Z"}
    return result, loaded


def _values(base_url: str = "http://127.0.0.1:8000") -> Values:
    return Values(params={}, builtins={"base_url": base_url})


def test_a_rename_edits_every_op_that_names_the_element_the_same_way_and_lists_its_checks() -> None:
    result, loaded = _failed_first_click()
    edits = prove(result, loaded, _values())
    ops = [(e.step, e.fallback, e.op_index, e.line, e.reached) for e in edits if e.kind == "locator"]
    assert ops == [
        (1, -1, 0, 7, True),  # the op the run stopped at
        (1, -1, 1, 8, False),  # the second click of the step: the same keys in another order
        (1, 0, 0, 12, False),  # the fallback's op (its own key stays)
        (2, -1, 0, 18, False),  # a later step
    ]  # not the refined locator (nth) nor the selector string: not written the same way
    assert {e.cause for e in edits} == {"renamed|button|Add to cart|Add to basket"}
    assert all(e.new == {"role": "button", "name": "Add to basket"} for e in edits if e.kind == "locator")
    checks = [(e.step, e.line, e.summary, e.reached) for e in edits if e.kind == "check"]
    assert checks == [
        (1, 14, 'step 1 post check "The button can be pressed again" names the button "Add to cart", renamed "Add to basket"', False),
        (2, 20, 'step 2 post check "post check 1" names the button "Add to cart", renamed "Add to basket"', False),
    ]  # fmt: skip
    assert {e.base_url for e in edits} == {"http://127.0.0.1:8000"}


def test_heal_writes_every_place_in_one_hunk_of_the_cause_and_never_a_check(tmp_path: Path) -> None:
    (tmp_path / "wf.reuseit.yaml").write_text(WORKFLOW, encoding="utf-8")
    result, loaded = _failed_first_click()
    code, said, err = heal_from(tmp_path, prove(result, loaded, _values()), "wf.reuseit.yaml::wf[default]", "--apply")
    assert code == 0, said + err
    assert said.count("cause: ") == 1 and said.count("--- a/wf.reuseit.yaml") == 1
    assert 'cause: button "Add to cart" renamed "Add to basket" (1 file, 4 places; proven by the history)' in said
    assert "wf.reuseit.yaml: step 1 fallback 1 op 1 (line 12): press {role: button, name: Add to cart} -> " in said
    assert (
        'possible regression, not applied: wf.reuseit.yaml:14: step 1 post check "The button can be pressed again" '
        'names the button "Add to cart", renamed "Add to basket"'
    ) in said
    text = (tmp_path / "wf.reuseit.yaml").read_text(encoding="utf-8")
    assert text == (
        WORKFLOW.replace(
            "- click: {role: button, name: Add to cart}\n", "- click: {role: button, name: Add to basket}\n"
        )
        .replace('{name: "Add to cart", role: button}  #', '{name: "Add to basket", role: button} #')
        .replace("{press: {role: button, name: Add to cart,", "{press: {role: button, name: Add to basket,")
    )
    assert text.count("Add to cart") == 4  # the refined locator, the selector string, and both checks
    assert "expect: {enabled: {role: button, name: Add to cart}}" in text
    assert "expect: {not: {visible: {role: button, name: Add to cart}}}" in text


MODIFIED = (
    HEADER
    + """  - action: Add two
    do:
      - click: {role: button, name: Add to cart}
        timeout: 12
      - new_page: true  # a modifier written before the op's name
        click: {role: button, name: Add to cart}
      - click: {role: button, name: Add to cart}
        button: right
"""
)


def test_ops_with_modifiers_are_uses_and_heal_writes_them(tmp_path: Path) -> None:
    """An op with its modifiers (as import writes a recording's timeout, pop-up or mouse button),
    whatever order the file writes them in, is found and edited like a bare one."""
    result, loaded = _failed_first_click(MODIFIED)
    edits = prove(result, loaded, _values())
    assert [(e.op_index, e.line, e.reached) for e in edits if e.kind == "locator"] == [
        (0, 7, True),
        (1, 9, False),
        (2, 11, False),
    ]
    (tmp_path / "wf.reuseit.yaml").write_text(MODIFIED, encoding="utf-8")
    code, said, err = heal_from(tmp_path, edits, "wf.reuseit.yaml::wf[default]", "--apply")
    assert code == 0, said + err
    assert (tmp_path / "wf.reuseit.yaml").read_text(encoding="utf-8") == MODIFIED.replace(
        "Add to cart", "Add to basket"
    )


def test_the_recorded_site_never_carries_a_user_or_password() -> None:
    result, loaded = _failed_first_click()
    (edit, *_) = prove(result, loaded, _values("https://ada:pa55word-x@shop.example.test:8443/base"))
    assert edit.base_url == "https://shop.example.test:8443/base"


def _run(status: str, steps: list[tuple[str, str]], **kw: Any) -> RunResult:
    result = RunResult("Cart", "wf.reuseit.yaml", 1, "default", "original", "Put", {}, status=status, **kw)  # type: ignore[arg-type]
    result.steps = [StepResult(n, action, 5, status=s) for n, (action, s) in enumerate(steps, 1)]  # type: ignore[arg-type]
    return result


@pytest.mark.parametrize(
    ("result", "edited", "verdict"),
    [
        (_run("passed", [("Add two", "passed"), ("Add a third", "passed")]), True, (True, "")),
        # A fallback got around a step that holds no edited op: the edit itself worked.
        (_run("recovered", [("Add two", "passed"), ("Add a third", "recovered")]), False, (True, "")),
        (
            _run("recovered", [("Add two", "recovered"), ("Add a third", "passed")]),
            True,
            (False, "step 1 'Add two' passed only by a fallback (recovered)"),
        ),
        (
            _run("passed", [("Add two", "passed")], not_judged=[Verdict("The cart looks right", "post", None, "none")]),
            True,
            (False, "1 check(s) in words not judged (no model configured)"),
        ),
        (
            _run("broken", [], message="placeholder: {base_url} is not set\nmore", failed_phase="start"),
            True,
            (False, "broken: placeholder: {base_url} is not set"),
        ),
    ],
)
def test_only_a_run_that_passes_without_help_where_it_was_edited_confirms(
    result: RunResult, edited: bool, verdict: tuple[bool, str]
) -> None:
    loaded = parse(WORKFLOW, "wf.reuseit.yaml", builtin_names=("base_url",))
    assert _verdict(result, loaded, lambda file: edited) == verdict


def test_verify_names_a_workflow_it_cannot_run_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "wf.reuseit.yaml").write_text(WORKFLOW, encoding="utf-8")
    result, loaded = _failed_first_click()
    code, said, _ = heal_from(
        tmp_path,
        prove(result, loaded, _values()),
        "gone.reuseit.yaml::gone[default]",
        *("--from", "healing.json", "--apply", "--verify"),
        source="healing.json",
    )
    assert code == 1
    assert (
        "  not confirmed: gone.reuseit.yaml [default]: gone.reuseit.yaml does not exist (any more): run it where the "
        "night's runs ran" in said
    )
    assert 'not written: button "Add to cart" renamed "Add to basket": gone.reuseit.yaml [default]: ' in said
    assert "wrote " not in said
    assert (tmp_path / "wf.reuseit.yaml").read_text(encoding="utf-8") == WORKFLOW


def test_the_morning_counts_each_place_once_however_many_runs_proved_it() -> None:
    """Two workflows that use one shared file both prove its op's rename: one place, not two."""
    shared = {"origin": "history", "kind": "locator", "file": "shared.reuseit.yaml", "step": 1, "op_index": 0,
              "summary": 'button "Add to cart" renamed "Add to basket"'}  # fmt: skip
    second_click = {**shared, "op_index": 1, "reached": False}
    in_fallback = {**shared, "fallback": 0, "reached": False}
    check = {**shared, "kind": "check", "op_index": -1, "reached": False}
    runs = [{"proven": [shared, second_click]}, {"proven": [shared, in_fallback, check]}]
    heal = since_last.heal_of(runs, "reuseit heal --apply")
    assert heal is not None and (heal["files"], heal["places"]) == (1, 3)
    assert since_last.heal_extent(heal) == "3 places in 1 file"
    assert since_last.heal_extent({"files": 2}) == "2 places in 2 files"  # a report written before places
