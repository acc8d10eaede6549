"""``expect.poll(() => page.evaluate(...))`` imported as a check that compares as JavaScript does,
judged in a real page; and what cannot be said exactly is said so (None: a counted comment)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page

from pytest_reuseit.importing.playwright.calls import (
    not_imported,
    other_step,
    position,
    unimportant,
    unusual_pointer,
    wait_check,
)
from pytest_reuseit.importing.playwright.polls import NO_VALUE, js_literal, plain_value, poll_check


def pw(value: Any) -> dict[str, Any]:
    """A value in Playwright's serialization, as a trace keeps an evaluation's result."""
    if value is None:
        return {"v": "null"}
    if isinstance(value, bool):
        return {"b": value}
    if isinstance(value, (int, float)):
        return {"n": value}
    if isinstance(value, str):
        return {"s": value}
    if isinstance(value, list):
        return {"a": [pw(v) for v in value], "id": 1}
    return {"o": [{"k": k, "v": pw(v)} for k, v in value.items()], "id": 2}


def test_a_list_is_written_as_javascript_writes_it_without_spaces() -> None:
    js, words = poll_check(
        "() => todos()", True, pw(["buy milk", "feed the cat"]), 'Expect "poll toEqual"', "[buy milk, feed the cat]"
    )
    assert js is not None and '["buy milk","feed the cat"]' in js and '", "' not in js
    assert words == "expect.poll(() => todos()).toEqual([buy milk, feed the cat])"


def test_special_values_are_written_as_javascript_names_them() -> None:
    assert js_literal(plain_value({"v": "undefined"})) == "undefined"
    assert js_literal(plain_value({"v": "-0"})) == "-0"
    assert js_literal(plain_value({"n": 3.0})) == "3"
    assert js_literal(plain_value(pw({"a": [1.5, None, True]}))) == '{"a":[1.5,null,true]}'
    assert plain_value({"d": "2026-01-01T00:00:00.000Z"}) is NO_VALUE  # a Date: not plain data
    assert poll_check("() => new Date()", True, {"d": "2026"}, 'Expect "poll toEqual"', "Date")[0] is None


@pytest.mark.parametrize(
    ("title", "last", "expected"),
    [
        ('Expect "poll not toEqual"', ["a"], "[b]"),  # a list in words: its items' types are not said
        ('Expect "poll not toBe"', 3, "4"),  # 4 or '4'
        ('Expect "poll toContain"', [3, "3"], "3"),  # both are shown as 3
        ('Expect "poll toMatchObject"', {"a": 1}, "Object"),  # a matcher not compared here
        ('Expect "poll toBe"', ["a"], "[a]"),  # toBe of a fresh list never passes: not what the test did
    ],
)
def test_what_the_record_does_not_say_exactly_is_not_imported(title: str, last: Any, expected: str) -> None:
    js, words = poll_check("() => x()", True, pw(last), title, expected)
    assert js is None and words.startswith("expect.poll(() => x()).")


SCRIPT = "() => window.__value"


def _holds(page: Page, js: str | None, value: str) -> bool:
    assert js is not None
    page.evaluate(f"window.__value = {value}")
    return bool(page.evaluate(js))


@pytest.mark.browser
@pytest.mark.parametrize(
    ("title", "last", "words", "same", "different"),
    [
        ('Expect "poll toEqual"', ["a", "b"], "[a, b]", '["a", "b"]', '["a", "b", "c"]'),
        (
            'Expect "poll toEqual"',
            {"n": 1, "t": [None]},
            "Object",
            "{t: [null], n: 1, u: undefined}",
            '{n: "1", t: [null]}',
        ),
        ('Expect "poll toStrictEqual"', {"n": 1}, "Object", "{n: 1}", "{n: 1, u: undefined}"),
        ('Expect "poll toBe"', 3, "3", "3", '"3"'),
        ('Expect "poll toBe"', "1 item left", "1 item left", '"1 item left"', '"2 items left"'),
        ('Expect "poll toBe"', True, "true", "true", "1"),
        ('Expect "poll toBeNull"', None, "", "null", "undefined"),
        ('Expect "poll not toEqual"', ["a"], "feed the cat", '"buy milk"', '"feed the cat"'),
        ('Expect "poll toContain"', ["a", "feed the cat"], "feed the cat", '["feed the cat"]', '["feed"]'),
        ('Expect "poll toHaveLength"', ["a", "b"], "2", '["x", "y"]', '["x"]'),
        ('Expect "poll toBeGreaterThan"', 5, "2", "3", "2"),
    ],
)
def test_the_check_holds_where_the_matcher_holds_and_fails_where_it_fails(
    page: Page, title: str, last: Any, words: str, same: str, different: str
) -> None:
    js, _ = poll_check(SCRIPT, True, pw(last), title, words)
    assert _holds(page, js, same)
    assert not _holds(page, js, different)


def test_browser_calls_are_steps_reads_or_said() -> None:
    blur = other_step("Frame", "dispatchEvent", {"selector": "#e", "type": "blur", "eventInit": {"value": {"o": []}}})
    assert blur is not None and (blur.kind, blur.value) == ("dispatch", "blur")
    init = {"selector": "#e", "type": "keydown", "eventInit": {"value": {"o": [{"k": "key", "v": {"s": "a"}}]}}}
    assert other_step("Frame", "dispatchEvent", init) is None and not unimportant("Frame", "dispatchEvent")
    assert "an event with an init" in not_imported("Frame", "dispatchEvent", init)
    typed = other_step("Page", "keyboardType", {"text": "walk the dog"})
    assert typed is not None and typed.kind == "type" and typed.target and typed.target.selectors == ["*:focus"]
    assert unimportant("Frame", "waitForTimeout") and unimportant("Tracing", "tracingStart")
    # A wait for the page is the check it waits for: it fails the test when it never ends.
    assert wait_check("Frame", "waitForSelector", {"selector": "#a", "state": "hidden"}) == (
        {"hidden": {"selector": "#a"}},
        "waitForSelector(#a, state: hidden)",
    )
    assert not unimportant("Frame", "waitForSelector") and not unimportant("Frame", "waitForFunction")
    assert not unimportant("Page", "mouseClick")
    assert not_imported("Page", "mouseClick", {"x": 5, "y": 5}) == (
        'page.mouseClick({"x": 5, "y": 5}) (a click at coordinates: the format clicks elements)'
    )
    assert "\n" not in not_imported("BrowserContext", "route", {"url": "a\nb"})
    script = {"expression": "() => { go(); }", "isFunction": True, "arg": {"value": {"v": "undefined"}}}
    ran = other_step("Frame", "evaluateExpression", script)
    assert ran is not None and (ran.kind, ran.value) == ("eval", "(() => { go(); })()")
    given = {**script, "arg": {"value": {"n": 3}, "handles": []}}  # an argument from the test: not replayed
    assert other_step("Frame", "evaluateExpression", given) is None
    assert "a page script given an argument" in not_imported("Frame", "evaluateExpression", given)
    assert unusual_pointer({"button": "right"}) and unusual_pointer({"modifiers": ["Shift"]})
    # A point in the element is the format's own (position:); a key held is not.
    assert not unusual_pointer({"position": {"x": 1, "y": 2}}) and not unusual_pointer(
        {"button": "left", "strict": True}
    )
    assert position({"position": {"x": 240, "y": 88.5}}) == (240.0, 88.5) and position({}) is None
    assert position({"position": {"x": -1, "y": 2}}) is None and position({"position": {"x": True, "y": 2}}) is None
    assert not_imported("Frame", "click", {"selector": "#a", "button": "middle", "strict": True}) == (
        'locator(#a).click({"button": "middle"}) (another mouse button or modifier keys held: '
        "the format presses its buttons with no key held)"
    )


@pytest.mark.browser
@pytest.mark.slow  # about 1.7 s: several checks that fail wait out their time
def test_the_new_state_and_style_checks_hold_and_fail_for_the_right_reason(page: Page) -> None:
    from pytest_reuseit.browser.assertions import check_expect
    from pytest_reuseit.workflow.checks import Expect

    page.set_content(
        '<input id="a" autofocus><input id="b" readonly><p id="c" style="display: block">x</p>'
        '<p id="d" style="display: none">y</p>'
    )
    page.locator("#a").focus()

    def judge(check: dict[str, Any]) -> tuple[bool, str]:
        (verdict,) = check_expect(page, Expect.model_validate(check), lambda s: s, 300)
        return verdict.ok, verdict.actual

    assert judge({"focused": {"css": "#a"}})[0] and judge({"not": {"focused": {"css": "#b"}}})[0]
    assert judge({"focused": {"css": "#b"}}) == (False, "not focused")
    assert judge({"editable": {"css": "#a"}})[0] and judge({"editable": {"css": "#b"}}) == (False, "not editable")
    assert judge({"attached": {"css": "#d"}})[0] and judge({"detached": {"css": "#e"}})[0]
    assert judge({"detached": {"css": "#d"}}) == (False, "not detached")
    assert judge({"style": {"css": "#c", "property": "display", "equals": "block"}})[0]
    assert judge({"style": {"css": "#d", "property": "display", "equals": "block"}}) == (False, "'none'")
    assert judge({"style": {"css": "#e", "property": "display", "equals": "block"}}) == (False, "no element matches")
