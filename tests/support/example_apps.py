"""The example workflows of workflows/apps run as a user runs them, on the real applications that
workflows/apps/conftest.py serves on 127.0.0.1: ``run`` (pytest on real workflow files: no model,
no trace, results in pytester's folder), ``counts`` (the reuseit summary's counts), ``CONFTEST`` (a
conftest that takes the applications' fixtures from workflows/apps, for a test's own copies of the
files), the fixture ``admin_password`` (the Django admin's password, for the site a run starts),
and where the files are (``APPS``, ``ADMIN``).
"""

from __future__ import annotations

import re
import secrets

import pytest

from tests.support.paths import ROOT

APPS = ROOT / "workflows" / "apps"
ADMIN = APPS / "admin"

SUMMARY = re.compile(
    r"^(\d+) passed, (\d+) recovered, (\d+) healed, (\d+) failed, (\d+) broken  \(\d+ workflow runs\)$"
)


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """pytest on real workflow files, as a user runs it: no model, no trace, results in pytester's folder."""
    return pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "--reuseit-llm",
        "off",
        "--reuseit-trace",
        "off",
        "--reuseit-output",
        str(pytester.path / "out"),
        "-rA",
        *args,
    )


def counts(result: pytest.RunResult) -> dict[str, int]:
    """The reuseit summary's counts line as a dict."""
    for line in result.stdout.lines:
        if m := SUMMARY.match(line):
            return dict(zip(("passed", "recovered", "healed", "failed", "broken"), map(int, m.groups()), strict=True))
    raise AssertionError("no reuseit summary line in:\n" + result.stdout.str())


CONFTEST = f"""
import sys

sys.path.insert(0, {str(APPS)!r})
from appservers.fixtures import admin_url, datasette_url, todomvc_url
"""


@pytest.fixture
def admin_password(monkeypatch: pytest.MonkeyPatch) -> str:
    """The superuser's password for the site the subprocess starts (it inherits the environment)."""
    value = "pw-" + secrets.token_hex(8)
    monkeypatch.setenv("ADMIN_PASSWORD", value)
    return value
