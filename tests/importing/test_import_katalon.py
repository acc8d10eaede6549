"""Katalon Recorder test suites (its HTML) imported to mean what Katalon Recorder does.

Each suite is written as Katalon Recorder saves one (tests/support/katalon_suites.py: a table per
test case, the target's alternatives in a ``<datalist>``) and read as its own parser reads it
(katalon-studio/katalon-recorder, ``panel/js/UI/services/helper-service/parser.js``); its commands
mean what its Selenium Core does (``content/selenium-api.js``, ``selenium-commandhandlers.js``,
``utils.js``'s ``PatternMatcher``, ``selenium-browserbot.js``'s locators and dialogs).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page

from pytest_reuseit.cli import main
from pytest_reuseit.engine.runner import execute
from pytest_reuseit.importing.selenium import katalon, selenese
from pytest_reuseit.workflow.loader import load
from tests.support.katalon_suites import row, shop_suite, suite, write
from tests.support.paths import ROOT
from tests.support.selenium_shop import shop_site

SITE = "http://127.0.0.1:1"


def test_each_command_becomes_what_katalon_recorder_does_or_is_said(tmp_path: Path) -> None:
    buy, loop = katalon.read(write(tmp_path / "shop.html", shop_suite(SITE)))
    assert (buy.title, loop.title) == ("buy a book", "add twice")
    kinds = [s.kind for s in buy.steps]
    assert kinds == [
        *("goto", "fill", "press", "extract", "select", "click", "click", "click"),
        *("close_page", "fill", "click", "click", "extract"),
    ]
    # The <datalist>'s alternatives, in its order; an implicit //xpath is XPath.
    assert buy.steps[1].target is not None
    assert buy.steps[1].target.selectors == [
        "css=#q >> nth=0",
        'css=[name="q"] >> nth=0',
        "xpath=//input[@id='q'] >> nth=0",
    ]
    assert buy.steps[1].value == "dune"  # Selenium Core's type sets the value: the format's fill
    assert buy.steps[7].target is not None and buy.steps[7].target.selectors[0] == 'css=a:text-is("Help") >> nth=0'
    # Patterns: a glob is a whole match, regexp: a search, exact: as written.
    checks = [c for s in buy.steps for c in s.checks]
    assert {"text": {"selector": "css=#cart", "nth": 0, "matches": "^1 × Dune(.|[\r\n])*$"}} in checks
    assert {"text": {"selector": "css=#paid", "frame": {"selector": "css=frame, iframe", "nth": 0}, "nth": 0,
                     "matches": "^Paid by A"}} in checks  # fmt: skip
    assert {"text": {"selector": "css=#cart", "nth": 0, "equals": "Cart is empty"}} in checks
    assert {"dialog": {"equals": "Empty the cart?"}} in checks
    # selectWindow win_ser_1 right after a click: that click opened the first window (waited for).
    assert buy.steps[7].new_page
    assert buy.settings == {"dialog": {"accept": True, "text": ""}}  # confirm() answers OK unless told
    said = [u for s in buy.steps for u in s.unexpressed]
    assert said == ["echo ${two} (writes a message in Selenium IDE's log (the format has no log op))"]
    assert sum(len(s.caveats) for s in buy.steps) == 2  # the two verify commands
    # A while loop: said command by command; what is outside it imported.
    assert [s.kind for s in loop.steps] == ["goto"]
    assert len([u for s in loop.steps for u in s.unexpressed]) == 4
    assert loop.steps[0].checks == [{"text": {"selector": "css=#total", "nth": 0, "equals": "Total: 0.00"}}]


@pytest.mark.parametrize(
    ("pattern", "match"),
    [
        ("Total: 9.99", {"equals": "Total: 9.99"}),
        ("exact:a*b", {"equals": "a*b"}),
        ("glob:a?c", {"matches": "^a(.|[\r\n])c$"}),
        ("1 (x)*", {"matches": "^1 \\(x\\)(.|[\r\n])*$"}),
        ("regexp:^\\d+$", {"matches": "^\\d+$"}),
        ("regexpi:dune", {"matches": "(?i)dune"}),
        ("label:x", {"equals": "label:x"}),  # no such strategy: a glob of that text
    ],
)
def test_an_expected_value_is_a_selenium_core_pattern(pattern: str, match: dict[str, str]) -> None:
    assert selenese.text_match(pattern, selenese.KATALON) == match


def test_cells_are_read_as_text_and_an_old_selenium_ide_case_uses_its_base(tmp_path: Path) -> None:
    old = """<html><head><link rel="selenium.base" href="http://127.0.0.1:1/app/" /><title>t</title></head><body>
<table cellpadding="1" cellspacing="1" border="1"><thead><tr><td rowspan="1" colspan="3">old case</td></tr></thead>
<tbody>
<tr><td>open</td><td>login.html</td><td></td></tr>
<tr><td>type</td><td>q</td><td>a &lt;b&gt; &amp; c</td></tr>
<tr><td>verifyTextPresent</td><td>Welcome</td><td></td></tr>
</tbody></table></body></html>"""
    (demo,) = katalon.read(write(tmp_path / "old.html", old))
    assert demo.steps[0].value == "http://127.0.0.1:1/app/login.html"
    # No prefix: the element of that id, else of that name (Selenium Core's identifier).
    assert demo.steps[1].target is not None
    assert demo.steps[1].target.selectors == ["css=#q >> nth=0", 'css=[name="q"] >> nth=0']
    assert demo.steps[1].value == "a <b> & c"
    assert demo.steps[1].checks == [{"text": {"selector": "css=body", "contains": "Welcome"}}]


def test_a_test_that_jumps_is_said_whole(tmp_path: Path) -> None:
    rows = [row("open", f"{SITE}/"), row("label", "top"), row("click", "id=a"), row("gotoIf", "true", "top")]
    path = write(tmp_path / "jumps.html", suite("s", [("jumps", rows)]))
    assert main(["import", str(path), "--no-derive", "-o", str(tmp_path / "out")]) == 2
    assert not (tmp_path / "out").exists()


def _too_large(path: Path) -> None:
    with path.open("wb") as f:
        f.write(b'<table><thead><tr><td rowspan="1" colspan="3">x</td></tr></thead><tbody>')
        f.truncate(10 * 1024 * 1024 + 1)


REFUSED: dict[str, tuple[Callable[[Path], None], str]] = {
    "no table": (lambda p: p.write_text("<html><body><table><tbody></tbody></table></body></html>"), "no test case"),
    "rows with no command": (
        lambda p: write(p, suite("s", [])),
        "no test case table in it: not a Katalon Recorder test suite",
    ),
    "501 commands": (
        lambda p: write(p, suite("s", [("t", [row("click", "id=a")] * 501)])),
        "a test case of more than 500 commands, the limit",
    ),
    "33 alternatives": (
        lambda p: write(p, suite("s", [("t", [row("click", "id=a", "", *["id=b"] * 33)])])),
        "a target with more than 32 alternatives",
    ),
    "over 10 MB": (_too_large, "over the limit of 10 MB for a recording"),
    "binary junk": (lambda p: p.write_bytes(b'<td colspan="3"><tbody>' + bytes(range(128, 256))), "not UTF-8 text"),
}


@pytest.mark.parametrize("case", REFUSED, ids=list(REFUSED))
def test_a_broken_suite_is_one_line_and_exit_2(case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make, says = REFUSED[case]
    path = tmp_path / "s.html"
    make(path)
    assert main(["import", str(path), "--no-derive", "-o", str(tmp_path / "out")]) == 2
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    line = out.out.splitlines()[0]
    assert line.startswith(f"cannot import {path}") and says in line, line


@pytest.fixture(scope="module")
def shop() -> Iterator[str]:
    with shop_site() as served:
        yield served.url


@pytest.mark.slow
@pytest.mark.browser
def test_a_suite_imports_to_a_workflow_that_passes_and_fails_when_the_page_breaks(
    shop: str, tmp_path: Path, page: Page
) -> None:
    path = write(tmp_path / "shop.html", shop_suite(shop))
    done = subprocess.run(
        [sys.executable, "-m", "pytest_reuseit.cli", "import", str(path), "-o", str(tmp_path / "out"), "--runs", "1"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ},
        timeout=600,
    )
    # The loop's case opens the page and checks it: imported; its loop said.
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 not imported (comments)" in done.stdout
    text = (tmp_path / "out" / "buy_a_book.reuseit.yaml").read_text()
    assert "settings: {dialog: {accept: true, text: ''}}" in text
    assert "- {click: {role: link, name: Help}, new_page: true}" in text
    loaded = load(tmp_path / "out" / "buy_a_book.reuseit.yaml")
    result = execute(page, loaded, builtins={"base_url": shop})
    assert result.status == "passed", result.message
    assert page.locator("#cart").inner_text() == "Cart is empty"
    with shop_site(broken=True) as broken:
        assert execute(page, loaded, builtins={"base_url": broken.url}).status == "failed"
