"""Every option is kebab-case, as pytest's are: --reuseit-agent-marks. The spelling of earlier
releases (--reuseit-agent_marks) still works, with a deprecation warning naming the new one."""

from __future__ import annotations

import pytest

CONFTEST = """
from pytest_reuseit.plugin import RUNTIME

def pytest_sessionstart(session):
    print("AGENT_MARKS", session.config.stash[RUNTIME].settings.agent_marks)
"""


@pytest.mark.parametrize(
    ("args", "expected", "warned"),
    [
        (["--reuseit-agent-marks"], True, False),
        (["--reuseit-agent_marks"], True, True),
        ([], False, False),
    ],
)
def test_agent_marks_flag_and_its_old_spelling(
    pytester: pytest.Pytester, args: list[str], expected: bool, warned: bool
) -> None:
    pytester.makeconftest(CONFTEST)
    result = pytester.runpytest("-p", "no:cacheprovider", "-s", *args)
    out = result.stdout.str()
    assert f"AGENT_MARKS {expected}" in out
    deprecation = "--reuseit-agent_marks is deprecated: write --reuseit-agent-marks"
    assert (deprecation in out) is warned, out


def test_help_lists_only_the_kebab_case_spelling(pytester: pytest.Pytester) -> None:
    out = pytester.runpytest("--help").stdout.str()
    assert "--reuseit-agent-marks" in out and "--reuseit-agent_marks" not in out
    flags = [word.split("=")[0].rstrip(",") for word in out.split() if word.startswith("--reuseit-")]
    assert flags and all("_" not in flag for flag in flags), [f for f in flags if "_" in f]


def test_agent_marks_from_the_ini_and_the_environment(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ini key and the environment variable were already spelled like the others' and stay."""
    pytester.makeconftest(CONFTEST)
    pytester.makeini("[pytest]\nreuseit_agent_marks = true\n")
    assert "AGENT_MARKS True" in pytester.runpytest("-p", "no:cacheprovider", "-s").stdout.str()
    pytester.makeini("[pytest]\n")
    monkeypatch.setenv("REUSEIT_AGENT_MARKS", "1")
    assert "AGENT_MARKS True" in pytester.runpytest("-p", "no:cacheprovider", "-s").stdout.str()
