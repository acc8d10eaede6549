"""A workflow file asking for a fixture nobody defines errors as pytest errors a Python test asking
for one: its own items error at setup ("fixture 'x' not found", the file and line of the
``usefixtures`` that asked for it, the fixtures available), and the rest of the session runs
(docs/workflow-format.md, "pytest integration"). It was a collection error that interrupted the
session: in a suite of 10 files, 0 ran.
"""

from __future__ import annotations

import re

import pytest

from tests.support.pytest_sessions import output_of, run_sub, summary_line, write
from tests.support.tiny_site import FIXTURE_CONFTEST, FIXTURE_WF, tiny_site

__all__ = ["tiny_site"]  # the fixture, for the tests below

# usefixtures stays on line 4; two variations, so two items that both error.
MISSING_WF = FIXTURE_WF.replace("[seeded, greeting]", "[seeded, greeting, db_ready]").replace(
    "settings:", "variations: [{id: one}, {id: two}]\nsettings:"
)


def suite(pytester: pytest.Pytester) -> None:
    """Three files, the middle one (in collection order) asking for an unknown fixture."""
    pytester.makeconftest(FIXTURE_CONFTEST)
    write(pytester, "a_first.reuseit.yaml", FIXTURE_WF)
    write(pytester, "b_missing.reuseit.yaml", MISSING_WF)
    write(pytester, "c_last.reuseit.yaml", FIXTURE_WF.replace("name: Types", "name: Also types"))


@pytest.mark.browser
@pytest.mark.slow
def test_the_files_items_error_at_setup_and_the_others_pass(pytester: pytest.Pytester, tiny_site: str) -> None:
    suite(pytester)
    result = run_sub(pytester, tiny_site, "-rA")
    out = output_of(result)
    # Errors (not failures), both variations of that file; the files before and after it ran.
    result.assert_outcomes(passed=2, errors=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED, out
    assert "Interrupted" not in out and "error during collection" not in out and "Traceback" not in out
    assert re.search(r"=+ 2 passed, (\d+ warnings?, )?2 errors in ", out), out
    for variation in ("one", "two"):
        assert f"ERROR at setup of Types what the fixtures seeded [{variation}]" in out
        assert f"ERROR b_missing.reuseit.yaml::b_missing[{variation}]" in out
    assert "PASSED a_first.reuseit.yaml::a_first[default]" in out
    assert "PASSED c_last.reuseit.yaml::c_last[default]" in out
    # The message names the file, the line of usefixtures and what is available, as pytest does.
    # Once per item in the ERRORS section (the short summary repeats it, cut to the terminal's
    # width unless CI is set, when pytest prints it whole).
    errors = out.split("= ERRORS =", 1)[1].split("short test summary info", 1)[0]
    assert errors.count("b_missing.reuseit.yaml:4: usefixtures: fixture 'db_ready' not found") == 2, out
    available = re.search(r"available fixtures: (.*)", out)
    assert available, out
    names = available.group(1).split(", ")
    assert {"seeded", "greeting", "reuseit_run", "tmp_path"} <= set(names), names
    assert "db_ready" not in names
    assert "use 'pytest --fixtures b_missing.reuseit.yaml' for help on them" in out
    # Only real runs are counted as workflow runs.
    assert summary_line(result).startswith("2 passed, 0 recovered, 0 healed, 0 failed, 0 broken  (2 workflow runs)")


@pytest.mark.browser
@pytest.mark.slow
def test_exitfirst_stops_at_that_error_and_collect_only_lists_every_item(
    pytester: pytest.Pytester, tiny_site: str
) -> None:
    suite(pytester)
    collected = run_sub(pytester, tiny_site, "--collect-only", "-q")
    assert collected.ret == pytest.ExitCode.OK, output_of(collected)
    assert "4 tests collected" in collected.stdout.str()
    assert "b_missing.reuseit.yaml::b_missing[two]" in collected.stdout.str()

    result = run_sub(pytester, tiny_site, "-x")
    out = output_of(result)
    # As -x does for a Python test's missing fixture: the first error stops the session, which
    # is an ordinary failed run (1), not an interrupted one (2).
    result.assert_outcomes(passed=1, errors=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED, out
    assert "stopping after 1 failures" in out
    assert "b_missing.reuseit.yaml:4: usefixtures: fixture 'db_ready' not found" in out


USED = """\
name: Steps that need a database
task: Type {seeded.word}
start_url: "{base_url}/index.html"
usefixtures: [seeded, no_such_db]
steps:
  - action: Type {seeded.word}
    do:
      - fill: {css: "#q", value: "{seeded.word}"}
"""
LOGIN = """\
name: A login that needs an account
task: Log in
start_url: "{base_url}/index.html"
usefixtures: [no_such_account]
steps:
  - action: Press Go
    do: [{click: "#go"}]
"""
MAIN = """\
name: Uses the steps
task: Reuse them
start_url: "{base_url}/index.html"
session: {from: login.reuseit.yaml}
steps:
  - use: common/used.reuseit.yaml
"""


def test_a_carried_unknown_fixture_is_named_where_it_was_written(pytester: pytest.Pytester, tiny_site: str) -> None:
    """Fixtures come with a used file and with the session file: an unknown one is named in that
    file, at its usefixtures line, not in the file that uses it (which has no usefixtures)."""
    pytester.makeconftest(FIXTURE_CONFTEST)
    write(pytester, "common/used.reuseit.yaml", USED)
    write(pytester, "login.reuseit.yaml", LOGIN)
    write(pytester, "main.reuseit.yaml", MAIN)
    result = run_sub(pytester, tiny_site, "main.reuseit.yaml")
    out = output_of(result)
    result.assert_outcomes(errors=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED, out
    assert (
        "common/used.reuseit.yaml:4: usefixtures: fixture 'no_such_db' not found (not defined in a conftest.py "
        "or plugin visible from main.reuseit.yaml, which uses that file)"
    ) in out
    assert "login.reuseit.yaml:4: usefixtures: fixture 'no_such_account' not found" in out
    assert "main.reuseit.yaml:1: usefixtures" not in out
