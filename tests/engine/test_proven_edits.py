"""What a failure's comparison with its last pass proves, and what it does not (engine/proven.py).

The runs are built as the engine records them (a step, its failed op and the page's ARIA snapshot
then and now as browser/aria.py compares them); no browser is needed to decide. Each "less certain"
case must propose nothing: a wrong edit written into a person's file is worse than none.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from pytest_reuseit import cli
from pytest_reuseit.browser.aria import PageSnapshot, compare
from pytest_reuseit.engine.proven import prove
from pytest_reuseit.engine.result import ActionRecord, RunResult, StepResult, Verdict
from pytest_reuseit.report import records
from pytest_reuseit.workflow.loader import load, parse
from pytest_reuseit.workflow.placeholders import Values

WORKFLOW = """name: Remove an item
task: Remove the {item}
start_url: "{base_url}/cart"
params: {item: Green tea}
steps:
  - action: Remove the {item}
    do:
      - click: {role: button, name: "Remove {item}"}
    post:
      - check: The cart is empty
        expect: {visible: {text: Your cart is empty}}
"""

THEN = """- main:
  - heading "Cart" [level=1]
  - button "Remove Green tea"
  - button "Checkout"
"""


def _run(
    now: str, error: str = "waiting for get_by_role", then: str = THEN, phase: str = "action", workflow: str = WORKFLOW
) -> tuple[RunResult, Any]:
    loaded = parse(workflow, "wf.reuseit.yaml", builtin_names=("base_url",))
    step = StepResult(1, "Remove the Green tea", 6, status="failed", page_aria=now, failed_phase=phase)  # type: ignore[arg-type]
    step.actions.append(ActionRecord("click role='button'[name='Remove Green tea']", "do", ok=False, error=error))
    result = RunResult("Remove an item", "wf.reuseit.yaml", 1, "default", "original", "Remove", {}, status="failed")
    result.steps, result.failed_step, result.failed_phase = [step], 1, phase  # type: ignore[assignment]
    result.changed = {**compare(PageSnapshot(aria=then), PageSnapshot(aria=now)), "since": "2026-11-26T02:00:00Z"}
    return result, loaded


def _values() -> Values:
    return Values(params={"item": "Green tea"}, builtins={"base_url": "http://127.0.0.1:1"})


def test_a_renamed_button_keeps_the_placeholder_its_name_was_written_with() -> None:
    result, loaded = _run(THEN.replace("Remove Green tea", "Delete Green tea"))
    (edit,) = prove(result, loaded, _values())
    assert (edit.kind, edit.step, edit.op_index, edit.line) == ("locator", 1, 0, 8)
    assert edit.old == {"role": "button", "name": "Remove {item}"}
    assert edit.new == {"role": "button", "name": "Delete {item}"}
    assert edit.summary == 'button "Remove Green tea" renamed "Delete Green tea"'
    assert edit.removed == ['- button "Remove Green tea"'] and edit.added == ['- button "Delete Green tea"']
    assert edit.since == "2026-11-26T02:00:00Z" and edit.digest == loaded.source.digest


def test_a_new_name_that_is_part_of_another_gets_exact() -> None:
    then = THEN + '  - button "Remove all"\n'  # on the page then and now: not what changed
    now = then.replace('"Remove Green tea"', '"Remove"')
    result, loaded = _run(now, then=then, workflow=WORKFLOW.replace('"Remove {item}"', "Remove Green tea"))
    (edit,) = prove(result, loaded, _values())
    assert edit.new == {"role": "button", "name": "Remove", "exact": True}


@pytest.mark.parametrize(
    ("now", "why"),
    [
        (THEN.replace('  - button "Remove Green tea"\n', ""), "gone, nothing came"),
        (THEN.replace("Remove Green tea", "Delete") + '  - button "Save for later"\n', "two buttons came"),
        (THEN.replace("Remove Green tea", "Delete") + '- dialog "Sure?":\n  - button "Yes"\n', "a dialog came too"),
        # "Delete Black tea" cannot be written with {item}: right for one variation only.
        (THEN.replace("Remove Green tea", "Delete Black tea"), "the value is not in the new name"),
        (THEN.replace("Remove Green tea", "Remove ***"), "the page shows a secret there"),
    ],
)
def test_what_is_less_certain_than_a_rename_proposes_nothing(now: str, why: str) -> None:
    result, loaded = _run(now)
    assert prove(result, loaded, _values()) == [], why


DIALOG = """- main:
  - heading "Cart" [level=1]
  - button "Remove Green tea"
  - button "Checkout"
- dialog "Cookie preferences":
  - paragraph: We use cookies.
{buttons}"""
COVERED = '<dialog open="" aria-label="Cookie preferences">…</dialog> intercepts pointer events'


@pytest.mark.parametrize(
    ("buttons", "click"),
    [
        (['"Got it"'], {"role": "button", "name": "Got it"}),
        (['"Accept all"', '"Settings"'], {"role": "button", "name": "Accept all"}),
        (['"Manage"', '"Close"', '"Accept"'], {"role": "button", "name": "Close"}),
        # The dialog's button shares its name with the page's: found inside the dialog.
        (
            ['"Checkout"', '"Preferences"'],
            None,
        ),
    ],
)
def test_a_dialog_in_the_way_is_dismissed_by_its_own_button(buttons: list[str], click: dict[str, Any] | None) -> None:
    now = DIALOG.format(buttons="".join(f"  - button {b}\n" for b in buttons))
    result, loaded = _run(now, error=f"Timeout 500ms exceeded. {COVERED}")
    edits = prove(result, loaded, _values())
    if click is None:
        assert edits == []  # neither button says it closes the dialog
        return
    (edit,) = edits
    assert edit.kind == "fallback" and edit.op_index == -1
    assert edit.new == {"do": [{"click": click}], "redo": True, "when": "action"}
    assert edit.cause == f"overlay|dialog|Cookie preferences|{click['name']}"


def test_a_dialog_button_named_like_one_of_the_page_is_found_within_the_dialog() -> None:
    now = DIALOG.format(buttons='  - button "Close"\n') + '- button "Close"\n'
    result, loaded = _run(now, error=COVERED)
    (edit,) = prove(result, loaded, _values())
    assert edit.new["do"] == [
        {
            "click": {
                "role": "button",
                "name": "Close",
                "exact": True,
                "within": {"role": "dialog", "name": "Cookie preferences"},
            }
        }
    ]


def test_a_dialog_the_last_pass_saw_too_or_a_click_not_refused_by_it_proves_no_fallback() -> None:
    now = DIALOG.format(buttons='  - button "Got it"\n')
    seen_then, loaded = _run(now, then=now, error=COVERED)
    assert prove(seen_then, loaded, _values()) == []
    not_covered, loaded = _run(now, error="waiting for get_by_role")
    assert prove(not_covered, loaded, _values()) == []


def test_a_failing_check_is_shown_as_the_possible_regression_never_as_an_edit() -> None:
    result, loaded = _run(THEN.replace('"Checkout"', '"Checkout ($4.50)"'), phase="post")
    result.steps[0].actions[0].ok = True
    result.steps[0].post.append(
        Verdict(
            "The cart is empty",
            "post",
            False,
            "dom",
            expected="text 'Your cart is empty' visible",
            actual="not found",
            line=10,
        )
    )
    (edit,) = prove(result, loaded, _values())
    assert (edit.kind, edit.line, edit.old, edit.new) == ("check", 10, "text 'Your cart is empty' visible", "not found")
    assert edit.summary.startswith('step 1 post check "The cart is empty": it expects')


def test_a_step_of_a_used_file_and_a_run_that_did_not_fail_propose_nothing(tmp_path: Path) -> None:
    (tmp_path / "remove.reuseit.yaml").write_text(WORKFLOW, encoding="utf-8")
    user = WORKFLOW.split("steps:")[0] + "steps:\n  - use: remove.reuseit.yaml\n"
    (tmp_path / "user.reuseit.yaml").write_text(user, encoding="utf-8")
    used = load(tmp_path / "user.reuseit.yaml", builtin_names=("base_url",))
    assert used.origin(0).group  # the step was written in remove.reuseit.yaml
    result, _ = _run(THEN.replace("Remove Green tea", "Delete Green tea"))
    assert prove(result, used, _values()) == []  # that file is edited by hand, where it is written

    passed, loaded = _run(THEN.replace("Remove Green tea", "Delete Green tea"))
    assert len(prove(passed, loaded, _values())) == 1
    passed.status = "passed"
    assert prove(passed, loaded, _values()) == []


def test_a_command_finds_the_history_where_pytest_run_there_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_reuseit import project

    monkeypatch.delenv("REUSEIT_HISTORY", raising=False)
    sub = tmp_path / "app" / "workflows"
    sub.mkdir(parents=True)
    # No ini anywhere: the nearest pyproject.toml, else the folder itself.
    assert project.find(sub).root == sub
    (tmp_path / "app" / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    assert project.history_file(start=sub) == tmp_path / "app" / ".reuseit" / "history.sqlite"
    # An ini section above makes its folder the rootdir (a pyproject.toml without a pytest table is
    # no ini), and its reuseit_history wins over the environment.
    (tmp_path / "tox.ini").write_text("[pytest]\nreuseit_history = nightly/h.sqlite\n", encoding="utf-8")
    monkeypatch.setenv("REUSEIT_HISTORY", "from-env.sqlite")
    assert project.history_file(start=sub) == tmp_path / "nightly" / "h.sqlite"
    (tmp_path / "app" / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    assert project.history_file(start=sub) == tmp_path / "app" / "from-env.sqlite"
    (tmp_path / "app" / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\nreuseit_history = "p.sqlite"\n', encoding="utf-8"
    )
    (tmp_path / "app" / "pytest.ini").unlink()  # pytest.ini comes before pyproject.toml in one folder
    assert project.history_file(start=sub) == tmp_path / "app" / "p.sqlite"
    # A path on the command line is the user's, from where the command runs.
    assert project.history_file("mine.sqlite", start=sub) == Path("mine.sqlite")


def _healing(tmp_path: Path, entries: list[dict[str, Any]]) -> None:
    out = tmp_path / "reuseit-output"
    out.mkdir(exist_ok=True)
    (out / "healing.json").write_text(json.dumps(entries), encoding="utf-8")


def _heal(tmp_path: Path, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(tmp_path), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["heal", *args])
    return code, out.getvalue(), err.getvalue()


def test_heal_leaves_an_op_the_runs_disagree_about_and_says_so(tmp_path: Path) -> None:
    (tmp_path / "wf.reuseit.yaml").write_text(WORKFLOW, encoding="utf-8")
    entries = []
    for new, test in (("Delete Green tea", "wf[a]"), ("Drop Green tea", "wf[b]")):
        result, loaded = _run(THEN.replace("Remove Green tea", new))
        (edit,) = prove(result, loaded, _values())
        entries.append({**records.proven_entry(edit), "test": test})
    _healing(tmp_path, entries)
    code, out, err = _heal(tmp_path, "--apply")
    assert code == 0, out + err
    assert "wf.reuseit.yaml:8: step 1: skipped, the runs disagree (wf[a], wf[b])" in out
    assert (tmp_path / "wf.reuseit.yaml").read_text(encoding="utf-8") == WORKFLOW


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ({"origin": "history", "file": "wf.reuseit.yaml", "kind": "rename", "step": 1}, "unknown kind 'rename'"),
        ({"origin": "history", "file": "wf.reuseit.yaml", "kind": "locator"}, "'step'"),
    ],
)
def test_heal_names_an_entry_that_is_not_an_edit_in_one_line(tmp_path: Path, entry: dict[str, Any], said: str) -> None:
    _healing(tmp_path, [entry])
    code, out, err = _heal(tmp_path)
    assert code == 2 and out == ""
    (line,) = err.splitlines()
    assert line.startswith("reuseit heal: reuseit-output/healing.json: entry 0 is not an edit the history proves")
    assert said in line


def test_an_edit_names_the_file_and_the_step_where_the_step_is_written(tmp_path: Path) -> None:
    """A used file's step is edited in that file, as that file numbers it (every workflow that uses
    it proposes the same edit: one file to change); the workflow's own step after a use step is
    numbered as its file has it, not as the run counted it."""
    literal = WORKFLOW.replace('"Remove {item}"', "Remove Green tea")
    (tmp_path / "remove.reuseit.yaml").write_text(literal, encoding="utf-8")
    head = WORKFLOW.split("steps:")[0] + "steps:\n"
    user = head + "  - use: remove.reuseit.yaml\n  - use: remove.reuseit.yaml\n" + WORKFLOW.split("steps:\n")[1]
    (tmp_path / "user.reuseit.yaml").write_text(user, encoding="utf-8")
    loaded = load(tmp_path / "user.reuseit.yaml", display="user.reuseit.yaml", builtin_names=("base_url",))
    assert len(loaded.workflow.steps) == 3

    result, _ = _run(THEN.replace("Remove Green tea", "Delete Green tea"))
    result.steps[0].index = result.failed_step = 2  # the second use of remove.reuseit.yaml
    (edit,) = prove(result, loaded, _values())
    assert (edit.file, edit.step, edit.op_index) == ("remove.reuseit.yaml", 1, 0)
    assert edit.digest == load(tmp_path / "remove.reuseit.yaml").source.digest
    assert edit.new == {"role": "button", "name": "Delete Green tea"}

    result.steps[0].index = result.failed_step = 3  # the workflow's own step, its file's third
    (edit,) = prove(result, loaded, _values())
    assert (edit.file, edit.step, edit.line) == ("user.reuseit.yaml", 3, 10)
    assert edit.new == {"role": "button", "name": "Delete {item}"}


def test_a_renamed_field_label_gets_its_new_label() -> None:
    workflow = WORKFLOW.replace(
        '      - click: {role: button, name: "Remove {item}"}\n', "      - fill: {label: Email, value: a@b.c}\n"
    )
    then = '- main:\n  - textbox "Email"\n  - button "Save"\n'
    result, loaded = _run(then.replace('"Email"', '"E-mail address"'), then=then, workflow=workflow)
    (edit,) = prove(result, loaded, _values())
    assert (edit.old, edit.new) == ({"label": "Email"}, {"label": "E-mail address"})
    assert edit.summary == 'textbox "Email" renamed "E-mail address"'


@pytest.mark.parametrize(
    ("added", "click"),
    [
        ('  - paragraph: Join our newsletter\n  - button "No thanks"\n  - button "Subscribe"\n', "No thanks"),
        # A lone new button proves nothing by itself: its words must say it closes what covers the page.
        ('  - paragraph: Join our newsletter\n  - button "Subscribe"\n', None),
    ],
)
def test_an_overlay_without_a_dialog_role_is_dismissed_only_by_words_that_close_it(
    added: str, click: str | None
) -> None:
    error = '<p>Join our newsletter</p> from <div id="promo" class="overlay">…</div> subtree intercepts pointer events'
    result, loaded = _run(THEN + added, error=error)
    edits = prove(result, loaded, _values())
    if click is None:
        assert edits == []
        return
    (edit,) = edits
    assert edit.new == {"do": [{"click": {"role": "button", "name": click}}], "redo": True, "when": "action"}
    assert edit.summary == (
        'an overlay (<div id="promo" class="overlay">…</div>), new since the last pass, covers the page: '
        'dismiss it with its "No thanks" button'
    )
