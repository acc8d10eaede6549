"""Example workflows against real third-party applications (workflows/apps), run as a user runs
them: ``pytest`` in a subprocess on the real files, real Chromium, the applications served on
127.0.0.1 by the fixtures of workflows/apps/conftest.py (``usefixtures: [admin_url]``).

- Django's admin (PyPI ``django``): login, add, delete with its confirmation page, bulk delete,
  inline forms; a wrong password is a *failed* run, not a broken one; the password never shows.
- TodoMVC (npm ``todomvc``, installed by ci/install.sh): the scenarios of Playwright's TodoMVC
  example tests; a run that only uses ``{todomvc_url}`` starts no Django.
- Datasette (PyPI ``datasette``): a table's filter form, sorting, a CSV export downloaded and
  read, a query typed into its code editor; a link that shows the file instead of downloading it
  fails saying so.
"""

from __future__ import annotations

import importlib.util
import re

import pytest

from tests.support.example_apps import ADMIN, APPS, CONFTEST, admin_password, counts, run
from tests.support.paths import ROOT

__all__ = ["admin_password"]  # the fixture, for the tests below

TODOMVC = APPS / "todomvc"
DATASETTE = APPS / "datasette"
TIMEOUT = 300

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("django") is None, reason="django is not installed (test extra)"),
]


def todomvc_installed() -> bool:
    return (ROOT / "node_modules" / "todomvc" / "examples" / "vanillajs" / "index.html").is_file()


needs_todomvc = pytest.mark.skipif(not todomvc_installed(), reason="TodoMVC is not installed: bash ci/install.sh")


def started_apps(result: pytest.RunResult) -> dict[str, float]:
    """Which applications the run started, with their start times (the conftest's summary lines)."""
    found = {}
    for line in result.stdout.lines:
        if m := re.match(r"^apps: \{(\w+)\} = http://127\.0\.0\.1:\d+\S* \(started in ([\d.]+) s\)$", line):
            found[m.group(1)] = float(m.group(2))
    return found


@pytest.mark.slow
def test_admin_workflows_pass_and_never_show_the_password(pytester: pytest.Pytester, admin_password: str) -> None:
    # The related-object pop-up (new_page), a confirmation page after a bulk action, an inline
    # formset; all but login start from login's session.
    files = ["login", "add-book", "related-popup", "bulk-delete", "inline-chapters"]
    result = run(pytester, *(str(ADMIN / f"{name}.reuseit.yaml") for name in files), "--reuseit-artifacts", "always")
    out = result.stdout.str() + result.stderr.str()
    assert counts(result) == {"passed": 5, "recovered": 0, "healed": 0, "failed": 0, "broken": 0}, out
    result.assert_outcomes(passed=5)
    for name in files:
        assert re.search(rf"^PASSED \S*{name}\.reuseit\.yaml::{name}", out, re.M), f"{name} did not pass:\n{out}"
    # The admin site was started once, for all runs; no TodoMVC server was needed.
    assert list(started_apps(result)) == ["admin_url"], out
    # The password was typed (by the login workflow); it is in no output and no file the runs left.
    assert admin_password not in out
    kept = [p for p in (pytester.path / "out").rglob("*") if p.is_file()]
    assert kept, "--reuseit-artifacts always keeps each run's files"
    leaked = [str(p) for p in kept if admin_password.encode() in p.read_bytes()]
    assert not leaked, f"the password is written in {leaked}"


@pytest.mark.slow
def test_a_used_files_fixture_and_session_come_with_its_steps(pytester: pytest.Pytester, admin_password: str) -> None:
    # seed-book-publisher.reuseit.yaml declares neither seed_book nor a session: both come with the
    # steps of common/find-seed-book.reuseit.yaml, which types {seed_book.title}.
    result = run(pytester, str(ADMIN / "seed-book-publisher.reuseit.yaml"))
    out = result.stdout.str() + result.stderr.str()
    assert counts(result) == {"passed": 1, "recovered": 0, "healed": 0, "failed": 0, "broken": 0}, out
    result.assert_outcomes(passed=1)


@pytest.mark.slow
def test_wrong_admin_password_fails_login_and_breaks_the_runs_that_need_its_session(
    pytester: pytest.Pytester, admin_password: str
) -> None:
    # login.reuseit.yaml types {password}, whose default is {secret.ADMIN_PASSWORD}: override it.
    # The two files as shipped but for a shorter check timeout (a failing check waits it out,
    # twice with retries: 1; the checks that must hold, the login form's, hold on page load).
    pytester.makeconftest(CONFTEST)
    for name in ("login", "add-book"):
        text = (ADMIN / f"{name}.reuseit.yaml").read_text(encoding="utf-8")
        quick = text.replace("check_timeout: 5}", "check_timeout: 0.5}")
        assert quick != text
        (pytester.path / f"{name}.reuseit.yaml").write_text(quick, encoding="utf-8")
    result = run(
        pytester, "login.reuseit.yaml", "add-book.reuseit.yaml", "--reuseit-param", "password=not-the-password"
    )
    out = result.stdout.str()
    # Login itself: failed (Django said no), not broken.
    assert counts(result) == {"passed": 0, "recovered": 0, "healed": 0, "failed": 1, "broken": 1}, out
    assert re.search(r"^FAILED \S*login\.reuseit\.yaml::login", out, re.M), out
    assert "expected: role='heading'[name='Site administration'] to be visible" in out
    # The run that starts from login's session could not be judged: broken, naming the cause.
    assert re.search(r"^BROKEN \S*add-book\.reuseit\.yaml::add-book\S* .*login\.reuseit\.yaml", out, re.M), out


@pytest.mark.slow
@needs_todomvc
def test_todomvc_workflows_pass_and_start_no_admin_site(pytester: pytest.Pytester) -> None:
    files = ["create-three-todos", "new-todo", "editing", "persistence", "routing", "reload-by-script"]
    result = run(pytester, *(str(TODOMVC / f"{name}.reuseit.yaml") for name in files))
    out = result.stdout.str() + result.stderr.str()
    # reload-by-script: two variations, the page reloaded by location.reload() and by location.href.
    assert counts(result) == {"passed": 7, "recovered": 0, "healed": 0, "failed": 0, "broken": 0}, out
    result.assert_outcomes(passed=7)
    # An application starts only for the tests that ask for its fixture: only TodoMVC here.
    assert list(started_apps(result)) == ["todomvc_url"], out


@pytest.mark.slow
@needs_todomvc
def test_todomvc_expectation_that_does_not_hold_fails_naming_it(pytester: pytest.Pytester) -> None:
    # "Create three todos" with one expected text changed: the app lists what was typed, so the
    # check of the third todo's text fails, and says what it found.
    text = (TODOMVC / "create-three-todos.reuseit.yaml").read_text(encoding="utf-8")
    changed = text.replace('nth: 2, equals: "{item3}"', "nth: 2, equals: walk the dog")
    # The failing check waits the timeout out (twice, with retries: 1); the checks that must hold
    # do as soon as the third Enter has been pressed.
    changed = changed.replace("check_timeout: 5}", "check_timeout: 0.5}")
    assert changed.count("walk the dog") == 1 and "check_timeout: 0.5}" in changed
    pytester.makeconftest(CONFTEST)
    (pytester.path / "three.reuseit.yaml").write_text(changed, encoding="utf-8")
    result = run(pytester, "three.reuseit.yaml")
    out = result.stdout.str()
    assert counts(result) == {"passed": 0, "recovered": 0, "healed": 0, "failed": 1, "broken": 0}, out
    result.assert_outcomes(failed=1)
    assert "to equal 'walk the dog'" in out
    assert "actual:   'book a doctors appointment'" in out


@pytest.mark.slow
def test_missing_todomvc_is_a_setup_error_that_says_how_to_install_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TODOMVC_DIR", str(pytester.path / "no-such-package"))
    result = run(pytester, str(TODOMVC / "new-todo.reuseit.yaml"))
    out = result.stdout.str()
    result.assert_outcomes(errors=1)
    assert "TodoMVC is not installed in" in out and "bash ci/install.sh" in out
    assert "Traceback" not in out and "raise TodoMVCMissing" not in out
    assert started_apps(result) == {}


needs_datasette = pytest.mark.skipif(
    importlib.util.find_spec("datasette") is None, reason="datasette is not installed (test extra)"
)


@pytest.mark.slow
@needs_datasette
def test_datasette_workflows_pass_download_the_export_and_start_only_datasette(pytester: pytest.Pytester) -> None:
    result = run(pytester, str(DATASETTE), "--reuseit-artifacts", "always")
    out = result.stdout.str() + result.stderr.str()
    assert counts(result) == {"passed": 4, "recovered": 0, "healed": 0, "failed": 0, "broken": 0}, out
    result.assert_outcomes(passed=4)
    assert list(started_apps(result)) == ["datasette_url"], out
    # The export was a real download, saved with each run's files and holding the filtered rows.
    saved = sorted((pytester.path / "out").rglob("downloads/1-products.csv"))
    assert len(saved) == 2, out
    lines = sorted(p.read_text(encoding="utf-8").splitlines() for p in saved)
    # Only the filtered rows, cheapest first, as the table showed them.
    assert lines == [
        [
            "id,name,category,price,in_stock",
            "3,City Sneakers,shoes,64.0,0",
            "2,Road Running Shoes,shoes,74.0,1",
            "1,Trail Shoes,shoes,89.0,1",
        ],
        [
            "id,name,category,price,in_stock",
            "5,Packable Rain Jacket,jackets,79.95,1",
            "4,Rain Jacket Pro,jackets,149.0,1",
        ],
    ], out


@pytest.mark.slow
@needs_datasette
def test_datasette_link_that_shows_the_csv_fails_saying_the_site_showed_it(pytester: pytest.Pytester) -> None:
    # The export step as a person might first write it: the table's "CSV" link. Datasette sends
    # that file as text/plain, so the browser shows it and no download starts.
    text = (DATASETTE / "export.reuseit.yaml").read_text(encoding="utf-8")
    changed = text.replace(
        "      - check: {label: download file}\n      - download: {role: button, name: Export CSV}\n"
        "        timeout: 30  # a large table's export may take longer than a click's usual action_timeout\n",
        "      - download: {role: link, name: CSV, exact: true}\n",
    )
    changed = changed.replace("settings: {retries: 1, check_timeout: 5}", "settings: {retries: 0, action_timeout: 2}")
    assert changed.count("{role: link, name: CSV, exact: true}") == 1 and "retries: 0" in changed
    pytester.makeconftest(CONFTEST)
    (pytester.path / "export.reuseit.yaml").write_text(changed, encoding="utf-8")
    result = run(pytester, "export.reuseit.yaml", "-k", "shoes")
    out = result.stdout.str()
    assert counts(result) == {"passed": 0, "recovered": 0, "healed": 0, "failed": 1, "broken": 0}, out
    assert re.search(
        r"no download started within 2s: the click opened http://127\.0\.0\.1:\d+/shop/products\.csv\?\S+ "
        r"as a page \(text/plain\): the site shows the file instead of sending it",
        out,
    ), out
    assert "[action_incomplete]" in out and "went through but the browser received no file" in out
