"""Chrome DevTools Recorder recordings (and codegen files) imported to mean what their own tools do.

Each recording is written the way Chrome's Recorder writes it, checked by ``@puppeteer/replay``'s
own parser, and imported against real pages served on 127.0.0.1 (tests/pages/recorded: a
``<select>``, a colour input, an editable note, a pop-up opened by ``window.open``, an iframe, a
context menu and a middle-click handler; TodoMVC for a hash router). The imported workflow is then
run on a fresh page, and the page is asked what state it ended in.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from pytest_reuseit.cli import main
from pytest_reuseit.engine.runner import execute
from pytest_reuseit.importing.chrome import recording as chrome
from pytest_reuseit.importing.chrome.recording import url_pattern
from pytest_reuseit.importing.compose import change_kind
from pytest_reuseit.importing.playwright import codegen
from pytest_reuseit.importing.values import TypedValues, unique_part
from pytest_reuseit.workflow.loader import load, parse
from tests.support.paths import ROOT
from tests.support.routed_run import look_for, run_on
from tests.support.serve import Served, files
from tests.support.todomvc_refactor import make_refactored

PAGES = ROOT / "tests" / "pages" / "recorded"
TODOMVC = ROOT / "node_modules" / "todomvc"
REPLAY = ROOT / "node_modules" / "@puppeteer" / "replay"


def _sel(*selectors: str) -> list[list[str]]:
    return [[s] for s in selectors]


def _click(selectors: list[list[str]], **more: Any) -> dict[str, Any]:
    return {"type": "click", "target": "main", "selectors": selectors, "offsetX": 5, "offsetY": 5, **more}


def _viewport(width: int, height: int, **more: Any) -> dict[str, Any]:
    plain = {"deviceScaleFactor": 1, "isMobile": False, "hasTouch": False, "isLandscape": False}
    return {"type": "setViewport", "width": width, "height": height, **plain, **more}


def _order_recording(site: str) -> dict[str, Any]:
    """Choosing a size, a colour, a code and a note; a note written in a pop-up window; a right and
    a middle click; a payment in an iframe; a scroll; and what replay cannot be told to do here."""
    popup = f"{site}/popup.html"
    size, colour, code = _sel("aria/Size", "#size"), _sel("aria/Colour", "#colour"), _sel("aria/Discount code", "#code")
    area = _sel('aria/Work area[role="region"]', "#area")
    steps = [
        _viewport(1000, 700),
        {
            "type": "navigate",
            "url": f"{site}/index.html",
            "assertedEvents": [{"type": "navigation", "url": f"{site}/index.html", "title": "Order form"}],
        },
        _click(size),
        {"type": "change", "value": "l", "selectors": size, "target": "main"},
        _click(colour),
        {"type": "change", "value": "#333333", "selectors": colour, "target": "main"},
        _click(code),
        {"type": "change", "value": "ABC12345678", "selectors": code, "target": "main"},
        {"type": "change", "value": "Fragile", "selectors": _sel('aria/Notes[role="textbox"]', "#notes")},
        _click(_sel('aria/Open the note window[role="button"]', "#help")),
        {**_click(_sel("aria/Note", "#note")), "target": popup},
        {"type": "change", "value": "Leave at the door", "selectors": _sel("aria/Note", "#note"), "target": popup},
        {**_click(_sel('aria/Send[role="button"]', "body > button")), "target": popup},
        {"type": "close", "target": popup},
        _click(area, button="secondary"),
        _click(area, button="auxiliary"),
        _click(area, button="back"),
        {**_click(_sel("aria/Card holder", "#card")), "frame": [0]},
        {"type": "change", "value": "Ada", "selectors": _sel("aria/Card holder", "#card"), "frame": [0]},
        {**_click(_sel('aria/Pay[role="button"]', "body > button")), "frame": [0]},
        {
            **_click(_sel('aria/Receipt[role="link"]', "a")),
            "frame": [0],
            "assertedEvents": [{"type": "navigation", "url": f"{site}/receipt.html", "title": "Receipt"}],
        },
        {"type": "emulateNetworkConditions", "target": "main", "download": 1000, "upload": 1000, "latency": 40},
        {"type": "customStep", "name": "capture", "parameters": {}, "target": "main"},
        {"type": "scroll", "target": "main", "selectors": _sel('aria/Past orders[role="list"]', "#list"), "y": 120},
        {"type": "scroll", "target": "main", "x": 0, "y": 500},
        {"type": "waitForElement", "target": "main", "selectors": _sel('aria/Context menu[role="menu"]')},
        {"type": "waitForExpression", "expression": "document.querySelector('#size').value === 'l'"},
    ]
    return {"title": "Order with a note", "steps": steps}


def _write(tmp_path: Path, recording: dict[str, Any], name: str = "rec.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(recording, indent=2))
    return path


def _imported(tmp_path: Path, recording: dict[str, Any]) -> Path:
    """The recording written, read by the recorder's own parser, imported with one run of each
    kind; the workflow written."""
    rec = _write(tmp_path, recording)
    assert _replay_parses(rec).returncode == 0
    done = _reuseit("import", str(rec), "-o", str(tmp_path / "out"), "--runs", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    (written,) = (tmp_path / "out").glob("*.reuseit.yaml")
    return written


def _replay_parses(path: Path) -> subprocess.CompletedProcess[str]:
    """The recorder's own parser on the file (``@puppeteer/replay``'s ``parse``)."""
    script = "require('@puppeteer/replay').parse(JSON.parse(require('fs').readFileSync(process.argv[1])))"
    return subprocess.run(["node", "-e", script, str(path)], capture_output=True, text=True, cwd=ROOT, timeout=60)


needs_replay = pytest.mark.skipif(not REPLAY.is_dir(), reason="@puppeteer/replay is not installed: bash ci/install.sh")


# ----------------------------------------------------------------------------- what each step becomes


def test_each_step_type_becomes_what_replay_does_or_is_said(tmp_path: Path) -> None:
    demo = chrome.read(_write(tmp_path, _order_recording("http://127.0.0.1:1")))
    kinds = [s.kind for s in demo.steps]
    assert kinds == [
        *("goto", "change", "change", "change", "change", "click"),  # the clicks that only focused: folded
        *("switch", "change", "click", "close_page"),  # the pop-up's steps, on the pop-up
        *("click", "click"),  # its opener is current again once it closed
        *("change", "click", "click", "scroll", "eval"),  # in the frame; a list, then the window scrolled
    ]
    assert demo.browser == {"viewport": {"width": 1000, "height": 700}}
    assert demo.steps[6].value == "http://127.0.0.1:1/popup.html"
    assert [s.button for s in demo.steps if s.kind == "click"][-4:] == ["right", "middle", "", ""]
    assert demo.steps[-1].value == "window.scroll(0, 500)"
    assert (demo.steps[-2].kind, demo.steps[-2].value) == ("scroll", "0, 120")
    # The frame: its place among the page's frames, then the element inside it.
    assert demo.steps[12].target is not None
    assert (
        demo.steps[12].target.selectors[0]
        == 'iframe >> nth=0 >> internal:control=enter-frame >> internal:label="Card holder"s'
    )
    said = [u for s in demo.steps for u in s.unexpressed]
    assert len(said) == 4, said
    assert any("back mouse button" in u for u in said)
    assert any("navigation of the frame [0]" in u for u in said)  # not a check of the page's URL
    assert any(u.startswith("emulateNetworkConditions") for u in said)
    assert any(u.startswith("customStep 'capture'") for u in said)
    assert not any("url" in c for s in demo.steps[12:] for c in s.checks)
    assert demo.steps[-1].checks == [
        {"count": {"role": "menu", "name": "Context menu", "exact": True, "min": 1}},
        {"js": "document.querySelector('#size').value === 'l'"},
    ]


@pytest.mark.parametrize(
    ("facts", "kind"),
    [
        ({"tag": "select"}, "select"),
        ({"tag": "input", "type": ""}, "fill"),
        ({"tag": "input", "type": "color"}, "fill"),
        ({"tag": "textarea"}, "fill"),
        ({"tag": "div", "editable": "true"}, "fill"),
        ({"tag": "input", "type": "checkbox"}, "change"),  # replay sets its value: it does not tick it
        ({}, "change"),  # never seen: the op that does what replay does
    ],
)
def test_a_change_is_what_its_element_takes(facts: dict[str, str], kind: str) -> None:
    assert change_kind(facts) == kind


def test_keys_fold_with_the_modifiers_held_and_a_long_press_is_said(tmp_path: Path) -> None:
    keys = [("keyDown", "Control"), ("keyDown", "a"), ("keyUp", "a"), ("keyUp", "Control")]
    keys += [("keyDown", "Shift"), ("keyUp", "Shift"), ("keyUp", "Tab")]
    steps = [{"type": "navigate", "url": "http://127.0.0.1:1/"}]
    steps += [{"type": t, "target": "main", "key": k} for t, k in keys]
    steps += [_click(_sel("#a"), duration=80), _click(_sel("#b"), duration=900)]
    demo = chrome.read(_write(tmp_path, {"title": "keys", "steps": steps}))
    assert [(s.kind, s.value) for s in demo.steps[1:3]] == [("press", "Control+a"), ("press", "Shift")]
    assert demo.steps[2].unexpressed == ["keyUp Tab with no keyDown before it"]
    assert not demo.steps[3].unexpressed  # a click held 80 ms is a click
    assert demo.steps[4].unexpressed == ["click held down 900 ms (a long press: the click here is a short one)"]


def test_a_navigation_is_checked_whatever_its_fragment() -> None:
    pattern = url_pattern("http://127.0.0.1:8000/examples/vanillajs/index.html#/")
    assert pattern == r"^http://127.0.0.1:8000/examples/vanillajs/index\.html(#.*)?$"
    assert re.search(pattern, "http://127.0.0.1:8000/examples/vanillajs/index.html")
    assert re.search(pattern, "http://127.0.0.1:8000/examples/vanillajs/index.html#/active")
    assert not re.search(pattern, "http://127.0.0.1:8000/examples/vanillajs/index.html?x=1")
    assert not re.search(pattern, "http://127.0.0.1:8000/examples/vanillajs/other.html")


@pytest.mark.parametrize(
    ("value", "facts", "unique"),
    [
        ("#333333", {"tag": "input", "type": "color"}, None),
        ("#333333", {}, None),
        ("1234567.89", {}, None),
        ("ABC12345678", {}, None),
        ("0612345678", {"tag": "input", "type": "tel"}, None),
        ("1764201234567", {"tag": "select"}, None),  # an option of a select is chosen, not made
        ("Acme 1764201234567", {}, "1764201234567"),  # Date.now()
        ("Acme 1764201234", {}, "1764201234"),  # time.time()
        ("user-3f9a1c2b", {}, "3f9a1c2b"),
    ],
)
def test_digits_alone_do_not_make_a_value_unique(value: str, facts: dict[str, str], unique: str | None) -> None:
    assert unique_part(value, facts) == unique
    written = TypedValues().typed(value, facts, [])
    assert ("{unique}" in written) is (unique is not None)


# ----------------------------------------------------------------------------- wrong field types


def _import(tmp_path: Path, *args: str) -> int:
    return main(["import", *args, "-o", str(tmp_path / "out"), "--no-derive"])


def _base(*steps: Any) -> dict[str, Any]:
    return {"title": "t", "steps": [{"type": "navigate", "url": "http://127.0.0.1:1/"}, *steps]}


@pytest.mark.parametrize(
    ("recording", "says"),
    [
        (_base(_click("#add")), "selectors must be a non-empty list of selectors"),  # not clicks on '#', 'a', 'd'
        (_base(_click([])), "selectors must be a non-empty list"),
        ({"title": "t", "steps": [{"type": "navigate", "url": 5}]}, "url must be a string, got int 5"),
        (_base(_click(_sel("#a"), frame="x")), "frame must be a list of whole numbers, got str 'x'"),
        (_base(_click(_sel("#a"), frame=[True])), "frame must be a list of whole numbers"),
        (_base({"type": "waitForElement", "selectors": _sel("#a"), "count": "x"}), "count must be a number"),
        (
            _base({"type": "waitForElement", "selectors": _sel("#a"), "visible": "false"}),
            "visible must be true or false",
        ),
        (_base({"type": "waitForElement", "selectors": _sel("#a"), "operator": ">"}), "operator must be one of"),
        (_base({"type": "change", "selectors": _sel("#a"), "value": 5}), "value must be a string, got int 5"),
        (_base({"type": "click", "selectors": _sel("#a")}), "offsetX must be a number, got missing"),
        (_base(_click(_sel("#a"), button="left")), "button must be one of primary, auxiliary, secondary"),
        (_base(_click(_sel("#a"), target=3)), "target must be a string"),
        (_base(_click(_sel("#a"), assertedEvents=[{"type": "navigation", "url": 1}])), "assertedEvents must be"),
        (_base({"type": "keyDown", "key": ["Enter"]}), "key must be a string"),
        (_base({"type": "setViewport", "width": "800", "height": 600}), "width must be a number"),
        (_base("click #add"), "steps[1] is not a mapping but str"),
        ({"title": 7, "steps": []}, "the recording's title is not a string"),
    ],
)
def test_a_field_of_the_wrong_type_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], recording: dict[str, Any], says: str
) -> None:
    path = _write(tmp_path, recording)
    assert _import(tmp_path, str(path)) == 2
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    (line,) = out.out.splitlines()[:1]
    assert line.startswith(f"cannot import {path}") and says in line, line
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("action", "says"),
    [
        ({"name": "assertChecked", "selector": "#a", "checked": "false"}, "checked must be bool, got str 'false'"),
        ({"name": "navigate", "url": 5}, "url must be str, got int 5"),
        ({"name": "click", "selector": ["#", "a"]}, "selector must be str, got list"),
        ({"name": "select", "selector": "#a", "options": "ab"}, "options must be list, got str"),
    ],
)
def test_a_codegen_field_of_the_wrong_type_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], action: dict[str, Any], says: str
) -> None:
    path = tmp_path / "rec.jsonl"
    lines = [{"name": "navigate", "url": "http://127.0.0.1:1/", "signals": []}, {**action, "signals": []}]
    path.write_text("\n".join(json.dumps(x) for x in lines))
    assert _import(tmp_path, str(path)) == 2
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith(f"cannot import {path}:2") and says in line, line


def test_codegen_keeps_the_pages_and_the_mouse_button(tmp_path: Path) -> None:
    act = {"signals": []}
    lines = [
        {"name": "openPage", "url": "about:blank", "pageGuid": "p0", **act},
        {"name": "navigate", "url": "http://127.0.0.1:1/", "pageGuid": "p0", **act},
        {"name": "click", "selector": "#help", "pageGuid": "p0", "signals": [{"name": "popup", "popupAlias": "page1"}]},
        {"name": "openPage", "url": "about:blank", "pageGuid": "p1", **act},
        {"name": "fill", "selector": "#note", "text": "hi", "pageGuid": "p1", **act},
        {"name": "click", "selector": "#area", "button": "right", "clickCount": 1, "pageGuid": "p0", **act},
        {"name": "click", "selector": "#area", "modifiers": 8, "clickCount": 1, "pageGuid": "p0", **act},
        {"name": "closePage", "pageGuid": "p1", **act},
    ]
    path = tmp_path / "rec.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines))
    demo = codegen.read(path)
    assert [(s.kind, s.value, s.button) for s in demo.steps] == [
        ("goto", "http://127.0.0.1:1/", ""),
        ("click", "", ""),  # new_page: the pop-up is current after it
        ("fill", "hi", ""),
        ("switch", "main", ""),
        ("click", "", "right"),
        ("switch", "1", ""),
        ("close_page", "", ""),
    ]
    assert demo.steps[1].new_page
    assert demo.steps[4].unexpressed == ["click on #area with Shift held (not in the format)"]


# ----------------------------------------------------------------------------- on real pages


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with Served(files(PAGES)) as served:
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


@pytest.mark.slow
@pytest.mark.browser
@needs_replay
def test_a_recording_with_a_select_a_popup_an_iframe_and_mouse_buttons_ends_in_its_state(
    site: str, tmp_path: Path, page: Page
) -> None:
    rec = _write(tmp_path, _order_recording(site))
    assert _replay_parses(rec).returncode == 0
    out = tmp_path / "out"
    done = _reuseit("import", str(rec), "-o", str(out), "--runs", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    # One run to find each element (the change steps run as replay runs them), one to derive.
    assert "4 calls, steps or assertions not imported (comments in the files)" in done.stdout, done.stdout
    assert "0 unique values; 2 runs" in done.stdout, done.stdout
    (written,) = out.glob("*.reuseit.yaml")
    text = written.read_text()
    assert "{select: {label: Size, option: '{size}'}}" in text and "size: l\n" in text
    assert "colour: '#333333'" in text and "discount_code: ABC12345678" in text
    assert "browser: {viewport: {width: 1000, height: 700}}" in text
    assert "{switch_page: {url: {equals: '{base_url}/popup.html'}}}" in text and "- close_page" in text
    assert "button: right}" in text and "button: middle}" in text
    assert "# not imported: click with the back mouse button" in text
    assert "# not imported: assertedEvents navigation of the frame [0]" in text
    assert "{eval: 'window.scroll(0, 500)'}" in text
    assert "{scroll: {role: list, name: Past orders, left: 0, top: 120}}" in text

    result = execute(page, load(written), builtins={"base_url": site})
    assert result.status == "passed", result.message
    # The state the recording left the page in, read from the page itself.
    state = page.locator("#state").inner_text()
    assert state == "Size: l; Colour: #333333; Code: ABC12345678; Notes: Fragile"
    assert page.locator("#from-popup").inner_text() == "Note: Leave at the door"
    assert page.locator("#menu").is_visible()
    assert page.locator("#clicks").inner_text() == "Clicks: right, middle"
    frame = page.frame_locator("#pay")
    assert frame.locator("h2").inner_text() == "Receipt"  # paid, then the receipt opened in the frame
    assert page.evaluate("window.scrollY") == 500
    assert page.evaluate("document.querySelector('#list').scrollTop") == 120
    assert len(page.context.pages) == 1  # the pop-up was closed


def _todo_recording(site: str, *, landed: str) -> dict[str, Any]:
    app = f"{site}/examples/vanillajs/index.html"
    new_todo = _sel('aria/What needs to be done?[role="textbox"]', "#new-todo")
    return {
        "title": "Add a todo and show the active ones",
        "steps": [
            _viewport(1000, 700),
            {
                "type": "navigate",
                "url": app,
                "assertedEvents": [{"type": "navigation", "url": landed, "title": "VanillaJS • TodoMVC"}],
            },
            _click(new_todo),
            {"type": "change", "value": "water the plants", "selectors": new_todo, "target": "main"},
            {"type": "keyDown", "target": "main", "key": "Enter"},
            {"type": "keyUp", "target": "main", "key": "Enter"},
            _click(
                _sel('aria/Active[role="link"]', 'a[href="#/active"]'),
                assertedEvents=[{"type": "navigation", "url": f"{app}#/active", "title": "VanillaJS • TodoMVC"}],
            ),
            {"type": "waitForElement", "selectors": _sel("#todo-list li"), "operator": "==", "count": 1},
        ],
    }


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.skipif(not (TODOMVC / "examples").is_dir(), reason="TodoMVC is not installed: bash ci/install.sh")
def test_a_navigation_on_a_hash_routed_app_is_waited_for_not_compared_to_its_fragment(tmp_path: Path) -> None:
    with Served(files(TODOMVC)) as todo:
        app = f"{todo.url}/examples/vanillajs/index.html"
        # Recorded with the router's "#/" in the address; the page opened has none.
        rec = _write(tmp_path, _todo_recording(todo.url, landed=f"{app}#/"))
        done = _reuseit("import", str(rec), "-o", str(tmp_path / "out"), "--runs", "1")
        assert done.returncode == 0, done.stdout + done.stderr
        text = next((tmp_path / "out").glob("*.reuseit.yaml")).read_text()
        assert r"url: {matches: '^{base_url}/examples/vanillajs/index\.html(#.*)?$'}" in text
        # A navigation that landed on another document is still told apart: the import says it failed.
        wrong = _write(
            tmp_path, _todo_recording(todo.url, landed=f"{todo.url}/examples/vanillajs/other.html"), "w.json"
        )
        failed = _reuseit("import", str(wrong), "-o", str(tmp_path / "out2"), "--runs", "1")
        assert failed.returncode == 1, failed.stdout + failed.stderr
        assert "does not pass on the site: run 1 of 1: step 1" in failed.stdout, failed.stdout
        assert "other" in failed.stdout


@pytest.mark.slow
@pytest.mark.browser
@needs_replay
def test_a_name_the_recorder_computed_is_tried_as_replay_tries_it(site: str, tmp_path: Path, page: Page) -> None:
    """``aria/Select`` names a ``<select>`` inside its label as Chrome computes its name; the
    label's text Playwright reads holds the options too ("Select ApplePear"). The recorder's name
    is kept as the element's role and that name, since it finds the same element; the label's text
    with the options in it is written nowhere, and the workflow chooses the pear."""
    fruit = _sel("aria/Select", "#fruit")
    recording = {
        "title": "Choose a pear",
        "steps": [
            {"type": "navigate", "url": f"{site}/labelled.html"},
            _click(fruit),
            {"type": "change", "value": "pear", "selectors": fruit, "target": "main"},
        ],
    }
    written = _imported(tmp_path, recording)
    text = written.read_text()
    assert "- {select: {role: combobox, name: Select, exact: true, option: '{select}'}}" in text, text
    assert "ApplePear" not in text, text
    assert "{select: {selector: '#fruit', option: '{select}'}}" in text  # the recording's own, a fallback
    result = execute(page, load(written), builtins={"base_url": site})
    assert result.status == "passed", result.message
    assert page.locator("#out").inner_text() == "Chosen: pear"


@pytest.mark.slow
@pytest.mark.browser
@needs_replay
def test_a_target_that_is_a_frame_is_looked_in_as_replay_looks_for_it(site: str, tmp_path: Path, page: Page) -> None:
    """Chrome's recorder names an out-of-process iframe by its URL as the steps' ``target``, as it
    names a pop-up; replay looks for a page of that URL, then for a frame of it. The steps are
    found inside the frame (no pop-up waited for), and the frame's other host is the workflow's."""
    frame_url = site.replace("127.0.0.1", "localhost") + "/frame.html"
    card, pay = _sel("aria/Card holder", "#card"), _sel('aria/Pay[role="button"]', "body > button")
    recording = {
        "title": "Pay in the frame",
        "steps": [
            {"type": "navigate", "url": f"{site}/oopif.html"},
            {**_click(card), "target": frame_url},
            {"type": "change", "value": "Ada", "selectors": card, "target": frame_url},
            {**_click(pay), "target": frame_url},
            {"type": "waitForElement", "selectors": _sel("text/Paid by Ada"), "target": frame_url},
            {**_click(_sel('aria/Checkout[role="heading"]', "h1")), "target": "main"},
        ],
    }
    written = _imported(tmp_path, recording)
    text = written.read_text()
    assert "switch_page" not in text and "allowed_domains: ['{base_url}', localhost]" in text, text
    inside = "frame: {title: Payment, exact: true}"
    assert f"{{change: {{label: Card holder, exact: true, {inside}, value: '{{value}}'}}}}" in text, text
    assert f"{{click: {{role: button, name: Pay, exact: true, {inside}}}}}" in text, text
    assert f"{{count: {{text: Paid by Ada, min: 1, {inside}}}}}" in text, text
    result = execute(page, load(written), builtins={"base_url": site})
    assert result.status == "passed", result.message
    assert page.frame_locator("#pay").locator("#paid").inner_text() == "Paid by Ada"


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.skipif(not (TODOMVC / "examples").is_dir(), reason="TodoMVC is not installed: bash ci/install.sh")
def test_a_recordings_checks_are_located_as_its_steps_and_outlive_a_refactor(tmp_path: Path, page: Page) -> None:
    """A check on the field a step typed into gets the step's locator (the recording's selector
    kept beside it, ``or``); a check on the list by its id gets the list's role: after a refactor
    that renames both ids the workflow still passes, where the recording's own selectors fail."""
    refactored = make_refactored(TODOMVC, tmp_path / "refactored" / "todomvc")
    with Served(files(TODOMVC)) as todo, Served(files(refactored)) as after:
        app = f"{todo.url}/examples/vanillajs/index.html"
        recording = _todo_recording(todo.url, landed=f"{app}#/")
        recording["steps"][6:6] = [{"type": "waitForElement", "selectors": _sel("#new-todo")}]
        written = _imported(tmp_path, recording)
        text = written.read_text()
        field = "{count: {role: textbox, name: What needs to be done?, or: '#new-todo', min: 1}}"
        assert field in text, text
        assert "or: '#todo-list li', equals: 1}}" in text and "{count: {selector: '#todo-list li'" not in text, text
        result = execute(page, load(written), builtins={"base_url": after.url})
        assert result.status in ("passed", "recovered"), result.message


# ----------------------------------------------------------------------------- the format's additions


def _run(page: Page, site: str, steps: str) -> Any:
    text = f"name: n\ntask: t\nstart_url: {site}/index.html\nsettings: {{action_timeout: 2, check_timeout: 1}}\n"
    return execute(page, parse(text + steps, "w.reuseit.yaml"))


@pytest.mark.browser
def test_the_change_op_does_what_replay_does_with_each_element(site: str, page: Page) -> None:
    result = _run(
        page,
        site,
        """steps:
  - action: Change each field as the recorder replays it
    do:
      - change: {selector: '#size', value: m}
      - change: {label: Colour, value: '#333333'}
      - change: {label: Discount code, value: SPRING}
      - change: {label: Discount code, value: SPRING24}
      - change: {role: textbox, name: Notes, value: Fragile}
""",
    )
    assert result.status == "passed", result.message
    assert page.locator("#state").inner_text() == "Size: m; Colour: #333333; Code: SPRING24; Notes: Fragile"


@pytest.mark.browser
def test_the_change_op_on_no_field_fails_saying_so(site: str, page: Page) -> None:
    result = _run(
        page, site, "steps:\n  - action: Change the area\n    do: [{change: {selector: '#area', value: x}}]\n"
    )
    assert result.status == "failed"
    assert "the element cannot be filled out" in (result.steps[0].error or ""), result.steps[0].error


@pytest.mark.browser
def test_a_click_keeps_its_mouse_button(site: str, page: Page) -> None:
    result = _run(
        page,
        site,
        """steps:
  - action: Right-click, then middle-click the work area
    do:
      - {click: '#area', button: right}
      - {click: '#area', button: middle}
    post:
      - expect: {visible: {role: menu, name: Context menu}}
      - expect: {text: {selector: '#clicks', equals: 'Clicks: right, middle'}}
""",
    )
    assert result.status == "passed", result.message


def test_a_button_goes_only_with_a_click() -> None:
    text = "name: n\ntask: t\nstart_url: http://127.0.0.1:1/\nsteps:\n  - action: a\n    do: [{fill: {selector: '#a', value: x}, button: right}]\n"
    with pytest.raises(Exception, match="'button' goes with click, dblclick, mouse_down, mouse_up, not with 'fill'"):
        parse(text, "w.reuseit.yaml")
    with pytest.raises(Exception, match="button"):
        parse(
            text.replace("{fill: {selector: '#a', value: x}, button: right}", "{click: '#a', button: back}"),
            "w.reuseit.yaml",
        )


@pytest.mark.slow
@pytest.mark.browser
def test_switch_page_waits_for_a_pop_up_still_opening(site: str, page: Page) -> None:
    result = _run(
        page,
        site,
        """steps:
  - action: Open the note window, then write in it
    do:
      - eval: "setTimeout(() => window.open('popup.html'), 500)"
      - switch_page: {url: {equals: '"""
        + site
        + """/popup.html'}}
      - fill: {label: Note, value: hello}
      - click: {role: button, name: Send}
      - switch_page: main
    post:
      - expect: {text: {selector: '#from-popup', equals: 'Note: hello'}}
""",
    )
    assert result.status == "passed", result.message


def test_a_traced_click_keeps_its_mouse_button() -> None:
    from pytest_reuseit.importing.playwright.trace import _action_step

    right = _action_step("Frame", "click", {"selector": "#area", "button": "right"}, "")
    middle = _action_step("Frame", "dblclick", {"selector": "#area", "button": "middle"}, "")
    plain = _action_step("Frame", "click", {"selector": "#area", "button": "left"}, "")
    assert right is not None and middle is not None and plain is not None
    assert (right.kind, right.button, middle.kind, middle.button, plain.button) == (
        "click",
        "right",
        "dblclick",
        "middle",
        "",
    )


def test_a_traced_list_box_keeps_every_option_it_chose_and_a_choice_by_position_is_said() -> None:
    from pytest_reuseit.importing.playwright.calls import not_imported
    from pytest_reuseit.importing.playwright.trace import _action_step

    several = {"selector": "#extras", "options": [{"valueOrLabel": "wrap"}, {"label": "Insurance"}]}
    one = {"selector": "#size", "options": [{"valueOrLabel": "l"}]}
    step, single = _action_step("Frame", "selectOption", several, ""), _action_step("Frame", "selectOption", one, "")
    assert step is not None and single is not None
    assert (step.options, step.value, single.options, single.value) == (
        ("wrap", "Insurance"),
        "wrap, Insurance",
        (),
        "l",
    )
    by_index = {"selector": "#size", "options": [{"index": 2}]}
    for params in (by_index, {"selector": "#extras", "options": []}):
        assert _action_step("Frame", "selectOption", params, "") is None
    assert not_imported("Frame", "selectOption", by_index) == (
        'locator(#size).selectOption({"options": [{"index": 2}]}) (options chosen by position or an element, '
        "or none: the format chooses options by label or value)"
    )


def test_codegen_keeps_every_option_of_a_list_box_and_says_a_deselection(tmp_path: Path) -> None:
    act = {"signals": []}
    lines = [
        {"name": "openPage", "url": "about:blank", "pageGuid": "p0", **act},
        {"name": "navigate", "url": "http://127.0.0.1:1/extras.html", "pageGuid": "p0", **act},
        {"name": "select", "selector": "#extras", "options": ["Gift wrap", "ins"], "pageGuid": "p0", **act},
        {"name": "select", "selector": "#extras", "options": [], "pageGuid": "p0", **act},
    ]
    path = tmp_path / "rec.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines))
    demo = codegen.read(path)
    assert [(s.kind, s.options) for s in demo.steps] == [("goto", ()), ("select", ("Gift wrap", "ins"))]
    assert demo.steps[-1].unexpressed == ["every option of #extras deselected (not in the format)"]


@pytest.mark.slow
@pytest.mark.browser
def test_a_list_box_recorded_by_codegen_chooses_every_option_again(site: str, tmp_path: Path, page: Page) -> None:
    act = {"signals": []}
    lines = [
        {"name": "openPage", "url": "about:blank", "pageGuid": "p0", **act},
        {"name": "navigate", "url": f"{site}/extras.html", "pageGuid": "p0", **act},
        {"name": "select", "selector": "#extras", "options": ["Gift wrap", "ins"], "pageGuid": "p0", **act},
        {"name": "assertText", "selector": "#chosen", "text": "Chosen: wrap, ins", "substring": False, **act},
    ]
    rec = tmp_path / "extras.jsonl"
    rec.write_text("\n".join(json.dumps(x) for x in lines))
    out = tmp_path / "out"
    done = _reuseit("import", str(rec), "-o", str(out), "--runs", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    (written,) = out.glob("*.reuseit.yaml")
    text = written.read_text()
    assert "option: [Gift wrap, ins]" in text, text
    result = execute(page, load(written), builtins={"base_url": site})
    assert result.status == "passed", result.message
    assert page.locator("#chosen").inner_text() == "Chosen: wrap, ins"


def test_the_recordings_timeouts_are_how_long_the_workflow_waits(tmp_path: Path) -> None:
    recording = {
        "title": "slow site",
        "timeout": 20000,
        "steps": [
            {"type": "navigate", "url": "http://127.0.0.1:1/"},
            {**_click(_sel("#slow")), "timeout": 25000},
            {"type": "waitForElement", "selectors": _sel("#done"), "timeout": 30000},
            _click(_sel("#quick")),
        ],
    }
    assert _import(tmp_path, str(_write(tmp_path, recording))) == 0
    text = (tmp_path / "out" / "slow_site.reuseit.yaml").read_text()
    # replay waits up to 20 s for each step, 25 s and 30 s for the two that say so.
    assert "settings: {action_timeout: 20, check_timeout: 20, step_timeout: 40}" in text
    assert "- {click: '#slow', timeout: 25}" in text
    assert "- expect: {count: {selector: '#done', min: 1}}\n        timeout: 30" in text
    assert "- {click: '#quick'}" in text


@pytest.mark.parametrize("timeout", [0, 40000, "5000"])
def test_a_timeout_replay_refuses_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], timeout: Any) -> None:
    recording = _base({**_click(_sel("#a")), "timeout": timeout})
    assert _import(tmp_path, str(_write(tmp_path, recording))) == 2
    assert "timeout must be a number of milliseconds from 1 to 30000" in capsys.readouterr().out


@pytest.mark.browser
def test_a_wait_for_an_element_tries_the_recordings_alternatives_as_replay_does(tmp_path: Path, page: Page) -> None:
    """replay waits for the first of a step's selectors that finds an element: the check holds when
    the first is gone (an id renamed) and another still finds it, and fails when none does."""
    rec = tmp_path / "rec.json"
    waits = {"type": "waitForElement", "selectors": _sel("#saved", 'aria/Saved[role="button"]', "p.note")}
    rec.write_text(json.dumps(_base(waits)))
    (check,) = chrome.read(rec).steps[0].checks
    assert check == {
        "count": {
            "selector": "#saved",
            "or": {"role": "button", "name": "Saved", "exact": True, "or": "p.note"},
            "min": 1,
        }
    }
    # A count other than "at least one" is the first selector's, as replay counts it.
    rec.write_text(json.dumps(_base({**waits, "operator": "==", "count": 2})))
    assert chrome.read(rec).steps[0].checks == [{"count": {"selector": "#saved", "equals": 2}}]

    first = run_on(page, '<button id="saved-2">Saved</button>', look_for(check))
    assert first.status == "passed", first.message
    assert run_on(page, '<p class="note">Saved</p>', look_for(check)).status == "passed"
    failed = run_on(page, "<button>Not saved</button><p>Saved</p>", look_for(check))
    assert failed.status == "failed", failed.message
