"""Values a site accepts once, found by the import's own runs.

A small site on 127.0.0.1 keeps the names it was given and refuses one it already has ("already
exists"). A Playwright Test suite (tests/suites/once) names its records as teams do: one
``reading-${Date.now() % 100000}`` (5 digits: no clock's 13, so digits alone do not say it is
made new each run), one a plain word. Imported against a fresh copy of the site, each workflow
passes its first run and fails the second; the import tries the typed value as ``{unique}``, which
passes every run, and writes it so; the written workflows then pass 3 runs of 3.
"""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest

from tests.support.paths import ROOT
from tests.support.serve import Served

SUITE = ROOT / "tests" / "suites" / "once"
PLAYWRIGHT_TEST = ROOT / "node_modules" / ".bin" / "playwright"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not PLAYWRIGHT_TEST.exists(), reason="@playwright/test is not installed: bash ci/install.sh"),
]

_FORM = """<!doctype html><title>Stations</title>
<h1>Stations</h1>
<form method="post" action="/add"><label for="name">Name</label> <input id="name" name="name">
<button type="submit">Add</button></form>
<p id="message">{message}</p><ul>{items}</ul>"""


_ADMIN_ADD = """<!doctype html><title>Add publisher | Django site admin</title>
<h1>Add publisher</h1>{errors}
<form method="post" action="/admin/library/publisher/add/"><label for="id_name">Name:</label>
<input id="id_name" name="name" value="{value}"> <input type="submit" name="_save" value="Save"></form>"""
_ADMIN_LIST = """<!doctype html><title>Select publisher to change | Django site admin</title>
<ul class="messagelist"><li>The publisher “{name}” was added successfully.</li></ul>
<h1>Select publisher to change</h1><ul>{items}</ul>"""


def site(added: str = "Added {name}") -> Callable[..., Any]:
    """A handler with its own list of names: a second ``add`` of one is refused. ``/admin/...``:
    a Django-admin-like add form that refuses a publisher's name it has ("already exists") and
    otherwise goes to the list, saying it was added."""
    names: list[str] = []

    class Site(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
            pass

        def _page(self, message: str, status: int = 200) -> None:
            items = "".join(f"<li>{html.escape(n)}</li>" for n in names)
            body = _FORM.format(message=html.escape(message), items=items).encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _send(self, body: str) -> None:
            data = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802 - stdlib name
            if self.path.startswith("/admin/library/publisher/add/"):
                self._send(_ADMIN_ADD.format(errors="", value=""))
                return
            self._page("")

        def do_POST(self) -> None:  # noqa: N802 - stdlib name
            length = int(self.headers.get("Content-Length") or 0)
            name = (parse_qs(self.rfile.read(length).decode()).get("name") or [""])[0].strip()
            if self.path.startswith("/admin/"):
                if name in names:
                    errors = '<ul class="errorlist"><li>Publisher with this Name already exists.</li></ul>'
                    self._send(_ADMIN_ADD.format(errors=errors, value=html.escape(name)))
                    return
                names.append(name)
                items = "".join(f"<li>{html.escape(n)}</li>" for n in names)
                self._send(_ADMIN_LIST.format(name=html.escape(name), items=items))
                return
            if name in names:
                self._page(f"{name} already exists")
                return
            names.append(name)
            self._page(added.format(name=name))

    return Site


def _reuseit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_reuseit.cli", *args], capture_output=True, text=True, cwd=ROOT, timeout=600
    )


def _pytest(folder: Path, base_url: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", str(folder), f"--base-url={base_url}", "-p", "no:cacheprovider", "-q"],
        capture_output=True,
        text=True,
        cwd=folder,
        timeout=600,
    )
    return done.stdout


@pytest.mark.slow
def test_a_name_the_site_accepts_once_becomes_unique_by_the_runs(tmp_path: Path) -> None:
    with Served(site()) as where_it_ran, Served(site()) as elsewhere:
        ran = subprocess.run(
            [
                str(PLAYWRIGHT_TEST),
                "test",
                "--trace",
                "on",
                "--timeout",
                "20000",  # a loaded machine does not fail a passing test (it did at 8 s, at a load of 20)
                "--workers",
                "2",
                "-g",
                "reading|station",
            ],
            capture_output=True,
            text=True,
            cwd=SUITE,
            env={**os.environ, "SITE_URL": where_it_ran.url, "RESULTS_DIR": str(tmp_path / "results"), "CI": "1"},
            timeout=300,
        )
        assert "2 passed" in ran.stdout, ran.stdout[-2000:]
        out = tmp_path / "imported"
        # The import's runs go to a copy of the site that has not seen the names yet.
        done = _reuseit("import", str(tmp_path / "results"), "-o", str(out), "--base-url", elsewhere.url)
        assert done.returncode == 0, done.stdout + done.stderr
        # Each: 3 runs (the first passed, the second failed on "already exists"), then 3 with {unique}.
        assert "; 12 runs of the new workflows against the site" in done.stdout, done.stdout
        assert "2 unique values (2 accepted once by the site, found by the runs)" in done.stdout, done.stdout
        reading = (out / "adds_a_reading.reuseit.yaml").read_text()
        number = re.search(r"'reading-(\d+)' accepted once by the site: written 'reading-\{unique\}'", done.stdout)
        assert number, done.stdout
        # What the runs found, in the import's own words: the second run refused the same name.
        found = re.search(r"written 'reading-\{unique\}' \((run 1 passed.*? of \d+ passed)\)", done.stdout)
        assert found and found.group(1).startswith("run 1 passed, run 2 of 3: step "), done.stdout
        assert found.group(1).endswith("; then 3 of 3 passed"), done.stdout
        # The site's refusal in the import's words (on a loaded machine one of the two second runs
        # may time out waiting for the answer page instead, and says that).
        assert "already exists" in done.stdout, done.stdout
        assert f"reading-{number.group(1)}" not in reading
        assert "value: 'reading-{unique}'" in reading and "equals: 'Added reading-{unique}'" in reading, reading
        station = (out / "adds_a_station.reuseit.yaml").read_text()
        assert "value: 'barometer {unique}'" in station and "equals: 'Added barometer {unique}'" in station, station
        assert "'barometer' accepted once by the site: written 'barometer {unique}'" in done.stdout

        for _ in range(3):  # the site keeps every name it was given: a fixed one would fail from the second run
            result = _pytest(out, elsewhere.url)
            assert "2 passed, 0 recovered, 0 healed, 0 failed, 0 broken" in result, result[-3000:]


def _trace(site_url: str, tests: str, results: Path) -> None:
    ran = subprocess.run(
        [str(PLAYWRIGHT_TEST), "test", "--trace", "on", "--timeout", "20000", "-g", tests],
        capture_output=True,
        text=True,
        cwd=SUITE,
        env={**os.environ, "SITE_URL": site_url, "RESULTS_DIR": str(results), "CI": "1"},
        timeout=300,
    )
    assert "1 passed" in ran.stdout, ran.stdout[-2000:]


@pytest.mark.slow
def test_a_name_the_traced_run_itself_made_becomes_unique_by_the_runs(tmp_path: Path) -> None:
    """The traced test made its publisher on the site the import runs against: the import's first
    run is refused at the save ("already exists"). The name is tried as {unique}, which passes
    every run; the written workflow passes twice in a row on that same site."""
    with Served(site()) as where_it_ran:
        _trace(where_it_ran.url, "publisher", tmp_path / "results")
        out = tmp_path / "imported"
        done = _reuseit("import", str(tmp_path / "results"), "-o", str(out), "--base-url", where_it_ran.url)
        assert done.returncode == 0, done.stdout + done.stderr
        # 3 runs with the name as it was (each refused), then 3 with {unique}.
        assert "; 6 runs of the new workflows against the site" in done.stdout, done.stdout
        assert "1 unique value (1 accepted once by the site, found by the runs)" in done.stdout, done.stdout
        found = re.search(r"'Acme (\d+)' accepted once by the site: written 'Acme \{unique\}' \((.*)\)", done.stdout)
        assert found, done.stdout
        assert found.group(2).startswith("run 1 of 3: step "), done.stdout
        assert found.group(2).endswith(", the source's own run had used it; then 3 of 3 passed"), done.stdout
        text = (out / "adds_a_publisher.reuseit.yaml").read_text()
        assert f"Acme {found.group(1)}" not in text and "value: 'Acme {unique}'" in text, text
        for _ in range(2):
            result = _pytest(out, where_it_ran.url)
            assert "1 passed, 0 recovered, 0 healed, 0 failed, 0 broken" in result, result[-3000:]


@pytest.mark.slow
def test_a_value_that_fails_for_another_reason_is_not_made_unique(tmp_path: Path) -> None:
    """Every run fails, with the typed value made unique too (the site says "Saved", the test
    expected "Added"): no value is accepted once here; the workflow is written as the source
    says, and the import exits 1. Trying the value cost one run, not --runs."""
    with Served(site()) as where_it_ran, Served(site(added="Saved {name}")) as reworded:
        _trace(where_it_ran.url, "station", tmp_path / "results")
        done = _reuseit(
            "import", str(tmp_path / "results"), "-o", str(tmp_path / "out"), "--runs", "2", "--base-url", reworded.url
        )
        assert done.returncode == 1, done.stdout + done.stderr
        assert "does not pass on the site: run 1 of 2" in done.stdout and "Saved barometer" in done.stdout
        assert "; 3 runs of the new workflows" in done.stdout and "accepted once" not in done.stdout, done.stdout
        written = (tmp_path / "out" / "adds_a_station.reuseit.yaml").read_text()
        assert "{unique}" not in written and "barometer" in written
