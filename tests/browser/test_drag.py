"""The ``drag`` op on a real page: an HTML5 draggable card dropped on a column of a board
(tests/pages/drag.html moves a card only through dragstart, dragover and drop)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from playwright.sync_api import Page, expect

from pytest_reuseit.browser.aria import PageSnapshot, compare
from pytest_reuseit.browser.session import BrowserSession, NavigationFence
from pytest_reuseit.engine.ports import Models
from pytest_reuseit.engine.proven import prove
from pytest_reuseit.engine.result import ActionRecord, RunResult, StepResult
from pytest_reuseit.engine.runner import execute
from pytest_reuseit.errors import WorkflowFormatError
from pytest_reuseit.importing.compose import op_for, words
from pytest_reuseit.importing.playwright import calls
from pytest_reuseit.workflow.loader import LoadedWorkflow, load, parse
from pytest_reuseit.workflow.ops import Op, describe_op
from pytest_reuseit.workflow.placeholders import Values
from tests.support.cli_process import import_one
from tests.support.morning import heal_from
from tests.support.mutate_command import mutate, report_of
from tests.support.paths import ROOT

SCHEMA = ROOT / "pytest_reuseit" / "schema" / "workflow.json"
# Where each card is, column by column, and the drops the page saw.
BOARD = (
    "({todo: [...document.querySelectorAll('#todo li')].map(e => e.id),"
    " done: [...document.querySelectorAll('#done li')].map(e => e.id), drops: window.drops})"
)
UNMOVED = {"todo": ["card-docs", "card-tests"], "done": [], "drops": []}


def board(do: list[Any], *, post: list[Any] | None = None, action_timeout: float = 5, **top: Any) -> str:
    step: dict[str, Any] = {"action": "move a card", "do": do}
    if post:
        step["post"] = post
    doc = {
        "name": "board",
        "task": "move a card",
        "start_url": "{base_url}/drag.html",
        "settings": {"retries": 0, "check_timeout": 5, "action_timeout": action_timeout},
        **top,
        "steps": [step],
    }
    return yaml.safe_dump(doc, sort_keys=False)


def run(page, fence, pages_url: str, text: str) -> RunResult:  # type: ignore[no-untyped-def]
    return execute(
        page,
        parse(text, "board.reuseit.yaml"),
        builtins={"base_url": pages_url},
        models=Models(),
        blocked=fence.blocked,
    )


@pytest.mark.browser
@pytest.mark.slow
def test_drag_drops_a_card_on_another_column(page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    # The source by its text, the target by role and a name from a placeholder (filled as any LOC's).
    text = board(
        [{"drag": {"text": "Write docs", "to": {"role": "region", "name": "{column}"}}}],
        post=[{"expect": {"text": {"role": "status", "equals": "Write docs moved to Done"}}}],
        params={"column": "Done"},
    )
    result = run(page, fence, pages_url, text)
    assert result.status == "passed", result.message
    assert page.evaluate(BOARD) == {"todo": ["card-tests"], "done": ["card-docs"], "drops": ["card-docs->done"]}
    assert [a.description for a in result.steps[0].actions] == ["drag text='Write docs' to role='region'[name='Done']"]


UNIQUE = "; make it unique (add nth, exact or within)"


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize(
    ("drag", "words"),
    [
        pytest.param(
            {"selector": "#card-gone", "to": "#done"},
            "drag selector='#card-gone' to selector='#done': timed out: the element to drag (selector='#card-gone') "
            "was not found within 0.5s",
            id="no-source",
        ),
        pytest.param(
            {"text": "Write docs", "to": {"role": "region", "name": "Archive"}},
            "drag text='Write docs' to role='region'[name='Archive']: timed out: "
            "the element to drop it on (role='region'[name='Archive']) was not found within 0.5s",
            id="no-target",
        ),
        pytest.param(
            {"css": "li", "to": "#done"},
            "drag css='li' to selector='#done': the element to drag (css='li') matches 2 elements" + UNIQUE,
            id="two-sources",
        ),
        pytest.param(
            {"text": "Write docs", "to": "section"},
            "drag text='Write docs' to selector='section': the element to drop it on (selector='section') "
            "matches 2 elements" + UNIQUE,
            id="two-targets",
        ),
    ],
)
def test_drag_without_one_of_its_elements_fails_naming_it(page, fence, pages_url, drag, words) -> None:  # type: ignore[no-untyped-def]
    result = run(page, fence, pages_url, board([{"drag": drag}], action_timeout=0.5))
    # The site did not let the workflow do what it says: failed (not broken), at the action.
    assert (result.status, result.failed_phase) == ("failed", "action"), result.message
    assert result.message == f"action failed: {words}"
    assert page.evaluate(BOARD) == UNMOVED


def test_a_workflow_with_drag_validates_and_the_schema_takes_it() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    text = board([{"drag": {"test_id": "card", "nth": 1, "to": "#done"}, "timeout": 2}])
    loaded = parse(text, "board.reuseit.yaml")
    op = loaded.workflow.steps[0].do[0]  # type: ignore[index]
    assert describe_op(op) == "drag test_id='card'[nth=1] to selector='#done'"
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(yaml.safe_load(text))) == []


@pytest.mark.parametrize(
    ("drag", "problem"),
    [
        pytest.param("#card-docs", "drag: a drag needs the element dropped on too", id="no-target"),
        pytest.param({"css": "#card-docs"}, "drag.to: ", id="mapping-no-target"),
        pytest.param(
            {"css": "#card-docs", "to": {"rol": "region"}}, "unknown key 'rol' (did you mean 'role'?)", id="typo"
        ),
    ],
)
def test_a_drag_without_its_two_elements_does_not_load(drag: Any, problem: str) -> None:
    with pytest.raises(WorkflowFormatError) as info:
        parse(board([{"drag": drag}]), "board.reuseit.yaml")
    assert problem in str(info.value)
    with pytest.raises(Exception):  # noqa: B017, PT011 - the same model refuses it directly
        Op.model_validate({"drag": drag})


# --------------------------------------------------------------------------- import


def test_a_traced_drag_from_middle_to_middle_is_a_drag_step_and_one_with_a_point_is_said() -> None:
    plain = {"source": "#card-docs", "target": "#done", "strict": True, "timeout": 0}
    step = calls.other_step("Frame", "dragAndDrop", plain)
    assert step is not None and step.kind == "drag"
    assert step.target is not None and step.target.selectors == ["#card-docs"]
    assert step.to is not None and step.to.selectors == ["#done"]
    at_a_point = {**plain, "targetPosition": {"x": 5, "y": 8}}
    assert calls.other_step("Frame", "dragAndDrop", at_a_point) is None
    assert calls.not_imported("Frame", "dragAndDrop", at_a_point) == (
        'locator(#card-docs).dragAndDrop({"target": "#done", "targetPosition": {"x": 5, "y": 8}}) '
        "(a drag from or to a point in an element: the format drags from the middle of one to the middle of the other)"
    )
    written = op_for(step, 'internal:text="Write docs"i', "")
    assert written == {"drag": {"text": "Write docs", "to": "#done"}}
    assert words(step, 'internal:text="Write docs"i', "") == 'Drag "Write docs" to the element #done'


@pytest.mark.browser
@pytest.mark.slow
def test_a_python_playwright_trace_s_drag_to_imports_as_a_drag_that_runs_again(
    browser_session: BrowserSession, pages_url: str, tmp_path: Path, page: Page, fence: NavigationFence
) -> None:
    context = browser_session.new_context({}, NavigationFence(("127.0.0.1",)))
    context.tracing.start(snapshots=True, title="move a card")
    traced = context.new_page()
    traced.goto(f"{pages_url}/drag.html")
    traced.locator("#card-docs").drag_to(traced.locator("#done"))
    expect(traced.locator("#log")).to_have_text("Write docs moved to Done")
    traced.drag_and_drop("#card-tests", "#done", target_position={"x": 5, "y": 5})
    context.tracing.stop(path=tmp_path / "trace.zip")
    context.close()
    done, written = import_one(tmp_path / "trace.zip", tmp_path / "out", "--no-derive")
    assert done.returncode == 0 and written.is_file(), done.stdout + done.stderr
    text = written.read_text()
    # Both elements by the locators a person writes, read from the page the trace kept.
    assert '- action: Drag "Write docs" to the "Done" region' in text, text
    assert "- {drag: {text: Write docs, to: {role: region, name: Done}}}" in text, text
    assert "# not imported: locator(#card-tests).dragAndDrop(" in text, text
    assert "1 steps, 1 checks from the source, 1 not imported (comments)" in done.stdout, done.stdout
    result = execute(page, load(written), builtins={"base_url": pages_url}, blocked=fence.blocked)
    assert result.status == "passed", result.message
    assert page.evaluate(BOARD) == {"todo": ["card-tests"], "done": ["card-docs"], "drops": ["card-docs->done"]}


# --------------------------------------------------------------------------- a renamed drop target

BOARD_FILE = """name: Board
task: Move cards
start_url: "{base_url}/board"
steps:
  - action: Finish the docs
    do:
      - drag: {text: Write docs, to: {role: region, name: Done}}
    post:
      - expect: {visible: {role: region, name: Done}}
  - action: Finish the tests
    do:
      - drag: {text: Write tests, to: {role: region, name: Done}}
      - click: {role: region, name: Done}
      - drag: {text: Write tests, to: 'role=region[name="Done"]'}  # a selector string
"""
THEN = '- main:\n  - region "To do"\n  - region "Done"\n'
NOW = THEN.replace('"Done"', '"Completed"')


def _failed_drop() -> tuple[RunResult, LoadedWorkflow]:
    loaded = parse(BOARD_FILE, "board.reuseit.yaml", builtin_names=("base_url",))
    step = StepResult(1, "Finish the docs", 5, status="failed", page_aria=NOW, failed_phase="action")
    error = "timed out: the element to drop it on (role='region'[name='Done']) was not found within 5s"
    step.actions.append(
        ActionRecord("drag text='Write docs' to role='region'[name='Done']", "do", ok=False, error=error)
    )
    result = RunResult("Board", "board.reuseit.yaml", 1, "default", "original", "Move", {}, status="failed")
    result.steps, result.failed_step, result.failed_phase = [step], 1, "action"
    result.changed = {**compare(PageSnapshot(aria=THEN), PageSnapshot(aria=NOW)), "since": "2026-11-26T02:00:00Z"}
    return result, loaded


def test_a_renamed_drop_target_is_renamed_in_every_drag_and_op_that_names_it(tmp_path: Path) -> None:
    result, loaded = _failed_drop()
    edits = prove(result, loaded, Values(params={}, builtins={"base_url": "http://127.0.0.1:8000"}))
    places = [(e.step, e.op_index, e.part, e.reached) for e in edits if e.kind == "locator"]
    # The drag the run stopped at (its drop target), the next step's drag and the click on the
    # column; not the drag whose target is a selector string (not written the same way).
    assert places == [(1, 0, "to", True), (2, 0, "to", False), (2, 1, "", False)]
    assert {e.summary for e in edits if e.kind == "locator"} == {'region "Done" renamed "Completed"'}
    (tmp_path / "board.reuseit.yaml").write_text(BOARD_FILE, encoding="utf-8")
    code, said, err = heal_from(tmp_path, edits, "board.reuseit.yaml::board[default]", "--apply")
    assert code == 0, said + err
    assert "step 1 op 1 to (line 7): drag {role: region, name: Done} -> {role: region, name: Completed}" in said, said
    text = (tmp_path / "board.reuseit.yaml").read_text(encoding="utf-8")
    assert text == (
        BOARD_FILE.replace("to: {role: region, name: Done}}", "to: {role: region, name: Completed}}").replace(
            "- click: {role: region, name: Done}", "- click: {role: region, name: Completed}"
        )
    )
    assert text.count("Done") == 2  # the check (never edited) and the selector string


# --------------------------------------------------------------------------- mutation

_MOVE = """name: {name}
task: Move a card
start_url: "{{base_url}}/drag.html"
settings: {{retries: 0, check_timeout: 1, action_timeout: 1}}
steps:
  - action: Finish the docs
    do:
      - drag: {{text: Write docs, to: {{role: region, name: Done}}}}
"""


@pytest.mark.browser
@pytest.mark.slow
def test_a_drag_that_does_nothing_is_caught_by_a_check_of_where_the_card_is(tmp_path: Path, pages_url: str) -> None:
    checked = _MOVE.format(name="Checked") + '    post:\n      - expect: {text: {css: "#done", contains: Write docs}}\n'
    (tmp_path / "checked.reuseit.yaml").write_text(checked, encoding="utf-8")
    (tmp_path / "unchecked.reuseit.yaml").write_text(_MOVE.format(name="Unchecked"), encoding="utf-8")
    proc = mutate(tmp_path, ".", "--operators", "drag_ignored", pytest_args=("--base-url", pages_url))
    mutants = report_of(tmp_path)["reuseit"]["mutants"]
    outcomes = {m["target"]["file"].rsplit("/", 1)[-1]: m["outcome"] for m in mutants}
    # The same card dragged by both: one mutant, killed by the workflow that checks the column.
    assert outcomes == {"checked.reuseit.yaml": "killed"}, (mutants, proc.stdout[-2000:])
    (mutant,) = mutants
    assert mutant["operator"] == "drag_ignored" and mutant["target"]["locator"] == "text='Write docs'"
    assert mutant["run"]["failed_phase"] == "post", mutant["run"]
