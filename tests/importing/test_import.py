"""reuseit import, piece by piece: selectors, assertions, typed values, traces Playwright wrote
here, the assertions the import added to the format judged in a real page, and bad input.

The whole command on real suites (Playwright Test, pytest-playwright, Chrome recordings, codegen)
against real applications is in test_import_suites.py.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from pytest_reuseit.browser.assertions import check_expect
from pytest_reuseit.browser.session import BrowserSession, NavigationFence
from pytest_reuseit.cli import main
from pytest_reuseit.importing.chrome import recording as chrome
from pytest_reuseit.importing.demo import UnreadableInput
from pytest_reuseit.importing.playwright import codegen, trace
from pytest_reuseit.importing.playwright.expects import from_playwright
from pytest_reuseit.importing.playwright.snapshots import FrameSnapshots
from pytest_reuseit.importing.selectors import from_puppeteer, is_person_form, to_loc
from pytest_reuseit.importing.values import TypedValues, unique_part
from pytest_reuseit.workflow.checks import Expect
from pytest_reuseit.workflow.loader import parse
from pytest_reuseit.workflow.placeholders import Values
from tests.support.paths import TESTS
from tests.support.routed_run import run_on

# ----------------------------------------------------------------------------- selectors


@pytest.mark.parametrize(
    ("selector", "loc"),
    [
        ('internal:role=button[name="Add"i]', {"role": "button", "name": "Add"}),
        ('internal:role=button[name="Add"s]', {"role": "button", "name": "Add", "exact": True}),
        ('internal:label="Email"i', {"label": "Email"}),
        ('internal:attr=[placeholder="What needs to be done?"i]', {"placeholder": "What needs to be done?"}),
        ('internal:testid=[data-testid="todo-title"s]', {"test_id": "todo-title"}),
        ('internal:text="Sign in"s', {"text": "Sign in", "exact": True}),
        ("#new-todo", {"selector": "#new-todo"}),
        ("#todo-list li >> nth=1", {"selector": "#todo-list li", "nth": 1}),
        (
            'internal:role=listitem >> internal:has-text="milk"i >> internal:role=checkbox',
            {"role": "checkbox", "within": {"role": "listitem", "has_text": "milk"}},
        ),
        (
            '#pay >> internal:control=enter-frame >> internal:role=button[name="Pay"i]',
            {"role": "button", "name": "Pay", "frame": {"selector": "#pay"}},
        ),
        ("internal:role=checkbox[checked=true]", {"selector": "internal:role=checkbox[checked=true]"}),
    ],
)
def test_playwright_selectors_become_the_locators_a_person_writes(selector: str, loc: dict[str, Any]) -> None:
    assert to_loc(selector) == loc


def test_a_locator_inside_a_css_container_is_not_a_persons() -> None:
    assert is_person_form({"role": "checkbox", "within": {"role": "listitem"}})
    assert not is_person_form({"role": "checkbox", "within": {"selector": "#todo-list"}})
    assert not is_person_form({"selector": "#todo-list li"})


@pytest.mark.parametrize(
    ("selector", "field", "expected"),
    [
        ('aria/Save[role="button"]', False, 'internal:role=button[name="Save"s]'),
        ("aria/Username:", True, 'internal:label="Username:"s'),
        ("aria/Clear completed", False, 'internal:text="Clear completed"s'),
        ('xpath///*[@id="q"]', False, 'xpath=//*[@id="q"]'),
        ("pierce/#id_name", False, "#id_name"),
        ("text/Log in", False, 'internal:text="Log in"'),
        ("#id_username", False, "#id_username"),
        ("::-p-aria(Save)", False, None),
    ],
)
def test_chrome_recorder_selectors_become_playwright_selectors(
    selector: str, field: bool, expected: str | None
) -> None:
    assert from_puppeteer(selector, field=field) == expected


# ----------------------------------------------------------------------------- assertions


def _expect(params: dict[str, Any]) -> dict[str, Any] | None:
    return from_playwright(params)[0]


def test_playwright_expects_become_dom_checks_with_their_not_variants() -> None:
    text = [{"string": "1 item left", "normalizeWhiteSpace": True}]
    assert _expect({"selector": "#c", "expression": "to.have.text", "expectedText": text, "isNot": False}) == {
        "text": {"selector": "#c", "equals": "1 item left"}
    }
    assert _expect({"selector": "#c", "expression": "to.have.text", "expectedText": text, "isNot": True}) == {
        "not": {"text": {"selector": "#c", "equals": "1 item left"}}
    }
    assert _expect({"selector": "#c", "expression": "to.be.visible", "isNot": True}) == {"hidden": {"selector": "#c"}}
    assert _expect({"selector": "#c", "expression": "to.be.checked", "isNot": False}) == {"checked": {"selector": "#c"}}
    unchecked = {"value": {"o": [{"k": "checked", "v": {"b": False}}]}, "handles": []}
    assert _expect({"selector": "#c", "expression": "to.be.checked", "expectedValue": unchecked, "isNot": False}) == {
        "unchecked": {"selector": "#c"}
    }
    assert _expect({"selector": "li", "expression": "to.have.count", "expectedNumber": 3, "isNot": False}) == {
        "count": {"selector": "li", "equals": 3}
    }
    many = [{"string": "a", "normalizeWhiteSpace": True}, {"string": "b  c", "normalizeWhiteSpace": True}]
    assert _expect({"selector": "li", "expression": "to.have.text.array", "expectedText": many, "isNot": False}) == {
        "texts": {"selector": "li", "equals": ["a", "b c"]}
    }
    regex = [{"regexSource": "#\\/active$", "regexFlags": ""}]
    assert _expect({"expression": "to.have.url", "expectedText": regex, "isNot": False}) == {
        "url": {"matches": "#\\/active$"}
    }
    assert _expect({"selector": "#q", "expression": "to.be.empty", "isNot": False}) == {"empty": {"selector": "#q"}}
    assert _expect(
        {"selector": "li", "expression": "to.have.class", "expectedText": [{"string": "completed"}], "isNot": False}
    ) == {"attribute": {"selector": "li", "attr": "class", "equals": "completed"}}


def test_states_class_lists_and_attribute_presence_become_dom_checks() -> None:
    assert _expect({"selector": "#e", "expression": "to.be.attached", "isNot": True}) == {
        "detached": {"selector": "#e"}
    }
    assert _expect({"selector": "#e", "expression": "to.be.focused", "isNot": True}) == {
        "not": {"focused": {"selector": "#e"}}
    }
    assert _expect({"selector": "#e", "expression": "to.be.readonly", "isNot": False}) == {
        "not": {"editable": {"selector": "#e"}}
    }
    assert _expect({"selector": "#e", "expression": "to.have.attribute", "expressionArg": "disabled"}) == {
        "attribute": {"selector": "#e", "attr": "disabled", "matches": "^"}
    }
    classes = [{"string": "completed"}, {"string": ""}]
    params = {"selector": "li", "expression": "to.have.class.array", "expectedText": classes}
    assert from_playwright(params)[0] == [
        {"count": {"selector": "li", "equals": 2}},
        {"attribute": {"selector": "li", "nth": 0, "attr": "class", "equals": "completed"}},
        {"not": {"attribute": {"selector": "li", "nth": 1, "attr": "class", "matches": "\\S"}}},
    ]
    # Its not. is "one of them differs": not a list of checks that all hold.
    assert from_playwright({**params, "isNot": True})[0] is None
    # A selector with its own nth has no item i of it.
    assert from_playwright({**params, "selector": "li >> nth=1"})[0] is None
    indeterminate = {"value": {"o": [{"k": "indeterminate", "v": {"b": True}}]}, "handles": []}
    check, words = from_playwright({"selector": "#c", "expression": "to.be.checked", "expectedValue": indeterminate})
    assert check is None and "indeterminate" in words


def test_an_assertion_the_format_cannot_say_is_named_not_dropped() -> None:
    error = {"selector": "#c", "expression": "to.have.accessible.error.message", "expectedText": [{"string": "x"}]}
    check, words = from_playwright(error)
    assert check is None
    assert words == "expect(#c).to.have.accessible.error.message"
    check, words = from_playwright({"selector": "#c", "expression": "to.have.property", "expressionArg": "value"})
    assert (check, words) == (None, "expect(#c).to.have.property (no expected value)")
    css = {"selector": "#c", "expression": "to.have.css", "expressionArg": "color"}
    assert from_playwright({**css, "expectedText": [{"string": "rgb(255, 0, 0)"}]})[0] == {
        "style": {"selector": "#c", "property": "color", "equals": "rgb(255, 0, 0)"}
    }


@pytest.fixture
def on_page(page: Page) -> Page:
    page.set_content(
        """<ul><li class="done big">buy milk</li><li>feed the cat</li></ul>
        <input id="q" value=""><input id="r" value="x"><h1>Todos</h1>"""
    )
    return page


def _judge(page: Page, mapping: dict[str, Any], timeout_ms: float = 150) -> tuple[bool, str]:
    verdicts = check_expect(page, Expect.model_validate(mapping), lambda s: s, timeout_ms)
    return all(v.ok for v in verdicts), "; ".join(v.actual for v in verdicts)


@pytest.mark.browser
def test_new_assertions_hold_on_a_page_that_shows_them(on_page: Page) -> None:
    assert _judge(on_page, {"texts": {"css": "li", "equals": ["buy milk", "feed the cat"]}})[0]
    assert _judge(on_page, {"texts": {"css": "li", "contains": ["milk", "cat"]}})[0]
    assert _judge(on_page, {"attribute": {"css": "li", "nth": 0, "attr": "class", "matches": r"(^|\s)done(\s|$)"}})[0]
    assert _judge(on_page, {"empty": "#q"})[0]
    assert _judge(on_page, {"not": {"text": {"css": "h1", "equals": "Error"}}})[0]


@pytest.mark.browser
def test_new_assertions_fail_with_what_the_page_shows(on_page: Page) -> None:
    ok, actual = _judge(on_page, {"texts": {"css": "li", "equals": ["buy milk"]}})
    assert not ok and "feed the cat" in actual
    ok, actual = _judge(on_page, {"attribute": {"css": "li", "nth": 1, "attr": "class", "equals": "done"}})
    assert not ok and actual == "None"  # the second row has no class at all
    ok, actual = _judge(on_page, {"empty": "#r"})
    assert not ok and actual == "not empty"
    ok, actual = _judge(on_page, {"not": {"visible": {"role": "heading", "name": "Todos"}}}, 200)
    assert not ok and actual == "visible"


def test_not_is_written_not_and_refused_misspelt() -> None:
    loaded = parse(
        "name: n\ntask: t\nstart_url: http://127.0.0.1/\nsteps:\n  - action: a\n    do: []\n"
        "    post: [{expect: {not: {visible: '#x'}}}]\n",
        "w.reuseit.yaml",
    )
    assert loaded.workflow.steps[0].post[0].describe().startswith("not ")
    with pytest.raises(Exception, match="did you mean 'not'"):
        parse(
            "name: n\ntask: t\nstart_url: http://127.0.0.1/\nsteps:\n  - action: a\n    do: []\n"
            "    post: [{expect: {nott: {visible: '#x'}}}]\n",
            "w.reuseit.yaml",
        )


# ----------------------------------------------------------------------------- typed values


def test_a_password_field_makes_a_secret_and_the_value_is_kept_out_of_the_file() -> None:
    typed = TypedValues()
    assert (
        typed.typed("hunter2-long", {"type": "password", "name": "password"}, ["#id_password"]) == "{secret.PASSWORD}"
    )
    assert typed.typed("tok-123456", {"name": "api_token", "type": "text"}, []) == "{secret.API_TOKEN}"
    assert typed.typed("admin", {"name": "username", "type": "text"}, []) == "{username}"
    assert typed.secrets == {"PASSWORD": "hunter2-long", "API_TOKEN": "tok-123456"}
    assert "hunter2" not in json.dumps(typed.params)


def test_clock_digits_and_random_suffixes_become_unique() -> None:
    assert unique_part("Acme 1764201234567") == "1764201234567"
    assert unique_part("user-3f9a1c2b") == "3f9a1c2b"
    assert unique_part("buy some cheese") is None
    assert unique_part("order 42") is None
    typed = TypedValues()
    assert typed.typed("Acme 1764201234567", {"name": "name"}, []) == "Acme {unique}"
    assert typed.in_text("The publisher “Acme 1764201234567” was added") == "The publisher “Acme {unique}” was added"


def test_a_typed_value_is_named_in_a_check_only_where_it_is_surely_that_value() -> None:
    typed = TypedValues()
    typed.typed("admin", {"name": "username"}, [])
    typed.typed("buy some cheese", {"label": "What needs to be done?"}, [])
    assert typed.in_text("Django site admin") == "Django site admin"
    assert typed.in_text("buy some cheese") == "{what_needs_to_be_done}"
    assert typed.in_text("a {brace}") == "a {{brace}}"


def test_unique_is_new_in_each_run_and_the_same_all_through_one() -> None:
    first, second = Values(params={}), Values(params={})
    a = first.render("Acme {unique}")
    assert a == first.render("Acme {unique}")
    assert a != second.render("Acme {unique}")


# ----------------------------------------------------------------------------- traces


def test_snapshot_references_are_resolved_to_the_earlier_nodes() -> None:
    frames = FrameSnapshots()
    frames.add(["HTML", {}, ["BODY", {}, ["P", {"id": "a"}, "one"], ["SCRIPT", {}, "evil()"]]])
    # Node numbers count post-order: "one"=0, P=1, script text=2, SCRIPT=3, BODY=4, HTML=5.
    frames.add(["HTML", {}, ["BODY", {}, [[1, 1]], ["INPUT", {"__playwright_value_": "typed"}]]])
    html = frames.render(1)
    assert '<p id="a">one</p>' in html
    assert '<input value="typed">' in html
    assert "evil" not in html


def _zip(path: Path, files: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
    return path


def test_a_trace_of_a_newer_format_is_refused_by_its_version(tmp_path: Path) -> None:
    event = {"type": "context-options", "version": 11, "playwrightVersion": "1.70.0", "options": {}}
    path = _zip(tmp_path / "trace.zip", {"trace.trace": json.dumps(event) + "\n"})
    with pytest.raises(UnreadableInput, match=r"trace format version 11 \(written by Playwright 1.70.0\) is newer"):
        trace.read(path)


def test_a_failing_test_is_no_demonstration(tmp_path: Path) -> None:
    events = [
        {"type": "context-options", "version": 10, "options": {}},
        {
            "type": "before",
            "callId": "c1",
            "class": "Frame",
            "method": "goto",
            "params": {"url": "http://127.0.0.1:1/"},
        },
        {"type": "after", "callId": "c1"},
        {"type": "before", "callId": "c2", "class": "Frame", "method": "click", "params": {"selector": "#go"}},
        {"type": "after", "callId": "c2", "error": {"message": "Timeout 30000ms exceeded."}},
    ]
    path = _zip(tmp_path / "trace.zip", {"trace.trace": "\n".join(json.dumps(e) for e in events)})
    demo = trace.read(path)
    assert demo.failed == "click failed: Timeout 30000ms exceeded."


@pytest.mark.browser
def test_a_trace_python_playwright_writes_reads_as_steps_checks_and_the_dom(
    browser_session: BrowserSession, pages_url: str, tmp_path: Path
) -> None:
    context = browser_session.new_context({}, NavigationFence(("127.0.0.1",)))
    context.tracing.start(snapshots=True, title="search the shop")
    page = context.new_page()
    page.goto(f"{pages_url}/ops.html")
    page.set_content('<label>Name <input id="n"></label><button class="b">Send</button><p id="out"></p>')
    page.locator("#n").fill("Ada")
    page.locator(".b").click()
    expect(page.locator("#n")).to_have_value("Ada")
    expect(page.locator("#out")).not_to_be_visible()
    context.tracing.stop(path=tmp_path / "trace.zip")
    context.close()
    demo = trace.read(tmp_path / "trace.zip")
    assert demo.title == "search the shop"
    assert [s.kind for s in demo.steps] == ["goto", "fill", "click"]
    assert demo.steps[1].target is not None and demo.steps[1].target.selectors == ["#n"]
    assert demo.steps[1].value == "Ada"
    assert demo.steps[2].checks == [{"value": {"selector": "#n", "equals": "Ada"}}, {"hidden": {"selector": "#out"}}]
    assert 'id="n"' in demo.steps[2].page_html  # the DOM before the click, as the trace kept it


@pytest.mark.browser
def test_a_tests_waits_for_the_page_are_its_checks(
    browser_session: BrowserSession, pages_url: str, tmp_path: Path
) -> None:
    """A wait that never ends fails the test: it says what the page must come to, as a check."""
    context = browser_session.new_context({}, NavigationFence(("127.0.0.1",)))
    context.tracing.start(snapshots=True)
    page = context.new_page()
    page.goto(f"{pages_url}/ops.html")
    page.set_content(
        '<p id="spin">Loading</p><button id="go" onclick="setTimeout(() => {'
        "document.getElementById('spin').remove(); document.body.insertAdjacentHTML('beforeend', "
        "'<p id=done>Saved</p>'); window.saved = true; }, 50)\">Save</button>"
    )
    page.locator("#go").click()
    page.wait_for_selector("#done")
    page.locator("#spin").wait_for(state="detached")
    page.wait_for_function("() => window.saved === true")
    page.wait_for_function("(n) => document.querySelectorAll('p').length === n", arg=1)
    page.evaluate("() => { window.seen = true; }")  # no argument: Python sends null
    context.tracing.stop(path=tmp_path / "trace.zip")
    context.close()
    demo = trace.read(tmp_path / "trace.zip")
    assert (demo.steps[-1].kind, demo.steps[-1].value) == ("eval", "() => { window.seen = true; }")
    click = demo.steps[-2]
    assert click.kind == "click"
    assert click.checks == [
        {"visible": {"selector": "#done"}},
        {"detached": {"selector": "#spin"}},
        {"js": "() => window.saved === true"},  # the script runner calls a function, as Playwright does
    ]
    (said,) = click.unexpressed
    assert said.startswith("frame.waitForFunction(") and said.endswith(
        "(a page script waited for with an argument from the test)"
    ), said


FIXTURES = TESTS / "fixtures" / "traces"
OLD_TRACES = sorted(FIXTURES.glob("playwright-*.zip"))


@pytest.mark.parametrize("path", OLD_TRACES, ids=[p.stem for p in OLD_TRACES])
def test_traces_older_releases_wrote_read_as_the_same_demonstration(path: Path) -> None:
    with zipfile.ZipFile(path) as z:
        version = json.loads(z.read("trace.trace").decode().splitlines()[0])["version"]
    assert trace.OLDEST_VERSION <= version <= trace.NEWEST_VERSION
    demo = trace.read(path)
    assert demo.title == "add a todo" and not demo.failed
    assert [(s.kind, s.value) for s in demo.steps][1:] == [("fill", "buy milk"), ("press", "Enter")]
    assert demo.steps[2].checks == [
        {"count": {"selector": "#list li", "equals": 1}},
        {"text": {"selector": "#count", "equals": "1 items"}},
    ]
    assert 'id="new"' in demo.steps[1].page_html  # the DOM before the fill, from the snapshot's references


def test_the_older_traces_cover_each_version_this_release_upgrades_from() -> None:
    versions = set()
    for path in OLD_TRACES:
        with zipfile.ZipFile(path) as z:
            versions.add(json.loads(z.read("trace.trace").decode().splitlines()[0])["version"])
    assert {7, 8, 9, 10} <= versions


@pytest.mark.browser
@pytest.mark.slow
def test_a_step_of_an_old_trace_gets_the_locator_a_person_writes(browser_session: BrowserSession) -> None:
    from pytest_reuseit.importing.pipeline import _targets_from_snapshots

    demo = trace.read(OLD_TRACES[0])
    selectors, facts, complete = _targets_from_snapshots(demo, browser_session.browser())
    assert complete
    assert selectors[1] == ['internal:role=textbox[name="New todo"i]', "#new"]
    assert facts[1]["id"] == "new"


# ----------------------------------------------------------------------------- recordings


def test_chrome_recording_folds_keys_and_focusing_clicks(tmp_path: Path) -> None:
    sel = [["aria/Name:"], ["#id_name"]]
    rec = {
        "title": "Add",
        "steps": [
            {
                "type": "setViewport",
                "width": 800,
                "height": 600,
                "deviceScaleFactor": 1,
                "isMobile": False,
                "hasTouch": False,
                "isLandscape": False,
            },
            {"type": "navigate", "url": "http://127.0.0.1:1/add/"},
            {"type": "click", "selectors": sel, "offsetX": 1, "offsetY": 1},
            {"type": "change", "value": "Acme", "selectors": sel},
            {"type": "keyDown", "key": "Enter"},
            {"type": "keyUp", "key": "Enter"},
            {"type": "waitForElement", "selectors": [['aria/Saved[role="status"]']]},
        ],
    }
    path = tmp_path / "rec.json"
    path.write_text(json.dumps(rec))
    demo = chrome.read(path)
    # A change is a select, a fill or the change op by what the element is: the page says (compose).
    assert [s.kind for s in demo.steps] == ["goto", "change", "press"]
    assert demo.steps[1].target is not None
    assert demo.steps[1].target.selectors == ['internal:label="Name:"s', "#id_name"]
    # replay counts the elements (hidden ones too): at least one.
    assert demo.steps[2].checks == [{"count": {"role": "status", "name": "Saved", "exact": True, "min": 1}}]
    assert demo.browser == {"viewport": {"width": 800, "height": 600}}


def test_codegen_jsonl_reads_actions_and_assertions(tmp_path: Path) -> None:
    lines = [
        {"name": "openPage", "url": "about:blank", "signals": []},
        {"name": "navigate", "url": "http://127.0.0.1:1/", "signals": []},
        {"name": "click", "selector": 'internal:role=textbox[name="Todo"i]', "signals": [], "clickCount": 1},
        {"name": "fill", "selector": 'internal:role=textbox[name="Todo"i]', "text": "milk", "signals": []},
        {"name": "press", "selector": 'internal:role=textbox[name="Todo"i]', "key": "Enter", "signals": []},
        {"name": "assertText", "selector": "#count", "text": "1 item", "substring": True, "signals": []},
    ]
    path = tmp_path / "rec.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines))
    assert codegen.looks_like(path)
    demo = codegen.read(path)
    assert [s.kind for s in demo.steps] == ["goto", "fill", "press"]
    assert demo.steps[2].checks == [{"text": {"selector": "#count", "contains": "1 item"}}]


# ----------------------------------------------------------------------------- bad input


def _import(tmp_path: Path, *args: str) -> int:
    return main(["import", *args, "-o", str(tmp_path / "out")])


def _one_line(capsys: pytest.CaptureFixture[str]) -> str:
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    return out.out.splitlines()[0]


@pytest.mark.parametrize(
    ("name", "content", "says"),
    [
        ("trace.zip", b"not a zip at all", "not a zip file: not a Playwright trace"),
        ("other.zip", None, "a zip with no .trace inside: not a Playwright trace"),
        ("data.json", b'{"a": 1}', "not a Chrome DevTools recording"),
        ("broken.json", b"{", "not JSON"),
        (
            "odd.json",
            json.dumps({"title": "x", "steps": [{"type": "teleport"}]}).encode(),
            "steps[0] has the type 'teleport', which this release does not know",
        ),
        (
            "notes.txt",
            b"hello",
            "not a Playwright trace (.zip), a codegen file (.jsonl), a Selenium IDE project (.side), "
            "a Katalon Recorder test suite (.html) or a Chrome DevTools recording (.json)",
        ),
    ],
)
def test_unreadable_input_is_one_line_naming_it_exit_2_and_nothing_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: bytes | None, says: str
) -> None:
    path = tmp_path / name
    if content is None:
        _zip(path, {"readme.txt": "hello"})
    else:
        path.write_bytes(content)
    assert _import(tmp_path, str(path)) == 2
    line = _one_line(capsys)
    assert line.startswith(f"cannot import {path}")
    assert says in line
    assert not (tmp_path / "out").exists()


def test_a_newer_trace_is_refused_naming_its_version_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    event = {"type": "context-options", "version": 12, "playwrightVersion": "1.80.0", "options": {}}
    path = _zip(tmp_path / "trace.zip", {"trace.trace": json.dumps(event)})
    assert _import(tmp_path, str(path)) == 2
    assert "trace format version 12" in _one_line(capsys)
    assert not (tmp_path / "out").exists()


def test_an_existing_workflow_is_not_overwritten_without_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "rec.jsonl"
    path.write_text(json.dumps({"name": "navigate", "url": "http://127.0.0.1:1/", "signals": []}))
    out = tmp_path / "out"
    out.mkdir()
    (out / "rec.reuseit.yaml").write_text("# mine\n")
    assert _import(tmp_path, str(path), "--no-derive") == 2
    assert "exists (--force replaces it)" in _one_line(capsys)
    assert (out / "rec.reuseit.yaml").read_text() == "# mine\n"
    assert _import(tmp_path, str(path), "--no-derive", "--force") == 0
    assert "start_url: '{base_url}/'" in (out / "rec.reuseit.yaml").read_text()


def test_record_without_a_display_says_so_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert main(["record", "http://127.0.0.1:1/"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no display here" in err


def test_a_folder_with_nothing_to_import_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _import(tmp_path, str(tmp_path)) == 2
    assert "no trace, recording or codegen file" in capsys.readouterr().err


# ----------------------------------------------------------------------------- fallbacks that answer an action


def _run_on(page: Page, html: str, steps: str) -> Any:
    """A workflow run on a page showing ``html``. An action waits 2 s (at 0.5 s a click that went
    through timed out on a machine at load 17 and was tried again); an op meant to find nothing
    says its own shorter timeout."""
    return run_on(page, html, steps, settings="{action_timeout: 2, check_timeout: 0.5}")


@pytest.mark.browser
def test_an_old_selector_fallback_recovers_an_action_whose_element_was_renamed(page: Page) -> None:
    result = _run_on(
        page,
        '<button id="add2" onclick="this.textContent=\'done\'">Plus</button>',
        """steps:
  - action: Click Add
    do: [{click: {role: button, name: Add}, timeout: 0.5}]
    post: [{expect: {text: {css: button, equals: done}}}]
    fallback: [{do: [{click: "#add2"}], when: action}]
""",
    )
    assert result.label == "recovered", result.message
    (attempt,) = result.steps[0].attempts
    assert attempt.phase == "action" and "#add2" in attempt.fallback


@pytest.mark.browser
def test_a_fallback_for_the_action_is_not_tried_when_a_post_check_fails(page: Page) -> None:
    result = _run_on(
        page,
        '<button onclick="window.clicks = (window.clicks || 0) + 1">Add</button>',
        """steps:
  - action: Click Add
    do: [{click: {role: button, name: Add}}]
    post: [{expect: {js: "window.clicks === 5"}}]
    fallback: [{do: [{click: "button"}], when: action}]
""",
    )
    assert result.status == "failed"
    assert result.steps[0].attempts == []  # no second click: the action went through, the check failed
    assert page.evaluate("window.clicks") == 1
