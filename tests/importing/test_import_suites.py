"""reuseit import on what real tools wrote, against real applications served on 127.0.0.1.

- A Playwright Test suite in TypeScript (tests/suites/todomvc/*.spec.ts, npm ``@playwright/test``
  on the project's Chromium) run with ``--trace on`` against TodoMVC; a pytest-playwright suite
  (tests/suites/todomvc/test_todo.py) run with ``--tracing on``. Their traces import into
  workflows that pass on the same app served on another address, and still pass after a refactor
  that renames ids and a class, where the Playwright suite fails.
- Playwright's recorder (the code generator ``playwright codegen --target jsonl`` writes with),
  driven headless through a TodoMVC flow.
- A Chrome DevTools recording of logging in to Django's admin and adding a publisher with a
  unique name, checked by ``@puppeteer/replay``'s own parser: the password is in no written file
  or line, and the workflow passes twice in a row against the database that keeps the rows.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.support.paths import ROOT
from tests.support.recorder import record
from tests.support.serve import Served, files
from tests.support.todomvc_refactor import make_refactored

SUITE = ROOT / "tests" / "suites" / "todomvc"
TODOMVC = ROOT / "node_modules" / "todomvc"
PLAYWRIGHT_TEST = ROOT / "node_modules" / ".bin" / "playwright"
PYTEST_PLAYWRIGHT = ROOT / ".suites" / "pytest-playwright"
APPS = ROOT / "workflows" / "apps"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not (TODOMVC / "examples").is_dir(), reason="TodoMVC is not installed: bash ci/install.sh"),
]


@pytest.fixture(scope="module")
def todo_sites(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """TodoMVC where the suites ran, the same app on another address, and the refactored one."""
    refactored = make_refactored(TODOMVC, tmp_path_factory.mktemp("refactored") / "todomvc")
    with (
        Served(files(TODOMVC)) as where_it_ran,
        Served(files(TODOMVC)) as elsewhere,
        Served(files(refactored)) as after_refactor,
    ):
        yield {"ran": where_it_ran.url, "elsewhere": elsewhere.url, "refactored": after_refactor.url}


def _reuseit(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_reuseit.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        timeout=600,
    )


def _pytest(folder: Path, base_url: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", str(folder), f"--base-url={base_url}", "-p", "no:cacheprovider", "-q"],
        capture_output=True,
        text=True,
        cwd=folder,
        env={**os.environ, **(env or {})},
        timeout=600,
    )


def _summary(out: str) -> dict[str, int]:
    m = re.search(r"(\d+) passed, (\d+) recovered, (\d+) healed, (\d+) failed, (\d+) broken", out)
    assert m, out
    return dict(zip(("passed", "recovered", "healed", "failed", "broken"), map(int, m.groups()), strict=True))


def _run_playwright_test(base_url: str, results: Path) -> subprocess.CompletedProcess[str]:
    # 20 s per test, not Playwright's 30: a loaded machine does not fail a passing test (it did at
    # 4 s), and the failing test fails by its own 300 ms expect timeout.
    return subprocess.run(
        [str(PLAYWRIGHT_TEST), "test", "--trace", "on", "--timeout", "20000", "--workers", "2"],
        capture_output=True,
        text=True,
        cwd=SUITE,
        env={**os.environ, "TODO_URL": base_url, "RESULTS_DIR": str(results), "CI": "1"},
        timeout=300,
    )


@pytest.mark.slow
@pytest.mark.skipif(not PLAYWRIGHT_TEST.exists(), reason="@playwright/test is not installed: bash ci/install.sh")
def test_a_playwright_test_suite_imports_to_workflows_that_outlive_a_refactor(
    todo_sites: dict[str, str], tmp_path: Path
) -> None:
    ran = _run_playwright_test(todo_sites["ran"], tmp_path / "results")
    assert "6 passed" in ran.stdout and "1 failed" in ran.stdout, ran.stdout[-2000:]
    out = tmp_path / "imported"
    done = _reuseit("import", str(tmp_path / "results"), "-o", str(out), "--base-url", todo_sites["ran"], "--runs", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    skipped = [ln for ln in done.stdout.splitlines() if ln.startswith("skipped ")]
    assert len(skipped) == 1 and "(a failure is no demonstration)" in skipped[0], done.stdout
    assert re.search(r"imported 6 workflows: \d+ steps, 1[0-9] checks from the sources, \d+ derived", done.stdout)
    # The import's cost: --runs runs of each new workflow (a trace holds the DOM: no resolving run).
    assert "; 12 runs of the new workflows against the site; 1 not imported" in done.stdout, done.stdout
    files = sorted(out.glob("*.reuseit.yaml"))
    assert len(files) == 6
    text = "\n".join(f.read_text() for f in files)
    assert "# derived: after this step in 2 of 2 runs" in text
    assert "when: action" in text and "'#new-todo'" in text  # the suite's own selectors, kept as fallbacks
    # A check on the field a step typed into: the step's locator, the test's selector beside it.
    assert "{empty: {role: textbox, name: What needs to be done?, or: '#new-todo'}}" in text, text
    assert "{base_url}/examples/vanillajs/" in text and todo_sites["ran"] not in text

    elsewhere = _pytest(out, todo_sites["elsewhere"])
    assert _summary(elsewhere.stdout) == {"passed": 6, "recovered": 0, "healed": 0, "failed": 0, "broken": 0}

    refactored = _pytest(out, todo_sites["refactored"])
    counts = _summary(refactored.stdout)
    assert counts["failed"] == 0 and counts["broken"] == 0, refactored.stdout[-3000:]
    assert counts["passed"] + counts["recovered"] == 6

    # The suite they came from, on the same refactored app: it fails where ids were renamed.
    original = _run_playwright_test(todo_sites["refactored"], tmp_path / "results-refactored")
    assert original.returncode != 0
    failed = re.search(r"(\d+) failed", original.stdout)
    assert failed and int(failed.group(1)) >= 5, original.stdout[-2000:]


@pytest.mark.slow
@pytest.mark.skipif(not PYTEST_PLAYWRIGHT.is_dir(), reason="pytest-playwright is not installed: bash ci/install.sh")
def test_a_pytest_playwright_suite_imports_to_workflows_that_pass(todo_sites: dict[str, str], tmp_path: Path) -> None:
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "test_todo.py", "-p", "no:reuseit", "--tracing", "on"]
        + ["--output", str(tmp_path / "results"), "-p", "no:cacheprovider", "-q", "--confcutdir=.", "-c", "/dev/null"]
        + ["--rootdir=."],
        capture_output=True,
        text=True,
        cwd=SUITE,
        env={**os.environ, "TODO_URL": todo_sites["ran"], "PYTHONPATH": str(PYTEST_PLAYWRIGHT)},
        timeout=300,
    )
    assert "3 passed" in ran.stdout, ran.stdout + ran.stderr
    out = tmp_path / "imported"
    done = _reuseit("import", str(tmp_path / "results"), "-o", str(out), "--runs", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "imported 3 workflows" in done.stdout and "; 6 runs of the new workflows" in done.stdout, done.stdout
    text = "\n".join(f.read_text() for f in out.glob("*.reuseit.yaml"))
    assert "expect: {url: {matches: '#/completed$'}}" in text
    assert "# derived: after this step in 2 of 2 runs" in text
    for site in ("elsewhere", "refactored"):
        result = _pytest(out, todo_sites[site])
        counts = _summary(result.stdout)
        assert counts["failed"] == counts["broken"] == 0 and counts["passed"] + counts["recovered"] == 3, result.stdout


@pytest.mark.slow
def test_a_codegen_recording_imports_resolving_each_element_on_the_live_page(
    todo_sites: dict[str, str], tmp_path: Path, browser_session: object
) -> None:
    from pytest_reuseit.browser.session import BrowserSession, NavigationFence

    assert isinstance(browser_session, BrowserSession)
    context = browser_session.new_context({}, NavigationFence(("127.0.0.1",)))
    recording = record(context)
    page = context.new_page()
    page.goto(f"{todo_sites['ran']}/examples/vanillajs/")
    page.wait_for_timeout(200)
    page.locator("#new-todo").click()
    page.keyboard.type("water the plants")
    page.keyboard.press("Enter")
    page.wait_for_timeout(200)
    page.locator("#todo-list li .toggle").click()
    page.wait_for_timeout(300)
    context.close()
    jsonl = tmp_path / "add-and-complete.jsonl"
    jsonl.write_text(recording.text())
    names = [json.loads(line)["name"] for line in recording.lines]
    assert names[:2] == ["openPage", "navigate"] and "fill" in names and "press" in names, names

    out = tmp_path / "imported"
    done = _reuseit("import", str(jsonl), "-o", str(out), "--runs", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    # One run to find each element on the live page (a recording holds no DOM), then 2 to derive.
    assert "; 3 runs of the new workflows" in done.stdout, done.stdout
    (workflow,) = out.glob("*.reuseit.yaml")
    text = workflow.read_text()
    assert "{fill: {role: textbox, name: What needs to be done?, value: '{what_needs_to_be_done}'}}" in text, text
    assert "water the plants" in text  # a parameter's value
    result = _pytest(out, todo_sites["refactored"])
    assert _summary(result.stdout)["failed"] == 0, result.stdout


def _recording(admin: str, password: str, stamp: str) -> dict[str, object]:
    def sel(field: str, label: str) -> list[list[str]]:
        return [[f"aria/{label}"], [f"#{field}"], [f'xpath///*[@id="{field}"]'], [f"pierce/#{field}"]]

    return {
        "title": "Add a publisher",
        "steps": [
            {
                "type": "setViewport",
                "width": 1280,
                "height": 800,
                "deviceScaleFactor": 1,
                "isMobile": False,
                "hasTouch": False,
                "isLandscape": False,
            },  # fmt: skip
            {
                "type": "navigate",
                "url": f"{admin}/admin/login/?next=/admin/",
                "assertedEvents": [
                    {
                        "type": "navigation",
                        "url": f"{admin}/admin/login/?next=/admin/",
                        "title": "Log in | Django site admin",
                    }
                ],
            },  # fmt: skip
            {
                "type": "click",
                "target": "main",
                "selectors": sel("id_username", "Username:"),
                "offsetX": 9,
                "offsetY": 9,
            },
            {"type": "change", "value": "admin", "selectors": sel("id_username", "Username:"), "target": "main"},
            {
                "type": "click",
                "target": "main",
                "selectors": sel("id_password", "Password:"),
                "offsetX": 9,
                "offsetY": 9,
            },
            {"type": "change", "value": password, "selectors": sel("id_password", "Password:"), "target": "main"},
            {"type": "keyDown", "target": "main", "key": "Enter"},
            {"type": "keyUp", "target": "main", "key": "Enter"},
            {"type": "navigate", "url": f"{admin}/admin/library/publisher/add/"},
            {"type": "change", "value": f"Acme {stamp}", "selectors": sel("id_name", "Name:"), "target": "main"},
            {
                "type": "click",
                "target": "main",
                "offsetX": 9,
                "offsetY": 9,
                "selectors": [['aria/Save[role="button"]'], ['input[name="_save"]']],
            },  # fmt: skip
            {"type": "waitForElement", "selectors": [['aria/Select publisher to change[role="heading"]']]},
        ],
    }


@pytest.mark.slow
def test_a_chrome_recording_of_a_login_imports_without_its_password_and_passes_twice(tmp_path: Path) -> None:
    sys.path.insert(0, str(APPS))
    try:
        from appservers import server
    finally:
        sys.path.remove(str(APPS))
    password = os.environ.get("ADMIN_PASSWORD") or "imported-pass-7391"
    os.environ.setdefault("ADMIN_PASSWORD", password)  # the admin site reads it when it starts
    admin = server("admin_url").url
    rec = tmp_path / "add-publisher.json"
    rec.write_text(json.dumps(_recording(admin, os.environ["ADMIN_PASSWORD"], "1764201234567")))
    # The recording is one Chrome's recorder could have written: its own parser takes it.
    parsed = subprocess.run(
        [
            "node",
            "-e",
            "require('@puppeteer/replay').parse(JSON.parse(require('fs').readFileSync(process.argv[1])))",
            str(rec),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert parsed.returncode == 0, parsed.stderr

    out = tmp_path / "imported"
    done = _reuseit("import", str(rec), "-o", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 secret (PASSWORD)" in done.stdout and "1 unique value" in done.stdout, done.stdout
    assert password not in done.stdout + done.stderr
    (workflow,) = out.glob("*.reuseit.yaml")
    text = workflow.read_text()
    assert password not in text and "{secret.PASSWORD}" in text
    assert "value: 'Acme {unique}'" in text and "1764201234567" not in text
    assert 'Click "Username:"' not in text and 'Click "Password:"' not in text  # focusing clicks fold into the fill
    env = {"PASSWORD": os.environ["ADMIN_PASSWORD"]}
    for _ in range(2):  # the publisher's name is unique in the database: a fixed one would fail the second time
        result = _pytest(out, admin, env)
        assert _summary(result.stdout)["passed"] == 1, result.stdout[-3000:]
        assert password not in result.stdout


@pytest.mark.slow
def test_a_site_that_is_down_when_deriving_is_one_line_and_nothing_written(tmp_path: Path) -> None:
    rec = tmp_path / "rec.json"
    rec.write_text(json.dumps(_recording("http://127.0.0.1:9", "pw-123456", "1")))
    done = _reuseit("import", str(rec), "-o", str(tmp_path / "out"))
    assert done.returncode == 2
    (line, *rest) = done.stdout.splitlines()
    assert line.startswith(f"cannot import {rec}: the site cannot be reached to derive checks")
    assert "Traceback" not in done.stdout + done.stderr
    assert not (tmp_path / "out").exists()


XVFB = shutil.which("Xvfb")


@pytest.fixture
def display(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A virtual screen (Xvfb) for the recorder's headed browser and window."""
    number = 90 + os.getpid() % 800
    proc = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", "1280x800x24", "-nolisten", "tcp"])
    socket = Path(f"/tmp/.X11-unix/X{number}")
    for _ in range(100):
        if socket.exists():
            break
        time.sleep(0.05)
    monkeypatch.setenv("DISPLAY", f":{number}")
    yield f":{number}"
    proc.terminate()
    proc.wait(timeout=10)


@pytest.mark.slow
@pytest.mark.skipif(XVFB is None, reason="Xvfb is not installed: bash ci/install.sh")
def test_record_opens_playwrights_recorder_and_imports_what_was_clicked(
    todo_sites: dict[str, str],
    tmp_path: Path,
    display: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from pytest_reuseit.browser import recorder
    from pytest_reuseit.cli import main

    def click_through(page: Page) -> None:  # what a person does in the recorder's window
        page.wait_for_timeout(300)
        page.locator("#new-todo").click()
        page.keyboard.type("walk the dog")
        page.keyboard.press("Enter")
        page.wait_for_timeout(500)
        page.close()

    real = recorder.record
    monkeypatch.setattr(recorder, "record", lambda url, output, *a, **k: real(url, output, drive=click_through))
    out = tmp_path / "flows" / "dog.reuseit.yaml"
    kept = tmp_path / "dog.jsonl"
    code = main(
        [
            "record",
            f"{todo_sites['ran']}/examples/vanillajs/",
            "-o",
            str(out),
            "--keep-recording",
            str(kept),
            "--runs",
            "1",
        ]
    )
    assert code == 0, capsys.readouterr()
    first = json.loads(kept.read_text().splitlines()[0])
    assert first["browserName"] == "chromium"  # the recorder's own file: its header, then the actions
    text = out.read_text()
    assert "{fill: {role: textbox, name: What needs to be done?, value: '{what_needs_to_be_done}'}}" in text, text
    assert "walk the dog" in text


@pytest.mark.slow
def test_a_workflow_that_does_not_pass_on_the_site_is_written_and_exits_1(
    todo_sites: dict[str, str], tmp_path: Path
) -> None:
    url = f"{todo_sites['ran']}/examples/vanillajs/"
    rec = {
        "title": "Count the todos",
        "steps": [
            {"type": "navigate", "url": url},
            {"type": "change", "value": "buy milk", "selectors": [["aria/What needs to be done?"], ["#new-todo"]]},
            {"type": "keyDown", "key": "Enter"},
            {"type": "keyUp", "key": "Enter"},
            # What the recording asserted is not what the site shows: 1 todo, not 2.
            {"type": "waitForElement", "selectors": [["#todo-list li"]], "operator": "==", "count": 2},
        ],
    }
    path = tmp_path / "count.json"
    path.write_text(json.dumps(rec))
    done = _reuseit("import", str(path), "-o", str(tmp_path / "out"), "--runs", "1")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "does not pass on the site: run 1 of 1: step 2" in done.stdout and "failed" in done.stdout, done.stdout
    (written,) = (tmp_path / "out").glob("*.reuseit.yaml")
    assert "equals: 2}}" in written.read_text()  # the recording's own check, kept as it said
