"""Selenium IDE projects (``.side``) imported to mean what Selenium IDE's own runner does.

Each project is written as Selenium IDE writes one (tests/support/side_projects.py: ids, comments,
``targets`` as [locator, strategy] pairs) and read as side-runtime reads it (SeleniumHQ/selenium-ide,
``packages/side-runtime/src/webdriver.ts``, ``preprocessors.ts``; older files upgraded as
``packages/side-migrate`` does). On real pages served on 127.0.0.1 (tests/pages/selenium: a
search, a select, a box, a pop-up, a frame, a confirmation) the imported workflows pass, their
assertions fail when the page breaks what they assert, and they still pass when the page renames
the ids the recording found its elements by.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from pytest_reuseit.cli import main
from pytest_reuseit.engine.runner import execute
from pytest_reuseit.importing.demo import Demonstration
from pytest_reuseit.importing.selenium import selenese, side
from pytest_reuseit.workflow.loader import load, parse
from tests.support.paths import ROOT
from tests.support.routed_run import look_for, run_on
from tests.support.selenium_shop import shop_site
from tests.support.side_projects import ADD, SEARCH, cmd, extras_project, shop_project, write

SITE = "http://127.0.0.1:1"


def _project(*commands: dict[str, Any], version: str = "2.0", url: str = SITE, **more: Any) -> dict[str, Any]:
    return {
        "id": "p",
        "version": version,
        "name": "p",
        "url": url,
        "tests": [{"id": "t", "name": "t", "commands": list(commands)}],
        "suites": [],
        **more,
    }


def _read(tmp_path: Path, project: dict[str, Any]) -> list[Demonstration]:
    return side.read(write(tmp_path / "p.side", project))


def _said(demo: Demonstration) -> list[str]:
    return [u for s in demo.steps for u in s.unexpressed]


# ----------------------------------------------------------------------------- what each command becomes


def test_each_command_becomes_what_side_runtime_does_or_is_said(tmp_path: Path) -> None:
    buy, opened, search = _read(tmp_path, shop_project(SITE))
    kinds = [s.kind for s in buy.steps]
    assert kinds == [
        *("goto", "click", "fill", "type", "press", "extract", "select", "click", "click"),
        *("click", "close_page", "fill", "type", "click", "click"),
    ]
    assert buy.steps[0].value == f"{SITE}/shop.html"  # relative to the project's url
    assert buy.browser == {"viewport": {"width": 1200, "height": 900}}
    # The recorder's alternatives, in its order, as first matches (WebDriver takes the first element).
    assert buy.steps[1].target is not None
    assert buy.steps[1].target.selectors == [
        "css=#q >> nth=0",
        'css=[name="q"] >> nth=0',
        "xpath=//input[@id='q'] >> nth=0",
    ]
    assert buy.steps[1].remarks == ["Selenium IDE comment: find the book"]
    # type clears the field, then types key by key; sendKeys' ${KEY_ENTER} is the Enter key.
    assert [(s.kind, s.value) for s in buy.steps[2:5]] == [("fill", ""), ("type", "dune"), ("press", "Enter")]
    assert buy.steps[5].extract == {"into": "price", "read": "text"}
    assert buy.steps[6].value == "Hardcover"
    # A pop-up opened by the click that opensWindow; the frame's elements found inside it.
    assert buy.steps[9].new_page and buy.steps[10].kind == "close_page"
    assert buy.steps[11].target is not None
    assert buy.steps[11].target.selectors[0] == (
        "css=frame, iframe >> nth=0 >> internal:control=enter-frame >> css=#card >> nth=0"
    )
    # The confirmation asserted after the click is that click's dialog, accepted.
    assert buy.steps[-1].dialog == "accept"
    assert {"dialog": {"equals": "Empty the cart?"}} in buy.steps[-1].checks
    # ${price} read from the page is the extract's placeholder in the check that uses it.
    total = next(c for s in buy.steps for c in s.checks if "Total" in json.dumps(c))
    assert "price" in json.dumps(total)
    assert _said(buy) == [
        "echo bought for ${price} (writes a message in Selenium IDE's log (the format has no log op))"
    ]
    assert [c for s in buy.steps for c in s.caveats][0].startswith("verifyChecked id=gift: Selenium IDE goes on")
    # run: the other test's commands in place; an if block said command by command.
    assert [s.kind for s in search.steps] == ["goto", "fill", "type", "press"]
    assert search.browser == opened.browser
    said = _said(search)
    assert len(said) == 3 and all("the format has no conditional steps" in s for s in said)
    assert {"text": {"selector": "css=#results .price", "nth": 0, "equals": "4.50"}} in search.steps[-1].checks
    assert "Default Suite" in buy.remarks[0] and "'buy a book', 'search by price'" in buy.remarks[0]


@pytest.mark.parametrize(
    ("locator", "selectors"),
    [
        ("id=q", ["css=#q >> nth=0"]),
        ("id=a.b", ['css=[id="a.b"] >> nth=0']),
        ("name=q", ['css=[name="q"] >> nth=0']),
        ("css=div > a", ["css=div > a >> nth=0"]),
        ("xpath=//a[@x='1']", ["xpath=//a[@x='1'] >> nth=0"]),
        ("//a", ["xpath=//a >> nth=0"]),
        ("linkText=Sign in", ['css=a:text-is("Sign in") >> nth=0']),
        ("link=Sign in", ['css=a:text-is("Sign in") >> nth=0']),
        (
            'partialLinkText=it\'s "here"',
            ["xpath=//a[contains(normalize-space(.), concat('it', \"'\", 's \"here\"'))] >> nth=0"],
        ),
    ],
)
def test_locators_are_the_first_match_of_the_same_strategy(locator: str, selectors: list[str]) -> None:
    assert selenese.selectors(locator, selenese.SIDE) == selectors


@pytest.mark.parametrize("locator", ["identifier=q", "dom=document.forms[0]", "q", "id="])
def test_a_locator_side_runtime_refuses_is_said(locator: str) -> None:
    with pytest.raises(selenese.NotImported):
        selenese.selectors(locator, selenese.SIDE)


def test_variables_are_filled_as_side_runtime_fills_them(tmp_path: Path) -> None:
    """Known names are replaced (a stored text, an environment variable read where the workflow
    runs), unknown ones stay as written, a value is trimmed and its \\n read."""
    (demo,) = _read(
        tmp_path,
        _project(
            cmd("open", "/"),
            cmd("store", "  Ada  ", "who"),
            cmd("type", "id=a", "${who} and ${nobody}"),
            cmd("type", "id=b", "line\\nbreak"),
            cmd("type", "id=c", "${env:SHOP_USER}"),
            cmd("storeTitle", "title"),
            cmd("type", "id=d", "[${title}]"),
            cmd("executeScript", "return ${who}.length", "n"),
        ),
    )
    typed = [s.value for s in demo.steps if s.kind == "type"]
    assert typed[0] == "Ada and ${nobody}"
    assert typed[1] == "line\nbreak"
    assert "env.SHOP_USER" in typed[2] and os.environ.get("SHOP_USER", "\x00") not in typed[2]
    assert "title" in typed[3] and typed[3].startswith("[")
    script = demo.steps[-1].value
    assert "arguments[0]" in script and '["Ada"]' in script


def test_env_and_stored_values_are_written_as_placeholders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(
        tmp_path / "p.side",
        _project(
            cmd("open", "/"),
            cmd("type", "id=user", "${env:SHOP_USER}"),
            cmd("type", "id=token", "${env:SHOP_TOKEN}"),
            cmd("storeText", "id=order", "order"),
            cmd("click", "xpath=//a[text()='${order}']"),
            cmd("assertText", "id=msg", "{not} a ${order}"),
        ),
    )
    assert main(["import", str(path), "--no-derive", "-o", str(tmp_path / "out")]) == 0
    text = next((tmp_path / "out").glob("*.yaml")).read_text()
    assert "value: '{env.SHOP_USER}'" in text
    assert "value: '{secret.SHOP_TOKEN}'" in text  # a token field: masked as a secret wherever it shows
    assert "{extract: {into: order, text: {selector: css=#order, nth: 0}}}" in text
    assert "xpath=//a[text()='{order}']" in text
    assert "equals: '{{not}} a {order}'" in text  # the source's own braces stay braces
    loaded = parse(text, "w.reuseit.yaml", builtin_names=("base_url", "unique"))
    assert len(loaded.workflow.steps) == 4


def test_an_open_is_relative_to_the_project_url_and_written_from_base_url(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project(
        cmd("open", "shop.html"), cmd("open", "https://other.example/x"), url="https://staging.example/app/"
    )
    path = write(tmp_path / "p.side", project)
    assert main(["import", str(path), "--no-derive", "-o", str(tmp_path / "out")]) == 0
    text = next((tmp_path / "out").glob("*.yaml")).read_text()
    assert "start_url: '{base_url}/app/shop.html'" in text
    assert "{goto: https://other.example/x}" in text  # another site stays where it is


def test_windows_frames_and_dialogs_follow_the_runner(tmp_path: Path) -> None:
    (demo,) = _read(
        tmp_path,
        _project(
            cmd("open", "/"),
            cmd("click", "id=pop", opensWindow=True, windowHandleName="w1"),
            cmd("click", "id=still-on-the-first-page"),
            cmd("selectWindow", "handle=${w1}"),
            cmd("selectFrame", "id=inner"),
            cmd("click", "id=in-frame"),
            cmd("selectFrame", "relative=top"),
            cmd("chooseCancelOnNextConfirmation"),
            cmd("click", "id=delete"),
            cmd("answerOnNextPrompt", "Bob"),
            cmd("click", "id=rename"),
            cmd("selectWindow", "nameOfAWindow"),
        ),
    )
    kinds = [(s.kind, s.value) for s in demo.steps]
    # The click that opens a window leaves the runner where it was: back to the first page first.
    assert kinds[1:4] == [("click", ""), ("switch", "main"), ("click", "")]
    assert kinds[4] == ("switch", "1")
    assert demo.steps[5].target is not None
    assert demo.steps[5].target.selectors[0].startswith("css=#inner >> nth=0 >> internal:control=enter-frame >> ")
    assert demo.steps[6].dialog == "dismiss" and demo.steps[6].target.selectors[0] == "css=#delete >> nth=0"
    assert demo.steps[7].dialog == {"accept": True, "text": "Bob"}
    assert _said(demo) == ["selectWindow nameOfAWindow (not a handle=${name} (Selenium IDE's runner refuses it))"]


def test_times_with_a_count_written_in_the_test_is_repeated(tmp_path: Path) -> None:
    (demo,) = _read(
        tmp_path,
        _project(
            cmd("open", "/"),
            cmd("times", "3"),
            cmd("click", "id=plus"),
            cmd("end"),
            cmd("storeText", "id=n", "n"),
            cmd("times", "${n}"),
            cmd("click", "id=minus"),
            cmd("end"),
            cmd("while", "true"),
            cmd("click", "id=x"),
            cmd("//click", "id=commented-out"),
        ),
    )
    assert [s.kind for s in demo.steps] == ["goto", "click", "click", "click", "extract"]
    said = _said(demo)
    assert sum("the count is read at run time" in s for s in said) == 3
    assert sum("no end" in s for s in said) == 2
    assert not any("commented-out" in s for s in said)  # not played by the runner: not a step, not said


def test_an_async_script_is_awaited_as_side_runtime_awaits_its_callback(tmp_path: Path) -> None:
    """executeAsyncScript: the script, then ``.then(callback).catch(callback)``, WebDriver's last
    argument the callback (Selenium IDE's execute-script.side)."""
    (demo,) = _read(
        tmp_path,
        _project(
            cmd("open", "/"),
            cmd("store", "x", "who"),
            cmd("executeAsyncScript", "return new Promise((r) => r(${who}))", "got"),
            cmd("executeAsyncScript", "return Promise.resolve(1)"),
            cmd("type", "id=v", "${got}"),
        ),
    )
    assert [s.kind for s in demo.steps] == ["goto", "extract", "eval", "fill", "type"]
    stored = demo.steps[1].value
    assert "var callback = arguments[arguments.length - 1];return new Promise((r) => r(arguments[0]))" in stored
    assert ".then(callback).catch(callback);" in stored and '.apply(null, ["x", done])' in stored
    assert demo.steps[1].extract == {"into": "got", "read": "js"}
    assert ".apply(null, [done])" in demo.steps[2].value
    assert "got" in demo.steps[4].value and "${got}" not in demo.steps[4].value
    assert _said(demo) == []


def test_a_value_stored_by_a_command_not_imported_is_said_where_it_is_used(tmp_path: Path) -> None:
    """The runner would type what it stored; the import does not know it, so a later use is said,
    never typed as ``${name}`` (Selenium IDE's control-flow.side stores inside an if)."""
    (demo,) = _read(
        tmp_path,
        _project(
            cmd("open", "/"),
            cmd("if", "true"),
            cmd("executeScript", "return 'a'", "output"),
            cmd("end"),
            cmd("type", "id=a", "${output}"),
            cmd("storeJson", '{"a": 1}', "data"),
            cmd("executeScript", "return ${data}.a", "n"),
            cmd("assertValue", "id=b", "${n}"),
            cmd("store", "again", "output"),
            cmd("type", "id=c", "${output}"),
        ),
    )
    assert [(s.kind, s.value) for s in demo.steps] == [("goto", f"{SITE}/"), ("fill", ""), ("type", "again")]
    said = _said(demo)
    assert len(said) == 7
    assert (
        "type id=a ${output} (${output} is stored by a command not imported (executeScript return 'a' output))" in said
    )
    assert any(s.startswith("assertValue id=b ${n} (${n} is stored by a command not imported") for s in said)


_ATTRIBUTES_PAGE = """<a id="rel" href="/x?y=1">x</a><a id="none">n</a><img id="img" src="">
<input id="box" type="checkbox" checked><input id="field" value="old" disabled class="a b">
<div id="styled" style="color:blue;" data-x="1" spellcheck="FALSE">d</div>"""


# An element, an attribute, and what WebDriver's getAttribute gives for it on _ATTRIBUTES_PAGE.
_WEBDRIVER_ATTRIBUTES = [
    ("#styled", "style", "color: blue;"),  # the style's cssText, not what the page wrote
    ("#rel", "href", "{base}/x?y=1"),  # the full address
    ("#none", "href", "null"),
    ("#img", "src", ""),  # written empty: empty
    ("#box", "checked", "true"),
    ("#field", "checked", "null"),
    ("#field", "value", "typed"),  # the property: what the field holds now
    ("#field", "disabled", "true"),
    ("#field", "readonly", "null"),
    ("#field", "class", "a b"),
    ("#styled", "data-x", "1"),
    ("#styled", "spellcheck", "false"),
    ("#styled", "title", ""),  # a property that is a plain value: ""
]


@pytest.mark.browser
def test_store_attribute_reads_what_webdrivers_get_attribute_gives(page: Page, pages_url: str) -> None:
    """side-runtime's storeAttribute is WebDriver's getAttribute (Selenium's atom), not the
    attribute as written: Selenium IDE's store-examples.side stores ``style="color:blue;"`` and
    asserts ``color: blue;``."""
    page.goto(f"{pages_url}/other.html")
    page.set_content(_ATTRIBUTES_PAGE)
    page.eval_on_selector("#field", "el => { el.value = 'typed'; }")
    got = [page.eval_on_selector(e, selenese.webdriver_attribute(a)) for e, a, _ in _WEBDRIVER_ATTRIBUTES]
    assert got == [w.format(base=pages_url) for _, _, w in _WEBDRIVER_ATTRIBUTES]


def test_store_attribute_is_an_extract_of_the_element_by_that_reading(tmp_path: Path) -> None:
    (demo,) = _read(tmp_path, _project(cmd("open", "/"), cmd("storeAttribute", "id=t@style", "s")))
    step = demo.steps[1]
    assert step.extract == {"into": "s", "read": "js", "attribute": "style"}
    assert step.target is not None and step.target.selectors == ["css=#t >> nth=0"]
    assert step.value == selenese.webdriver_attribute("style") and not step.caveats


def test_the_mouse_goes_where_side_runtime_moves_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """clickAt, mouseDownAt, mouseUpAt, mouseMoveAt: a WebDriver move to a point from the
    element's middle, then the press (Selenium IDE's mouse-events.side and nginx-examples.side)."""
    project = _project(
        cmd("open", "/"),
        cmd("clickAt", "id=b", "41,8"),
        cmd("doubleClickAt", "id=b", "0,0"),
        cmd("mouseDownAt", "id=a", " -3 , 7px"),
        cmd("mouseUp", "id=a"),
        cmd("mouseMoveAt", "id=a", "2,2"),
        cmd("mouseDown", "id=a"),
        cmd("clickAt", "id=b", "x,1"),
        cmd("mouseOut", "id=a"),
    )
    (demo,) = _read(tmp_path, project)
    assert [(s.kind, s.at) for s in demo.steps[1:]] == [
        ("click", (41, 8)),
        ("dblclick", None),  # the middle: the op as it is
        ("mouse_down", (-3, 7)),  # parseInt of each part
        ("mouse_up", None),
        ("hover", (2, 2)),
        ("mouse_down", None),
        ("mouse_out", None),
    ]
    assert _said(demo) == ["clickAt id=b x,1 ('x,1' is no x,y point (WebDriver refuses the move))"]
    path = write(tmp_path / "p.side", project)
    assert main(["import", str(path), "--no-derive", "-o", str(tmp_path / "out")]) == 0
    text = (tmp_path / "out" / "t.reuseit.yaml").read_text()
    assert "- {click: {selector: css=#b, nth: 0}, at: {x: 41, y: 8}}" in text
    assert "- {mouse_down: {selector: css=#a, nth: 0}, at: {x: -3, y: 7}}" in text
    assert "action: 'Press the mouse button on the element #a at -3,7 from its middle'" in text
    assert "- mouse_out: {selector: css=#a, nth: 0}" in text or "- {mouse_out: {selector: css=#a, nth: 0}}" in text


def test_a_test_that_opens_no_page_starts_where_the_runner_does_on_an_empty_one(tmp_path: Path) -> None:
    """side-runner plays a test without ``open`` on the browser's first page (Selenium IDE's
    control-flow.side and executescript.side run scripts there)."""
    (scripts, checked, late) = side.read(
        write(
            tmp_path / "p.side",
            {
                **_project(),
                "tests": [
                    {"id": "a", "name": "a", "commands": [cmd("executeScript", "return 1", "x"), cmd("echo", "x")]},
                    {"id": "b", "name": "b", "commands": [cmd("assertTitle", "")]},
                    {"id": "c", "name": "c", "commands": [cmd("runScript", "1"), cmd("open", "/x")]},
                ],
            },
        )
    )
    assert [(s.kind, s.value) for s in scripts.steps[:1]] == [("goto", "about:blank")]
    assert scripts.steps[0].remarks == ["Selenium IDE's runner starts on an empty page: the test opens none first"]
    assert [s.kind for s in scripts.steps] == ["goto", "extract"] and len(_said(scripts)) == 1
    assert checked.steps[0].checks == [{"title": {"equals": ""}}]
    assert [(s.kind, s.value) for s in late.steps if s.kind == "goto"] == [
        ("goto", "about:blank"),
        ("goto", f"{SITE}/x"),
    ]


def test_an_older_project_is_upgraded_as_side_migrate_does(tmp_path: Path) -> None:
    (demo,) = _read(
        tmp_path,
        _project(
            cmd("open", "/"),
            cmd("click", "search", "", ("search", "id"), ("//button", "xpath")),
            cmd("pause", "", "250"),
            cmd("waitForVisible", "css=#done", "2000"),
            cmd("storeTitle", "", "title"),
            cmd("storeXpathCount", "//li", "items"),
            version="1.0",
        ),
    )
    assert [s.kind for s in demo.steps] == ["goto", "click", "wait", "extract", "extract"]
    assert demo.steps[1].target is not None
    assert demo.steps[1].target.selectors == ["css=#search >> nth=0", "xpath=//button >> nth=0"]
    assert demo.steps[2].value == "250"
    assert demo.steps[2].checks == [{"visible": {"selector": "css=#done", "nth": 0}}]
    assert demo.steps[2].check_timeout == 2
    assert demo.steps[3].extract == {"into": "title", "read": "js"}
    assert "snapshotLength" in demo.steps[4].value


# ----------------------------------------------------------------------------- hostile inputs


def _write_bytes(content: bytes) -> Callable[[Path], None]:
    return lambda path: path.write_bytes(content)


def _json(project: Any) -> Callable[[Path], None]:
    return _write_bytes(json.dumps(project).encode())


def _too_large(path: Path) -> None:
    with path.open("wb") as f:
        f.truncate(10 * 1024 * 1024 + 1)


# input -> (how it is made, the line's words after "cannot import PATH: ")
REFUSED: dict[str, tuple[Callable[[Path], None], str]] = {
    "not JSON": (_write_bytes(b"<html>"), "not JSON (JSONDecodeError): not a Selenium IDE project"),
    "JSON without tests": (_json({"name": "x"}), "JSON without a list of tests: not a Selenium IDE project"),
    "a newer version": (_json(_project(version="4.0")), "version '4.0', newer than this release reads"),
    "a version as a number": (_json(_project(version=3)), "version must be a string, got int 3"),
    "a target as a number": (
        _json(_project(cmd("open", "/"), {**cmd("click"), "target": 12})),
        "tests[0].commands[1].target must be a string, got int 12",
    ),
    "targets as a string": (
        _json(_project(cmd("open", "/"), {**cmd("click", "id=a"), "targets": "id=b"})),
        "tests[0].commands[1].targets must be a list of [locator, strategy] pairs, got str 'id=b'",
    ),
    "a command as a list": (
        _json(_project(cmd("open", "/"), ["click", "id=a"])),
        "tests[0].commands[1] must be a mapping, got list",
    ),
    "no command name": (_json(_project({"target": "x"})), "tests[0].commands[0].command is missing"),
    "plugins as a path": (_json(_project(plugins="p/x")), "plugins must be a list, got str 'p/x'"),
    "a plugin as a number": (_json(_project(plugins=[3])), "plugins[0] must be a path or a mapping, got int 3"),
    "opensWindow as text": (
        _json(_project(cmd("open", "/"), cmd("click", "id=a", opensWindow="true"))),
        "opensWindow must be true or false, got str 'true'",
    ),
    "501 commands": (_json(_project(*[cmd("click", "id=a")] * 501)), "501 commands in tests[0], over the limit of 500"),
    "33 alternatives": (
        _json(_project(cmd("click", "id=a", "", *[("id=b", "id")] * 33))),
        "33 alternatives in tests[0].commands[0].targets, over the limit of 32",
    ),
    "over 10 MB": (_too_large, "over the limit of 10 MB for a recording"),
    "nested deep": (_write_bytes(b'{"tests": ' + b"[" * 5000 + b"]" * 5000 + b"}"), "JSON nested deeper than 256"),
    "binary junk": (_write_bytes(bytes(range(256)) * 8), "not UTF-8 text"),
    "a 5000-character value": (
        _json(_project(cmd("open", "/"), cmd("type", "id=a", "x" * 5000))),
        "holds a text of 5000 characters, over the limit of 4096",
    ),
}


@pytest.mark.parametrize("case", REFUSED, ids=list(REFUSED))
def test_a_hostile_or_broken_project_is_one_line_and_exit_2(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make, says = REFUSED[case]
    path = tmp_path / "p.side"
    make(path)
    assert main(["import", str(path), "--no-derive", "-o", str(tmp_path / "out")]) == 2
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    line, total = out.out.splitlines()
    assert line.startswith(f"cannot import {path}") and says in line, line
    assert total.endswith("; 1 not imported")
    assert not (tmp_path / "out").exists()


def test_tests_that_run_each_other_many_times_are_refused_before_they_are_read_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Four tests each running the next 100 times would be 10^8 commands: refused at 2,000 played."""
    tests = [{"id": "t0", "name": "t0", "commands": [cmd("open", "/"), *[cmd("run", "t1")] * 100]}]
    tests += [{"id": f"t{n}", "name": f"t{n}", "commands": [cmd("run", f"t{n + 1}")] * 100} for n in range(1, 4)]
    tests.append({"id": "t4", "name": "t4", "commands": [cmd("click", "id=a")]})
    path = write(tmp_path / "p.side", {**_project(), "tests": tests})
    assert main(["import", str(path), "--no-derive", "-o", str(tmp_path / "out")]) == 2
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        f"cannot import {path} (test 't0'): more than 2000 commands played (run and times repeat them), the limit"
    )


def test_an_unknown_command_is_said_never_guessed_and_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    evil = "x\u2028- action: evil\n  do: [{goto: 'http://127.0.0.1:9/'}]"
    path = write(
        tmp_path / "p.side",
        _project(cmd("open", "/"), cmd("clickTwiceQuickly", "id=a"), cmd(evil, "id=b"), cmd("click", "id=c")),
    )
    assert main(["import", str(path), "--no-derive", "-o", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "2 not imported (comments)" in out.splitlines()[0]
    text = next((tmp_path / "out").glob("*.yaml")).read_text()
    comments = [line.strip() for line in text.splitlines() if "not imported" in line]
    assert comments[0] == "# not imported: clickTwiceQuickly id=a (Selenium IDE has no such command: never guessed)"
    assert comments[1].startswith("# not imported: x\\u2028- action: evil\\x0a")
    assert "evil" not in "".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    assert len(parse(text, "w.reuseit.yaml", builtin_names=("base_url", "unique")).workflow.steps) == 1


def test_a_command_of_a_plugin_is_said_naming_the_projects_plugins(tmp_path: Path) -> None:
    """side-runner loads a project's plugins, whose commands it then plays (Selenium IDE's
    plugin.side: customClick): the import runs no plugin's code, and says which it would need."""
    project = _project(cmd("open", "/"), cmd("customClick", "id=a"), plugins=["../dist/plugins/custom-click"])
    (demo,) = _read(tmp_path, project)
    assert _said(demo) == [
        "customClick id=a (not Selenium IDE's: a command of the project's plugins (custom-click) perhaps, whose code "
        "the import does not run: never guessed)"
    ]
    # The browser extension (Selenium IDE 3) named a plugin {id, name, version} (executescript.side).
    project["plugins"] = [{"id": "nknick", "name": "Applitools", "version": "1.0.0"}]
    (demo,) = _read(tmp_path, project)
    assert "(Applitools) perhaps" in _said(demo)[0]


def test_a_password_in_a_command_said_is_not_repeated_in_its_comment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(
        tmp_path / "p.side",
        _project(
            cmd("open", "/"),
            cmd("if", "true"),
            cmd("type", "id=password", "hunter2-secret"),
            cmd("end"),
            cmd("type", "id=user", "ada"),
        ),
    )
    assert main(["import", str(path), "--no-derive", "-o", str(tmp_path / "out")]) == 0
    text = next((tmp_path / "out").glob("*.yaml")).read_text()
    assert "hunter2" not in text + capsys.readouterr().out
    assert "# not imported: type id=password *** (in the 'if true' block" in text


def test_one_test_that_cannot_be_imported_never_stops_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project(cmd("open", "/"), cmd("click", "id=a"))
    project["tests"].insert(0, {"id": "x", "name": "no page", "commands": [cmd("echo", "hi")]})
    path = write(tmp_path / "p.side", project)
    assert main(["import", str(path), "--no-derive", "-o", str(tmp_path / "out")]) == 2
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        f"cannot import {path} (test 'no page'): it does nothing the format can say (1 command not imported)"
    )
    assert lines[1].startswith(f"wrote {tmp_path / 'out' / 't.reuseit.yaml'}: 1 steps")
    assert lines[-1].endswith("; 1 not imported")


def test_a_folder_finds_side_projects(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "suites").mkdir()
    write(tmp_path / "suites" / "a.side", _project(cmd("open", "/"), cmd("click", "id=a")))
    (tmp_path / "suites" / "notes.json").write_text('{"name": "not a project"}')
    assert main(["import", str(tmp_path / "suites"), "--no-derive", "-o", str(tmp_path / "out")]) == 0
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["t.reuseit.yaml"]


# ----------------------------------------------------------------------------- on real pages


@pytest.fixture(scope="module")
def shop() -> Iterator[str]:
    with shop_site() as served:
        yield served.url


def _reuseit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_reuseit.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ},
        timeout=600,
    )


@pytest.fixture(scope="module")
def imported(shop: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """The shop's project imported once, with one run to find each element and one to derive."""
    folder = tmp_path_factory.mktemp("side")
    project = write(folder / "shop.side", shop_project(shop))
    done = _reuseit("import", str(project), "-o", str(folder / "out"), "--runs", "1")
    return folder / "out", done


@pytest.mark.slow
@pytest.mark.browser
def test_a_project_imports_to_workflows_that_pass_on_its_site(
    imported: tuple[Path, subprocess.CompletedProcess[str]], shop: str, page: Page
) -> None:
    out, done = imported
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"wrote {out / 'buy_a_book.reuseit.yaml'}: 11 steps, 8 checks from the source")
    assert "1 not imported (comments), 1 imported with a difference (comments)" in lines[0]
    assert lines[1] == "  suite 'Default Suite' runs 'buy a book', 'search by price' in that order"
    text = (out / "buy_a_book.reuseit.yaml").read_text()
    # A person's locator first where it finds the same element; the recording's after it, in order.
    assert "- {click: {role: button, name: Add to cart}}" in text
    assert text.index("{click: {role: button, name: Add to cart}}") < text.index(
        "{click: {selector: css=#add, nth: 0}}"
    )
    assert "{extract: {into: price, text: {selector: css=#results .price, nth: 0}}}" in text
    assert "expect: {text: {selector: css=#paid, frame:" in text or "Paid by Ada" in text
    assert "- {click: {role: button, name: Empty cart}, dialog: accept}" in text
    assert "# differs from the source: verifyChecked id=gift: Selenium IDE goes on" in text
    for name in ("buy_a_book", "open_the_shop", "search_by_price"):
        result = execute(page, load(out / f"{name}.reuseit.yaml"), builtins={"base_url": shop})
        assert result.status == "passed", (name, result.message)
    assert page.locator("#results").inner_text() == "Emma 4.50"


@pytest.mark.slow
@pytest.mark.browser
def test_its_assertions_fail_when_the_page_breaks_what_they_assert(
    imported: tuple[Path, subprocess.CompletedProcess[str]], page: Page
) -> None:
    out, _ = imported
    with shop_site(broken=True) as broken:
        result = execute(page, load(out / "buy_a_book.reuseit.yaml"), builtins={"base_url": broken.url})
    assert result.status == "failed", result.message
    failed = next(s for s in result.steps if s.status == "failed")
    assert failed.action == 'Click the "Add to cart" button', result.message
    assert "19.98" in (result.message or ""), result.message


@pytest.mark.slow
@pytest.mark.browser
def test_with_its_ids_renamed_the_workflow_still_passes(
    imported: tuple[Path, subprocess.CompletedProcess[str]], page: Page
) -> None:
    out, _ = imported
    renamed = {"q": "query", "add": "add-to-cart", "size": "format", "gift": "wrap", "cart": "basket", "card": "holder"}
    with shop_site(renamed) as site:
        result = execute(page, load(out / "buy_a_book.reuseit.yaml"), builtins={"base_url": site.url})
    assert result.status == "passed", result.message
    assert page.locator("#basket").inner_text() == "Cart is empty"


@pytest.mark.slow
@pytest.mark.browser
def test_written_as_the_recording_says_it_passes_a_rename_through_its_alternatives(
    shop: str, tmp_path: Path, page: Page
) -> None:
    """--no-derive: nothing read from the page, the recording's own locators in their order; with
    the ids renamed the steps recover through the alternatives the file carries (name=, XPath)."""
    project = _project(
        cmd("open", "/shop.html"),
        cmd("type", "id=q", "dune", *SEARCH),
        cmd("sendKeys", "id=q", "${KEY_ENTER}", *SEARCH),
        cmd("click", "id=add", "", *ADD),
        cmd("assertText", "css=#results .price", "9.99"),
        url=shop,
    )
    path = write(tmp_path / "p.side", project)
    done = _reuseit("import", str(path), "-o", str(tmp_path / "out"), "--no-derive")
    assert done.returncode == 0, done.stdout + done.stderr
    loaded = load(tmp_path / "out" / "t.reuseit.yaml")
    assert execute(page, loaded, builtins={"base_url": shop}).status == "passed"
    with shop_site({"q": "query", "add": "add-to-cart"}) as site:
        result = execute(page, loaded, builtins={"base_url": site.url})
    assert result.status == "passed" and result.label == "recovered", result.message
    assert [s.status for s in result.steps] == ["recovered", "recovered"]
    assert page.locator("#query").input_value() == "dune"
    assert page.locator("#cart").inner_text() == "1 × Dune (Paperback)"


@pytest.mark.slow
@pytest.mark.browser
def test_scripts_stored_values_keys_a_list_box_and_a_drag_do_what_the_runner_does(
    shop: str, tmp_path: Path, page: Page
) -> None:
    path = write(tmp_path / "extras.side", extras_project(shop))
    done = _reuseit("import", str(path), "-o", str(tmp_path / "out"), "--runs", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 imported with a difference (comments)" in done.stdout  # addSelection
    text = (tmp_path / "out" / "extras.reuseit.yaml").read_text()
    assert '{extract: {into: m, js: String(document.querySelectorAll("#list li").length)}}' in text
    assert ".apply(null, [\\\"hi 'there'\\\"])" in text  # a known value passed as the script's argument
    result = execute(page, load(tmp_path / "out" / "extras.reuseit.yaml"), builtins={"base_url": shop})
    assert result.status == "passed", result.message
    assert page.locator("#a").input_value() == "3 items"
    assert page.locator("#b").input_value() == "3 in Extras"
    assert page.locator("#c").input_value() == "hi 'there'"
    assert page.locator("#keys").input_value() == "abXc"
    assert page.eval_on_selector("#multi", "s => [...s.selectedOptions].map(o => o.value)") == ["a", "c"]
    assert page.locator("#dropped").inner_text() == "Dropped"


TOTAL = (("id=total", "id"), ("xpath=//p/span[2]", "xpath:position"), ("css=.sum", "css:finder"))


@pytest.mark.browser
def test_a_checks_alternatives_that_find_its_element_are_kept_beside_it(tmp_path: Path, page: Page) -> None:
    """Selenium IDE's runner tries a command's targets when the first finds nothing, asserts too:
    those that find the very same element on the page are kept beside the check's locator (or),
    so a renamed id is survived; one that finds other elements too is left out."""
    from pytest_reuseit.importing.derive import Resolver

    (demo,) = _read(tmp_path, _project(cmd("open", "/"), cmd("assertText", "id=total", "9.99", *TOTAL)))
    step = demo.steps[-1]
    sources = step.check_sources[0]
    assert sources == ["css=#total >> nth=0", "xpath=//p/span[2] >> nth=0", "css=.sum >> nth=0"], sources
    page.set_content('<p><span id="total" class="sum">9.99</span> <span>EUR</span></p>')
    resolver = Resolver([[step]])
    resolver.step_end(page, 0)
    ((_, _, located),) = resolver.checks
    # A text of its own first (a span has no role), then the selectors that find that very span.
    assert located == {
        "text": {
            "text": "9.99",
            "or": {"selector": "css=#total", "nth": 0, "or": {"selector": "css=.sum", "nth": 0}},
            "equals": "9.99",
        }
    }
    for body, status in [
        ('<p><span id="amount" class="sum">9.99</span> <span>EUR</span></p>', "passed"),
        ('<p><span id="amount" class="sum">19.98</span> <span>EUR</span></p>', "failed"),
    ]:
        result = run_on(page, body, look_for(located))
        assert result.status == status, (body, result.message)


def test_assert_and_verify_of_a_stored_variable_compare_it_as_the_runner_does(tmp_path: Path) -> None:
    """side-runtime's assert: the variable named as written, as text, equals the value filled. A
    value read at run time is a variable check of its placeholder; one known when importing
    decides the command here, and is said."""
    project = _project(
        cmd("open", "/"),
        cmd("storeText", "id=price", "price"),
        cmd("assert", "price", "9.99"),
        cmd("verify", "price", "${price}"),
        cmd("store", "EUR", "currency"),
        cmd("assert", "currency", "EUR"),
        cmd("assert", "currency", "USD"),
        cmd("assert", "nothing", "undefined"),
    )
    (demo,) = _read(tmp_path, project)
    checks = [check for step in demo.steps for check in step.checks]
    assert checks[0] == {"variable": {"name": "price", "equals": "9.99"}}
    assert checks[1]["variable"]["name"] == "price" and "price" in checks[1]["variable"]["equals"]
    assert len(checks) == 2
    assert _said(demo) == [
        "assert currency EUR (${currency} is 'EUR' when the test stores it: it holds in every run, nothing to check)",
        "assert currency USD (${currency} is 'EUR' when the test stores it: it never equals 'USD')",
        "assert nothing undefined (${nothing} is not stored before it (the runner compares the text 'undefined'))",
    ]
    path = write(tmp_path / "p.side", project)
    assert main(["import", str(path), "--no-derive", "-o", str(tmp_path / "out")]) == 0
    text = (tmp_path / "out" / "t.reuseit.yaml").read_text()
    assert "- expect: {variable: {name: price, equals: '9.99'}}" in text
    assert "- expect: {variable: {name: price, equals: '{price}'}}" in text
    assert "verify price ${price}: Selenium IDE goes on after a failed verify" in text
