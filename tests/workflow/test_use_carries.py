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


def plain(usefixtures: str, steps: str = "  - action: Nothing\n    do: [{wait: 1}]\n", top: str = "") -> str:
    """A workflow with these usefixtures (``[]`` for none), extra top-level lines and steps."""
    return (
        f'name: A file\ntask: Do it\nstart_url: "{{base_url}}/real/navigate.html"\n'
        f"usefixtures: {usefixtures}\n{top}steps:\n{steps}"
    )


def test_fixtures_are_carried_depth_first_each_named_where_it_was_written(tmp_path: Path) -> None:
    # main uses a (which uses c), then b: main's own, a's, c's (through a), b's; each name once.
    write(tmp_path, "c.reuseit.yaml", plain("[deep, own]"))
    write(tmp_path, "a.reuseit.yaml", plain("[first]", "  - use: c.reuseit.yaml\n"))
    write(tmp_path, "b.reuseit.yaml", plain("[last, deep]"))
    main = write(tmp_path, "main.reuseit.yaml", plain("[own]", "  - use: a.reuseit.yaml\n  - use: b.reuseit.yaml\n"))
    loaded = load(main, display="main.reuseit.yaml")
    assert loaded.workflow.usefixtures == ("own", "first", "deep", "last")
    assert [loaded.fixture_where(n) for n in loaded.workflow.usefixtures] == [
        "main.reuseit.yaml:4",
        "a.reuseit.yaml:4",
        "c.reuseit.yaml:4",
        "b.reuseit.yaml:4",
    ]


def test_the_session_files_fixtures_come_with_it_and_one_session_by_two_names_is_one(tmp_path: Path) -> None:
    # The session workflow runs with the values of the item that needs it first: its fixtures are
    # that item's too, whether the session is the file's own or came with a used file.
    write(tmp_path, "login.reuseit.yaml", plain("[account]"))
    write(tmp_path, "common/steps.reuseit.yaml", plain("[shop]", top="session: {from: ../login.reuseit.yaml}\n"))
    own = write(tmp_path, "own.reuseit.yaml", plain("[]", top="session: {from: login.reuseit.yaml}\n"))
    assert load(own).workflow.usefixtures == ("account",)
    carried = write(tmp_path, "carried.reuseit.yaml", plain("[]", "  - use: common/steps.reuseit.yaml\n"))
    loaded = load(carried)
    assert loaded.workflow.usefixtures == ("shop", "account")
    assert loaded.session is not None and loaded.session.real_path == str((tmp_path / "login.reuseit.yaml").resolve())
    # login.reuseit.yaml here, ../login.reuseit.yaml in common/: the same file, so no conflict.
    both = write(
        tmp_path,
        "both.reuseit.yaml",
        plain("[]", "  - use: common/steps.reuseit.yaml\n", top="session: {from: ./login.reuseit.yaml}\n"),
    )
    assert load(both).workflow.usefixtures == ("shop", "account")


SESSION = """\
name: Log in as the seeded user
task: Type the seeded user's address
start_url: "{base_url}/real/navigate.html"
usefixtures: [seeded_user]
steps:
  - action: Type the seeded user's address
    do:
      - fill: {css: "input[name=sent]", value: "{seeded_user.email}"}
    post:
      - expect: {value: {css: "input[name=sent]", equals: "{seeded_user.email}"}}
"""
NEEDS_SESSION = """\
name: Steps that start logged in
task: Type a word
start_url: "{base_url}/real/navigate.html"
session: {from: ../session.reuseit.yaml}
steps:
  - action: Type a word
    do:
      - fill: {css: "input[name=sent]", value: "word"}
    post:
      - expect: {value: {css: "input[name=sent]", equals: "word"}}
"""


@pytest.mark.browser
@pytest.mark.slow
def test_a_carried_session_runs_with_its_own_files_fixture(pytester: pytest.Pytester, pages_url: str) -> None:
    """main declares neither a fixture nor a session: the session comes with common/steps, and the
    session file's seeded_user (typed and checked there) comes with the session."""
    pytester.makeconftest(CONFTEST)
    write(pytester.path, "session.reuseit.yaml", SESSION)
    write(pytester.path, "common/steps.reuseit.yaml", NEEDS_SESSION)
    write(pytester.path, "main.reuseit.yaml", MAIN.replace("common/login.reuseit.yaml", "common/steps.reuseit.yaml"))
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--base-url", pages_url, "--reuseit-llm", "off", "-rA", "main.reuseit.yaml"
    )
    out = result.stdout.str()
    # Without the session file's fixture the session's {seeded_user.email} cannot be filled, the
    # session does not pass, and main is broken naming it.
    assert "session workflow" not in out, out
    result.assert_outcomes(passed=1)
