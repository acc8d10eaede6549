"""The ``drag`` op on a real page: an HTML5 draggable card dropped on a column of a board
(tests/pages/drag.html moves a card only through dragstart, dragover and drop)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_reuseit.engine.ports import Models
from pytest_reuseit.engine.result import RunResult
from pytest_reuseit.engine.runner import execute
from pytest_reuseit.errors import WorkflowFormatError
from pytest_reuseit.workflow.loader import parse
from pytest_reuseit.workflow.ops import Op, describe_op

SCHEMA = Path(__file__).parent.parent / "pytest_reuseit" / "schema" / "workflow.json"
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


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize(
    ("drag", "words"),
    [
        pytest.param(
            {"selector": "#card-gone", "to": "#done"},
            "drag selector='#card-gone' to selector='#done': timed out: the element to drag (selector='#card-gone')",
            id="source",
        ),
        pytest.param(
            {"text": "Write docs", "to": {"role": "region", "name": "Archive"}},
            "drag text='Write docs' to role='region'[name='Archive']: timed out: "
            "the element to drop it on (role='region'[name='Archive'])",
            id="target",
        ),
    ],
)
def test_drag_without_one_of_its_elements_fails_naming_it(page, fence, pages_url, drag, words) -> None:  # type: ignore[no-untyped-def]
    result = run(page, fence, pages_url, board([{"drag": drag}], action_timeout=0.5))
    # The site did not let the workflow do what it says: failed (not broken), at the action.
    assert (result.status, result.failed_phase) == ("failed", "action"), result.message
    assert result.message.endswith(f"{words} was not found within 0.5s"), result.message
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
