"""`use: FILE` steps: another workflow's steps with their guards, in place (load-time expansion).

Loading is checked in-process; runs go through a subprocess with a real Chromium against the
tiny page of tests/support/tiny_site.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_reuseit.errors import WorkflowFormatError
from pytest_reuseit.workflow.loader import load
from tests.support.pytest_sessions import output_of, run_sub
from tests.support.tiny_site import tiny_site

__all__ = ["tiny_site"]  # the fixture, for the tests below

TYPE_WORD = """\
name: Type a word
task: type {word}
start_url: "{base_url}/index.html"
params: {word: default-word, expected: "{word}"}
steps:
  - action: Type {word}
    do:
      - fill: {css: "#q", value: "{word}"}
  - action: Press Go and read {expected}
    do:
      - click: "#go"
    post:
      - expect: {text: {css: "#out", equals: "{expected}"}}
"""

MAIN = """\
name: Uses the typing steps
task: type twice
start_url: "{base_url}/index.html"
params: {first: alpha}
settings: {retries: 0, check_timeout: 2}
steps:
  - action: Prepare
    do: [{click: "#prep"}]
  - use: common/type.reuseit.yaml
    params: {word: "{first}"}
  - use: common/type.reuseit.yaml
    params: {word: beta, expected: %(expected)s}
  - action: Check the last word is still shown
    do: [{wait: 1}]
    post:
      - expect: {text: {css: "#out", equals: beta}}
"""


def _files(root: Path, expected: str = "beta") -> Path:
    (root / "common").mkdir(parents=True, exist_ok=True)
    (root / "common" / "type.reuseit.yaml").write_text(TYPE_WORD, encoding="utf-8")
    main = root / "main.reuseit.yaml"
    main.write_text(MAIN % {"expected": expected}, encoding="utf-8")
    return main


def test_use_expands_in_place_with_params_and_origins(tmp_path: Path) -> None:
    loaded = load(_files(tmp_path), display="main.reuseit.yaml")
    steps = loaded.workflow.steps
    assert [s.action for s in steps] == [
        "Prepare",
        "Type {first}",
        "Press Go and read {first}",
        "Type beta",
        "Press Go and read beta",
        "Check the last word is still shown",
    ]
    assert all(s.use is None for s in steps)
    origins = [loaded.origin(i) for i in range(len(steps))]
    assert [o.group for o in origins] == ["", *["common/type.reuseit.yaml"] * 4, ""]
    assert origins[1].file == "common/type.reuseit.yaml"
    # Lines point into the file each step was written in.
    assert [loaded.source.line("steps", i) for i in range(len(steps))] == [7, 6, 9, 6, 9, 13]
    assert [o.group_id for o in origins] == ["", "1", "1", "2", "2", ""]
    assert loaded.source.line("steps", 2, "post", 0) == 13  # type.reuseit.yaml's post check


def test_use_cycle_is_a_load_error_naming_the_chain(tmp_path: Path) -> None:
    main = _files(tmp_path)
    (tmp_path / "common" / "type.reuseit.yaml").write_text(
        TYPE_WORD + "  - use: ../main.reuseit.yaml\n", encoding="utf-8"
    )
    with pytest.raises(WorkflowFormatError) as err:
        load(main, display="main.reuseit.yaml")
    text = str(err.value)
    assert text.startswith("main.reuseit.yaml:9: steps[1].use: common/type.reuseit.yaml (used from here) is invalid:")
    assert "a cycle: main.reuseit.yaml → common/type.reuseit.yaml → main.reuseit.yaml" in text


def test_use_of_a_missing_file_is_a_load_error(tmp_path: Path) -> None:
    main = _files(tmp_path)
    main.write_text(MAIN.replace("common/type.reuseit.yaml", "common/typo.reuseit.yaml") % {"expected": "b"})
    with pytest.raises(WorkflowFormatError) as err:
        load(main, display="main.reuseit.yaml")
    assert str(err.value).startswith(
        "main.reuseit.yaml:9: steps[1].use: file 'common/typo.reuseit.yaml' does not exist "
        "(main.reuseit.yaml → common/typo.reuseit.yaml; paths are relative to the workflow file)"
    )


@pytest.mark.parametrize(
    ("step", "message"),
    [
        ("  - use: common/type.reuseit.yaml\n    post: [ok]\n", "a 'use' step takes only 'params'"),
        ("  - action: a\n    params: {x: y}\n", "'params' on a step is only for 'use' steps"),
    ],
)
def test_use_step_shape_errors(tmp_path: Path, step: str, message: str) -> None:
    main = _files(tmp_path)
    main.write_text(MAIN % {"expected": "b"} + step)
    with pytest.raises(WorkflowFormatError, match=message):
        load(main, display="main.reuseit.yaml")


@pytest.mark.slow
def test_used_steps_run_with_their_guards(pytester: pytest.Pytester, tiny_site: str) -> None:
    _files(pytester.path)
    result = run_sub(pytester, tiny_site, "main.reuseit.yaml")
    result.assert_outcomes(passed=1)


@pytest.mark.slow
def test_a_failing_used_step_is_shown_inside_its_group(pytester: pytest.Pytester, tiny_site: str) -> None:
    """The used file's own post check fails (wrong expected param): the text and Allure show the group."""
    _files(pytester.path, expected="gamma")
    result = run_sub(pytester, tiny_site, "main.reuseit.yaml", "--alluredir", "allure-results")
    result.assert_outcomes(failed=1)
    out = output_of(result)
    assert "  in use: common/type.reuseit.yaml (steps 4-5 of this run so far)" in out
    assert "    step 5 of 6 (common/type.reuseit.yaml:9): Press Go and read gamma" in out
    assert "check: js" not in out and "(line 13)" in out  # the check's line in type.reuseit.yaml
    [result_file] = list((pytester.path / "allure-results").glob("*-result.json"))
    steps = json.loads(result_file.read_text())["steps"]
    names = [s["name"] for s in steps]
    assert names[0].startswith("open http://127.0.0.1:")  # opening start_url comes first, timed like a step
    assert names[1].startswith("step 1") or "Prepare" in names[1]
    groups = [s for s in steps if s["name"] == "use: common/type.reuseit.yaml"]
    assert len(groups) == 2
    assert groups[0]["status"] == "passed" and groups[1]["status"] == "failed"
    assert [len(g["steps"]) for g in groups] == [2, 2]
    assert "Press Go and read gamma" in json.dumps(groups[1]["steps"])
