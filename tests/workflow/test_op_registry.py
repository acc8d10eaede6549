"""The op registry: an op added at run time validates, runs from a ``do`` list, appears in the
JSON Schema, and an unknown op is still refused with a did-you-mean."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_reuseit.browser.ops import OpContext
from pytest_reuseit.cli import main
from pytest_reuseit.engine.context import RunOptions
from pytest_reuseit.engine.ports import Models
from pytest_reuseit.engine.runner import execute
from pytest_reuseit.errors import WorkflowFormatError
from pytest_reuseit.workflow import ops as registry
from pytest_reuseit.workflow.loader import parse
from pytest_reuseit.workflow.locators import Locator
from pytest_reuseit.workflow.ops import Op
from pytest_reuseit.workflow.schema import workflow_schema
from pytest_reuseit.workflow.strict import Strict
from tests.support.paths import ROOT


class StampArgs(Strict):
    """The argument of the test op: what to write and into which element."""

    into_id: str
    text: str


def _stamp(ctx: OpContext, arg: StampArgs) -> None:
    ctx.page.evaluate(
        "([id, text]) => { document.getElementById(id).textContent = text }", [arg.into_id, ctx.render(arg.text)]
    )


@pytest.fixture
def stamp_op() -> Iterator[registry.OpSpec]:
    entry = registry.register("stamp", StampArgs, "Write a text into the element with the given id.", _stamp)
    yield entry
    registry.unregister("stamp")


WF = """
name: stamp
task: stamp the heading
start_url: "{base_url}/other.html"
settings: {retries: 0, action_timeout: 5, check_timeout: 5}
steps:
  - action: stamp the heading
    do:
      - stamp: {into_id: heading, text: "Stamped {who}"}
    post:
      - expect: {text: {css: "#heading", equals: "Stamped by a plugin"}}
params: {who: by a plugin}
"""


def test_registered_op_validates_runs_and_is_described(stamp_op, page, fence, pages_url) -> None:  # type: ignore[no-untyped-def]
    loaded = parse(WF, "stamp.reuseit.yaml")
    op = loaded.workflow.steps[0].do[0]  # type: ignore[index]
    assert op.kind == "stamp" and op.arg == StampArgs(into_id="heading", text="Stamped {who}")
    result = execute(
        page,
        loaded,
        builtins={"base_url": pages_url},
        options=RunOptions(screenshots="off"),
        models=Models(),
        blocked=fence.blocked,
    )
    assert result.status == "passed", result.message
    assert page.inner_text("#heading") == "Stamped by a plugin"
    assert result.steps[0].actions[0].description == "stamp into_id='heading', text='Stamped by a plugin'"
    # The published schema and the registry's listing know it.
    op_schema = workflow_schema()["$defs"]["Op"]
    obj = next(s for s in op_schema["anyOf"] if s.get("type") == "object")
    assert obj["properties"]["stamp"]["description"] == "Write a text into the element with the given id."
    assert {"required": ["stamp"]} in obj["oneOf"]
    assert "stamp" in registry.names()


def test_registered_op_bad_argument_is_a_load_error_with_its_path(stamp_op) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(WorkflowFormatError) as err:
        parse(WF.replace("into_id: heading, ", ""), "stamp.reuseit.yaml")
    assert err.value.problems == ["stamp.reuseit.yaml:9: steps[0].do[0].stamp.into_id: required key is missing"]


def test_unknown_op_is_refused_with_did_you_mean_before_and_after_unregistering(stamp_op, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(WorkflowFormatError) as err:
        parse(WF.replace("- stamp:", "- stmap:"), "stamp.reuseit.yaml")
    assert err.value.problems == [
        "stamp.reuseit.yaml:9: steps[0].do[0].stmap: unknown key 'stmap' (did you mean 'stamp'?)"
    ]
    registry.unregister("stamp")
    with pytest.raises(WorkflowFormatError) as err:
        parse(WF, "stamp.reuseit.yaml")
    assert "steps[0].do[0].stamp: unknown key 'stamp'" in err.value.problems[0]
    registry.register("stamp", StampArgs, "Write a text into the element with the given id.", _stamp)


def test_reuseit_validate_accepts_a_registered_op_and_rejects_a_typo(stamp_op, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    good = tmp_path / "good.reuseit.yaml"
    good.write_text(WF, encoding="utf-8")
    bad = tmp_path / "bad.reuseit.yaml"
    bad.write_text(WF.replace("- stamp:", "- stamps:"), encoding="utf-8")
    assert main(["validate", str(good)]) == 0
    assert main(["validate", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "unknown key 'stamps' (did you mean 'stamp'?)" in out


@pytest.mark.parametrize(
    ("name", "args", "words"),
    [
        ("click", str, "already registered"),
        ("Bad-Name", str, "lower_snake_case"),
        ("new_page", bool, "modifier"),
        ("timeout", float, "modifier"),
        ("quiet", str, "needs a description"),
    ],
)
def test_register_refuses_bad_entries(name: str, args: Any, words: str) -> None:
    description = "" if name == "quiet" else "An op."
    with pytest.raises(ValueError, match=words):
        registry.register(name, args, description)
    assert name == "click" or name not in registry.names()


def test_bare_word_ops_and_modifiers_validate() -> None:
    assert Op.model_validate("back").kind == "back"
    op = Op.model_validate({"click": {"role": "link", "name": "Add"}, "new_page": True, "dialog": "accept"})
    assert (op.kind, op.arg, op.new_page, op.dialog) == ("click", Locator(role="link", name="Add"), True, "accept")
    with pytest.raises(ValueError, match="'into' goes with download, not with 'click'"):
        Op.model_validate({"click": "#a", "into": "x"})
    with pytest.raises(ValueError, match="did you mean 'reload'"):
        Op.model_validate("relaod")


def test_every_builtin_op_has_a_handler_and_a_description() -> None:
    import pytest_reuseit.browser.ops  # noqa: F401 - attaches the handlers

    missing = [n for n in registry.names() if registry.spec(n).handler is None]
    assert missing == []
    assert all(registry.spec(n).description.endswith(".") for n in registry.names())


def test_docs_op_table_lists_every_op() -> None:
    docs = (ROOT / "docs" / "workflow-format.md").read_text(encoding="utf-8")
    section = docs.split("## Deterministic ops", 1)[1].split("\n## ", 1)[0]
    absent = [n for n in registry.names() if f"`{n}`" not in section]
    assert absent == [], textwrap.shorten(f"ops missing from the docs' op table: {absent}", 200)
