"""Selenium IDE's own example suites, imported (tests/suites/selenium-ide: every project of its
``tests/examples``, which its command-line runner plays in its CI against the pages of
``packages/side-testkit/fixtures/static``, here served on 127.0.0.1 by tests/support/selenium_ide.py).

For every test of those suites: it imports to a workflow that passes 3 runs of 3 on those pages,
or each command it could not import is counted with its reason; its assertions fail when the page
breaks what they assert; where the page renames the element a command found first, the workflow
still passes (through the alternatives the file carries, or a person's locator found on the page).
The projects that open other sites (google.com, w3.org...) are read, never run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Page

from pytest_reuseit.cli import main
from pytest_reuseit.engine.runner import execute
from pytest_reuseit.importing.compose import file_name
from pytest_reuseit.workflow.loader import load
from tests.support.paths import ROOT
from tests.support.selenium_ide import EXAMPLES, PROJECTS, Example, Project, site

SERVED = [p for p in PROJECTS if p.served]

# The projects whose pages are another site's: what each test becomes, read only (--no-derive).
_LOG = "writes a message in Selenium IDE's log (the format has no log op)"
ELSEWHERE = [
    Project(
        "blank.side",
        {"New Test": Example(steps=1), "New Test 2": Example(steps=1), "New Test 3": Example(steps=1)},
        served=False,
    ),
    Project("echo.side", {"Plugin Commands": Example(steps=1, said=(_LOG,))}, served=False),
    Project("frames.side", {"Frames": Example(steps=8)}, served=False),
    Project("send-keys.side", {"send keys": Example(steps=2, checks=1)}, served=False),
    Project(
        "simple-parent.side",
        {"open page": Example(steps=1), "outer": Example(steps=1, checks=2, differences=1)},
        served=False,
    ),
    Project(
        "unmatched-suite.side",
        {"Test 1": Example(steps=1, said=(_LOG,)), "Test 2": Example(steps=1, said=(_LOG,))},
        served=False,
    ),
    Project(
        "wait-for.side",
        {
            "wait for element present": Example(steps=1, checks=2),
            "wait for element not present": Example(steps=1, checks=2),
            "wait for element visible": Example(steps=1, checks=2),
            "wait for element not visible": Example(steps=1, checks=2),
            "wait for element editable (and not editable)": Example(steps=2, checks=6),
        },
        served=False,
    ),
]


def test_every_example_project_of_selenium_ide_is_here() -> None:
    assert sorted(p.file for p in PROJECTS + ELSEWHERE) == sorted(p.name for p in EXAMPLES.glob("*.side"))


def _lines(stdout: str, out: Path, project: Project) -> dict[str, str]:
    """Each test's line of the summary with the indented lines under it, by the test's name."""
    lines = stdout.splitlines()
    found = {}
    for name in project.tests:
        written = f"wrote {out / file_name(name)}: "
        refused = f"cannot import {EXAMPLES / project.file} (test {name!r}): "
        at = next(i for i, line in enumerate(lines) if line.startswith((written, refused)))
        end = next((i for i in range(at + 1, len(lines)) if not lines[i].startswith("  ")), len(lines))
        found[name] = "\n".join(lines[at:end])
    return found


def _check_said(out: Path, name: str, line: str, expected: Example) -> None:
    """The line counts what the file says: its steps, the source's checks, each command not
    imported (a comment with its reason, in order) and each imported with a difference."""
    line = line.splitlines()[0]
    if expected.refused:
        assert line.endswith(expected.refused), line
        return
    m = re.search(r": (\d+) steps, (\d+) checks from the source", line)
    assert m and (int(m.group(1)), int(m.group(2))) == (expected.steps, expected.checks), (name, line)
    said = re.findall(r"# not imported: (.*)", (out / file_name(name)).read_text())
    assert len(said) == len(expected.said), (name, said)
    for comment, why in zip(said, expected.said, strict=True):
        assert why in comment, (name, comment)
    assert (f"{len(said)} not imported (comments)" in line) == bool(said), line
    differences = f"{expected.differences} imported with a difference (comments)"
    assert (differences in line) == bool(expected.differences), line


@pytest.mark.parametrize("project", PROJECTS + ELSEWHERE, ids=lambda p: p.file)
def test_each_example_test_is_imported_and_each_command_it_could_not_import_is_said_and_counted(
    project: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    status = main(["import", str(EXAMPLES / project.file), "--no-derive", "-o", str(out)])
    assert status == (2 if any(t.refused for t in project.tests.values()) else 0)
    stdout = capsys.readouterr().out
    for name, line in _lines(stdout, out, project).items():
        _check_said(out, name, line, project.tests[name])


def _reuseit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_reuseit.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ},
        timeout=900,
    )


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("project", SERVED, ids=lambda p: p.file)
def test_an_example_project_imports_to_workflows_that_pass_3_runs_of_3_and_fail_when_the_page_breaks(
    project: Project, tmp_path: Path, page: Page
) -> None:
    out = tmp_path / "out"
    written = {name: out / file_name(name) for name, t in project.tests.items() if not t.refused}
    with site() as served:
        # The import's own runs: one to find each element on the page, 3 to derive and confirm.
        done = _reuseit("import", str(EXAMPLES / project.file), "-o", str(out), "--base-url", served.url)
        assert "Traceback" not in done.stderr, done.stderr
        lines = _lines(done.stdout, out, project)
        passing = {name for name in written if name not in project.fails}
        for name, line in lines.items():
            _check_said(out, name, line, project.tests[name])
        for name in passing:
            assert "does not pass" not in lines[name], lines[name]
            # What is written passes 3 runs of 3 on the pages as they are.
            workflow = load(written[name])
            for run in range(3):
                result = execute(page, workflow, builtins={"base_url": served.url})
                assert result.status == "passed", (name, run, result.message)
        for name, why in project.fails.items():  # its commands not imported said, and where the run fails
            assert f"\n  does not pass on the site: run 1 of 3: {why}" in lines[name], lines[name]
    expected_status = 1 if project.fails else 2 if any(t.refused for t in project.tests.values()) else 0
    assert done.returncode == expected_status, done.stdout + done.stderr
    if project.breaks:
        with site(project.breaks) as broken:
            for name, words in project.broken.items():
                result = execute(page, load(written[name]), builtins={"base_url": broken.url})
                assert result.status == "failed", (name, result.status, result.message)
                assert words in result.message, (name, result.message)
    assert set(project.broken) == (passing if project.breaks else set())  # each test that asserts the page
    if project.renamed:
        with site(project.renamed) as renamed:
            for name, status in project.renamed_status.items():
                result = execute(page, load(written[name]), builtins={"base_url": renamed.url})
                assert result.status == "passed" and result.label == status, (name, result.label, result.message)
