"""A used file's fixtures come with its steps, on a real application (Django's admin, served on
127.0.0.1 by workflows/apps/conftest.py): admin/own-account.reuseit.yaml uses
common/login-as-admin-user.reuseit.yaml, which declares the ``admin_user`` fixture and types its
``{admin_user.username}``; own-account does not repeat the fixture (docs/workflow-format.md, "Reuse").
"""

from __future__ import annotations

import importlib.util
import re

import pytest

from tests.support.example_apps import ADMIN, CONFTEST, admin_password, counts, run

__all__ = ["admin_password"]  # the fixture, for the tests below

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("django") is None, reason="django is not installed (test extra)"),
]

LOGIN = "common/login-as-admin-user.reuseit.yaml"
USING = "own-account.reuseit.yaml"


def test_the_used_login_files_fixture_comes_with_its_steps(pytester: pytest.Pytester, admin_password: str) -> None:
    result = run(pytester, str(ADMIN / USING))
    out = result.stdout.str() + result.stderr.str()
    assert counts(result) == {"passed": 1, "recovered": 0, "healed": 0, "failed": 0, "broken": 0}, out
    result.assert_outcomes(passed=1)
    assert re.search(r"^PASSED \S*own-account\.reuseit\.yaml::own-account\[default\]", out, re.M), out
    assert "not found" not in out and "unknown placeholder" not in out
    assert admin_password not in out


def test_the_fixtures_value_is_what_the_used_steps_type(pytester: pytest.Pytester, admin_password: str) -> None:
    """The same two files beside a conftest whose admin_user names no account: the used login
    steps type that name, and their check (the header welcomes that user) fails the run."""
    pytester.makeconftest(
        CONFTEST
        + '\nimport pytest\n\n@pytest.fixture\ndef admin_user():\n    return {"username": "nobody", "email": "x"}\n'
    )
    for name in (LOGIN, USING):
        target = pytester.path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        # A failing check waits out check_timeout: a short one keeps this test quick.
        target.write_text((ADMIN / name).read_text().replace("check_timeout: 5", "check_timeout: 1"))
    result = run(pytester, USING)
    out = result.stdout.str() + result.stderr.str()
    assert counts(result) == {"passed": 0, "recovered": 0, "healed": 0, "failed": 1, "broken": 0}, out
    result.assert_outcomes(failed=1)
    assert "Welcome, nobody" in out, out
    assert admin_password not in out
