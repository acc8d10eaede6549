"""A used file brings what its steps need: its fixtures and its session (issue: a file that uses
common/login.reuseit.yaml could not run unless it repeated the login file's usefixtures). Its
marks stay its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_reuseit.errors import WorkflowFormatError
from pytest_reuseit.workflow.loader import load

CONFTEST = """
import pytest

@pytest.fixture
def seeded_user():
    return {"email": "ann@example.com"}
"""
LOGIN = """\
name: Type the seeded user's address
task: Type it
start_url: "{base_url}/real/navigate.html"
usefixtures: [seeded_user]
marks: [{skip: "the login file alone is skipped"}]
steps:
  - action: Type the seeded user's address
    do:
      - fill: {css: "input[name=sent]", value: "{seeded_user.email}"}
    post:
      - expect: {value: {css: "input[name=sent]", equals: "{seeded_user.email}"}}
"""
MAIN = """\
name: Uses the login steps
task: Reuse them
start_url: "{base_url}/real/navigate.html"
steps:
  - use: common/login.reuseit.yaml
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.browser
@pytest.mark.slow
def test_a_used_files_fixture_comes_with_its_steps_and_its_marks_do_not(
    pytester: pytest.Pytester, pages_url: str
) -> None:
    pytester.makeconftest(CONFTEST)
    write(pytester.path, "common/login.reuseit.yaml", LOGIN)
    write(pytester.path, "main.reuseit.yaml", MAIN)
    result = pytester.runpytest("-p", "no:cacheprovider", "--base-url", pages_url, "--reuseit-llm", "off", "-rs")
    out = result.stdout.str()
    # main ran the used steps with the fixture's value (the check compares it); the login file's own
    # skip mark skipped that file only.
    result.assert_outcomes(passed=1, skipped=1)
    assert "SKIPPED [1] common/login.reuseit.yaml: the login file alone is skipped" in out


def test_fixtures_are_carried_in_order_once(tmp_path: Path) -> None:
    write(
        tmp_path,
        "a.reuseit.yaml",
        LOGIN.replace("[seeded_user]", "[seeded_user, shop]").replace(
            'marks: [{skip: "the login file alone is skipped"}]\n', ""
        ),
    )
    write(
        tmp_path,
        "b.reuseit.yaml",
        LOGIN.replace("[seeded_user]", "[db, seeded_user]").replace(
            'marks: [{skip: "the login file alone is skipped"}]\n', ""
        ),
    )
    main = MAIN.replace(
        "steps:\n  - use: common/login.reuseit.yaml\n",
        "usefixtures: [own]\nsteps:\n  - use: a.reuseit.yaml\n  - use: b.reuseit.yaml\n",
    )
    loaded = load(write(tmp_path, "main.reuseit.yaml", main))
    assert loaded.workflow.usefixtures == ("own", "seeded_user", "shop", "db")


def test_two_different_sessions_are_a_load_error_naming_both(tmp_path: Path) -> None:
    for name in ("login1", "login2"):
        write(
            tmp_path, f"{name}.reuseit.yaml", LOGIN.replace('marks: [{skip: "the login file alone is skipped"}]\n', "")
        )
    write(
        tmp_path,
        "used.reuseit.yaml",
        MAIN.replace(
            "steps:\n  - use: common/login.reuseit.yaml\n",
            "session: {from: login2.reuseit.yaml}\nsteps:\n  - action: Nothing\n    do: [{wait: 1}]\n",
        ),
    )
    main = MAIN.replace(
        "steps:\n  - use: common/login.reuseit.yaml\n",
        "session: {from: login1.reuseit.yaml}\nsteps:\n  - use: used.reuseit.yaml\n",
    )
    with pytest.raises(WorkflowFormatError) as err:
        load(write(tmp_path, "main.reuseit.yaml", main))
    (problem,) = err.value.problems
    assert (
        "main.reuseit.yaml:6: steps[0].use:" in problem
        and "login2.reuseit.yaml" in problem
        and "login1.reuseit.yaml" in problem
    )
