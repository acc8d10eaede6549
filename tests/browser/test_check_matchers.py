"""The checks of Playwright's web-first matchers that came with ``reuseit import`` (``in_viewport``,
``accessible_name``, ``accessible_description``, ``has_role``, ``js_property``) judged in a real
page served on 127.0.0.1 (tests/pages/recorded/order.html), and the traced assertions imported
as them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from pydantic import ValidationError

from pytest_reuseit.browser.session import BrowserSession, NavigationFence
from pytest_reuseit.engine.runner import execute
from pytest_reuseit.importing.playwright.expects import from_playwright
from pytest_reuseit.workflow.checks import EXPECT_KEYS, Expect
from pytest_reuseit.workflow.loader import load
from tests.support.checks import judge
from tests.support.cli_process import import_one


@pytest.fixture
def order(pages_url: str, page: Page) -> Page:
    page.goto(f"{pages_url}/recorded/order.html")
    return page


# ----------------------------------------------------------------------------- in_viewport


def test_in_viewport_is_a_loc_or_a_loc_with_a_ratio() -> None:
    assert "in_viewport" in EXPECT_KEYS
    exp = Expect.model_validate({"in_viewport": "#footer"})
    assert exp.in_viewport is not None and (exp.in_viewport.selector, exp.in_viewport.ratio) == ("#footer", None)
    exp = Expect.model_validate({"in_viewport": {"css": "#half", "ratio": 0.5}})
    assert exp.in_viewport is not None and exp.in_viewport.ratio == 0.5
    with pytest.raises(ValidationError, match="less than or equal to 1"):
        Expect.model_validate({"in_viewport": {"css": "#half", "ratio": 50}})
    with pytest.raises(ValidationError, match="did you mean 'ratio'"):
        Expect.model_validate({"in_viewport": {"css": "#half", "ration": 0.5}})


@pytest.mark.browser
def test_in_viewport_holds_for_what_is_shown_and_says_the_ratio_of_what_is_not(order: Page) -> None:
    assert judge(order, {"in_viewport": {"role": "button", "name": "Save draft"}}) == (
        True,
        "role='button'[name='Save draft'] to be in the viewport",
        "in the viewport",
    )
    assert judge(order, {"in_viewport": {"css": "#half", "ratio": 0.4}})[0]
    assert judge(order, {"in_viewport": {"css": "#half", "ratio": 0.6}}) == (
        False,
        "css='#half' to be in the viewport (at least 0.6 of it)",
        "viewport ratio 0.5",
    )
    assert judge(order, {"in_viewport": {"css": "#footer"}}) == (
        False,
        "css='#footer' to be in the viewport",
        "viewport ratio 0",
    )
    assert judge(order, {"in_viewport": {"css": "#nothing"}})[2] == "no element matches"
    assert judge(order, {"in_viewport": {"css": "p"}})[2].startswith("2 elements match")


@pytest.mark.browser
def test_not_in_viewport_holds_off_screen_and_fails_on_screen(order: Page) -> None:
    assert judge(order, {"not": {"in_viewport": {"css": "#footer"}}}) == (
        True,
        "not: css='#footer' to be in the viewport",
        "viewport ratio 0",
    )
    assert judge(order, {"not": {"in_viewport": {"css": "#save"}}}) == (
        False,
        "not: css='#save' to be in the viewport",
        "in the viewport",
    )
    order.click("#save")  # scrolls the footer into view
    assert judge(order, {"in_viewport": {"css": "#footer"}}, 2000)[0]
    assert judge(order, {"not": {"in_viewport": {"css": "#save"}}}, 2000)[0]


def test_to_be_in_viewport_is_imported_with_its_ratio_and_its_not() -> None:
    assert from_playwright({"selector": "#b", "expression": "to.be.in.viewport", "isNot": False}) == (
        {"in_viewport": {"selector": "#b"}},
        "expect(#b).to.be.in.viewport",
    )
    traced = {"selector": "#b", "expression": "to.be.in.viewport", "expectedNumber": 0.5, "isNot": True}
    assert from_playwright(traced) == (
        {"not": {"in_viewport": {"selector": "#b", "ratio": 0.5}}},
        "expect(#b).not.to.be.in.viewport",
    )
    traced = {"selector": "#b", "expression": "to.be.in.viewport", "expectedNumber": "half"}
    assert from_playwright(traced) == (None, "expect(#b).to.be.in.viewport")


# ----------------------------------------------------------------------------- accessible_name, _description


def test_accessible_name_and_description_are_text_matches() -> None:
    assert {"accessible_name", "accessible_description"} <= set(EXPECT_KEYS)
    exp = Expect.model_validate({"accessible_name": {"css": "#save", "contains": "Save"}})
    assert exp.accessible_name is not None and exp.accessible_name.contains == "Save"
    with pytest.raises(ValidationError, match="needs one of: equals, contains, matches"):
        Expect.model_validate({"accessible_description": {"css": "#save"}})
    with pytest.raises(ValidationError, match="invalid regular expression"):
        Expect.model_validate({"accessible_name": {"css": "#save", "matches": "("}})


@pytest.mark.browser
def test_accessible_name_and_description_hold_and_fail_with_what_the_element_has(order: Page) -> None:
    # Whitespace collapsed, as assistive technology reads it ("Save  draft").
    assert judge(order, {"accessible_name": {"css": "#save", "equals": "Save draft"}}) == (
        True,
        "accessible name of css='#save' to equal 'Save draft'",
        "'Save draft'",
    )
    assert judge(order, {"accessible_name": {"css": "#save", "contains": "draft"}})[0]
    assert judge(order, {"accessible_name": {"label": "Quantity", "matches": "^Quant"}})[0]
    assert judge(order, {"accessible_description": {"css": "#save", "contains": "for later"}})[0]
    # contains is a part of the name: regular expression characters in it are plain text.
    assert not judge(order, {"accessible_name": {"css": "#save", "contains": "Save.draft"}})[0]
    assert judge(order, {"accessible_name": {"css": "#save", "equals": "Save"}}) == (
        False,
        "accessible name of css='#save' to equal 'Save'",
        "'Save draft'",
    )
    assert judge(order, {"accessible_description": {"css": "#qty", "equals": "How many"}}) == (
        False,
        "accessible description of css='#qty' to equal 'How many'",
        "''",
    )
    assert judge(order, {"accessible_name": {"css": "button, #pay", "equals": "Save"}})[2].startswith(
        "2 elements match"
    )


@pytest.mark.browser
def test_not_accessible_name_waits_for_it_to_change(order: Page) -> None:
    gone = {"not": {"accessible_description": {"css": "#save", "equals": "Keeps it for later"}}}
    assert judge(order, gone) == (
        False,
        "not: accessible description of css='#save' to equal 'Keeps it for later'",
        "'Keeps it for later'",
    )
    order.click("#save")
    assert judge(order, gone, 2000) == (
        True,
        "not: accessible description of css='#save' to equal 'Keeps it for later'",
        "'Kept for later'",
    )
    assert judge(order, {"accessible_name": {"css": "#save", "equals": "Saved"}})[0]


def test_to_have_accessible_name_and_description_are_imported_as_text_matches() -> None:
    def traced(expression: str, expected: dict[str, Any], is_not: bool = False) -> dict[str, Any]:
        return {"selector": "#save", "expression": expression, "expectedText": [expected], "isNot": is_not}

    # As Playwright sends them: whole, whitespace collapsed.
    exact = {"string": "Save  draft", "matchSubstring": False, "normalizeWhiteSpace": True}
    assert from_playwright(traced("to.have.accessible.name", exact)) == (
        {"accessible_name": {"selector": "#save", "equals": "Save draft"}},
        "expect(#save).to.have.accessible.name",
    )
    pattern = {"regexSource": "for later", "regexFlags": "i", "matchSubstring": False, "normalizeWhiteSpace": True}
    assert from_playwright(traced("to.have.accessible.description", pattern, is_not=True))[0] == {
        "not": {"accessible_description": {"selector": "#save", "matches": "(?i)for later"}}
    }
    assert from_playwright({"selector": "#save", "expression": "to.have.accessible.name"}) == (
        None,
        "expect(#save).to.have.accessible.name",
    )


# ----------------------------------------------------------------------------- has_role


def test_has_role_names_an_aria_role() -> None:
    assert "has_role" in EXPECT_KEYS
    exp = Expect.model_validate({"has_role": {"css": "#pay", "equals": "link"}})
    assert exp.has_role is not None and exp.has_role.equals == "link"
    with pytest.raises(ValidationError, match="'buton' is not an ARIA role \\(did you mean 'button'\\?\\)"):
        Expect.model_validate({"has_role": {"css": "#pay", "equals": "buton"}})
    with pytest.raises(ValidationError, match="equals"):
        Expect.model_validate({"has_role": {"css": "#pay"}})


@pytest.mark.browser
def test_has_role_holds_for_explicit_and_implicit_roles_and_says_the_role_found(order: Page) -> None:
    assert judge(order, {"has_role": {"css": "#pay", "equals": "link"}}) == (
        True,
        "role of css='#pay' to be 'link'",
        "'link'",
    )
    assert judge(order, {"has_role": {"label": "Quantity", "equals": "spinbutton"}})[0]  # implicit
    assert judge(order, {"has_role": {"text": "Save draft", "equals": "link"}}) == (
        False,
        "role of text='Save draft' to be 'link'",
        "'button'",
    )
    assert judge(order, {"has_role": {"css": "#nothing", "equals": "link"}})[2] == "no element matches"


@pytest.mark.browser
def test_not_has_role_waits_for_the_role_to_change(order: Page) -> None:
    still_link = {"not": {"has_role": {"css": "#pay", "equals": "link"}}}
    assert judge(order, still_link) == (False, "not: role of css='#pay' to be 'link'", "'link'")
    order.click("#save")  # the page makes #pay a button
    assert judge(order, still_link, 2000) == (True, "not: role of css='#pay' to be 'link'", "'button'")


def test_to_have_role_is_imported_as_has_role() -> None:
    role = {"string": "button", "matchSubstring": False, "normalizeWhiteSpace": False}
    traced = {"selector": "#pay", "expression": "to.have.role", "expectedText": [role], "isNot": True}
    assert from_playwright(traced) == (
        {"not": {"has_role": {"selector": "#pay", "equals": "button"}}},
        "expect(#pay).not.to.have.role",
    )
    assert from_playwright({"selector": "#pay", "expression": "to.have.role", "expectedText": []})[0] is None


# ----------------------------------------------------------------------------- js_property


def test_js_property_names_a_property_and_any_json_value() -> None:
    assert "js_property" in EXPECT_KEYS
    exp = Expect.model_validate({"js_property": {"css": "#qty", "property": "order", "equals": {"paid": False}}})
    assert exp.js_property is not None and exp.js_property.equals == {"paid": False}
    exp = Expect.model_validate({"js_property": {"css": "#qty", "property": "x", "equals": None}})
    assert exp.js_property is not None and exp.js_property.equals is None  # null is a value
    with pytest.raises(ValidationError, match="equals"):
        Expect.model_validate({"js_property": {"css": "#qty", "property": "value"}})
    with pytest.raises(ValidationError, match="property"):
        Expect.model_validate({"js_property": {"css": "#qty", "equals": "2"}})


@pytest.mark.browser
def test_js_property_compares_deeply_and_says_the_value_the_element_has(order: Page) -> None:
    assert judge(order, {"js_property": {"label": "Quantity", "property": "value", "equals": "2"}}) == (
        True,
        "property value of label='Quantity' to equal \"2\"",
        '"2"',
    )
    order_value = {"items": ["tea", 2], "paid": False, "note": None}
    assert judge(order, {"js_property": {"css": "#qty", "property": "order", "equals": order_value}})[0]
    assert judge(order, {"js_property": {"css": "#qty", "property": "valueAsNumber", "equals": 2}})[0]
    # Typed: the number 2 is not the text "2".
    assert judge(order, {"js_property": {"css": "#qty", "property": "value", "equals": 2}}) == (
        False,
        "property value of css='#qty' to equal 2",
        '"2"',
    )
    assert judge(order, {"js_property": {"css": "#qty", "property": "order", "equals": {"paid": False}}}) == (
        False,
        "property order of css='#qty' to equal {\"paid\": false}",
        '{"items": ["tea", 2], "paid": false, "note": null}',
    )
    assert judge(order, {"js_property": {"css": "#nothing", "property": "value", "equals": ""}})[2] == (
        "no element matches"
    )


@pytest.mark.browser
def test_not_js_property_waits_for_the_value_to_change(order: Page) -> None:
    unpaid = {
        "not": {
            "js_property": {
                "css": "#qty",
                "property": "order",
                "equals": {"items": ["tea", 2], "paid": False, "note": None},
            }
        }
    }
    assert not judge(order, unpaid)[0]
    order.click("#save")
    assert judge(order, unpaid, 2000) == (
        True,
        'not: property order of css=\'#qty\' to equal {"items": ["tea", 2], "paid": false, "note": null}',
        '{"items": ["tea", 3], "paid": true, "note": null}',
    )


def _property(name: str, serialized: dict[str, Any], is_not: bool = False) -> dict[str, Any]:
    # As the trace keeps toHaveJSProperty(name, value).
    return {
        "selector": "#qty",
        "expression": "to.have.property",
        "expressionArg": name,
        "expectedValue": {"value": serialized, "handles": []},
        "isNot": is_not,
    }


def test_to_have_js_property_is_imported_with_its_value_as_json() -> None:
    order_value = {
        "o": [{"k": "items", "v": {"a": [{"s": "tea"}, {"n": 2}], "id": 2}}, {"k": "note", "v": {"v": "null"}}],
        "id": 1,
    }
    assert from_playwright(_property("order", order_value)) == (
        {"js_property": {"selector": "#qty", "property": "order", "equals": {"items": ["tea", 2], "note": None}}},
        "expect(#qty).to.have.property",
    )
    assert from_playwright(_property("disabled", {"b": False}, is_not=True))[0] == {
        "not": {"js_property": {"selector": "#qty", "property": "disabled", "equals": False}}
    }
    for unsaid in (
        {"v": "undefined"},
        {"v": "NaN"},
        {"d": "2026-01-01T00:00:00.000Z"},
        {"a": [{"v": "Infinity"}], "id": 1},
    ):
        check, words = from_playwright(_property("x", unsaid))
        assert (check, words) == (
            None,
            "expect(#qty).to.have.property (a value JSON cannot say: undefined, NaN, a date, an element...)",
        )


# ----------------------------------------------------------------------------- a trace, end to end


@pytest.mark.slow
@pytest.mark.browser
def test_a_traced_test_s_matchers_import_and_run_again(
    browser_session: BrowserSession, pages_url: str, tmp_path: Path, page: Page
) -> None:
    context = browser_session.new_context({}, NavigationFence(("127.0.0.1",)))
    context.tracing.start(snapshots=True, title="save the order")
    traced = context.new_page()
    traced.goto(f"{pages_url}/recorded/order.html")
    expect(traced.locator("#half")).to_be_in_viewport(ratio=0.4)
    expect(traced.locator("#footer")).not_to_be_in_viewport()
    traced.locator("#save").click()
    expect(traced.locator("#footer")).to_be_in_viewport()
    expect(traced.locator("#save")).to_have_accessible_name("Saved")
    expect(traced.locator("#save")).to_have_accessible_description(re.compile("kept", re.I))
    expect(traced.locator("#pay")).to_have_role("button")
    expect(traced.locator("#pay")).not_to_have_role("link")
    expect(traced.locator("#qty")).to_have_js_property("order", {"items": ["tea", 3], "paid": True, "note": None})
    expect(traced.locator("#qty")).to_have_js_property("valueAsNumber", 2)
    context.tracing.stop(path=tmp_path / "trace.zip")
    context.close()
    done, written = import_one(tmp_path / "trace.zip", tmp_path / "out", "--no-derive")
    assert done.returncode == 0 and written.is_file(), done.stdout + done.stderr
    text = written.read_text()
    # The locators a person writes, found on the traced page, first; the test's selectors beside them.
    for line in (
        "{in_viewport: {text: Half shown, or: '#half', ratio: 0.4}}",
        "{not: {in_viewport: {text: The end, or: '#footer'}}}",
        "{in_viewport: {text: The end, or: '#footer'}}",
        "{accessible_name: {role: button, name: Saved, or: '#save', equals: Saved}}",
        "{accessible_description: {role: button, name: Saved, or: '#save', matches: (?i)kept}}",
        "{has_role: {role: button, name: Pay now, or: '#pay', equals: button}}",
        "{not: {has_role: {role: button, name: Pay now, or: '#pay', equals: link}}}",
        "{js_property: {role: spinbutton, name: Quantity, or: '#qty', property: order, equals: {items: [tea, 3],",
        "{js_property: {role: spinbutton, name: Quantity, or: '#qty', property: valueAsNumber, equals: 2}}",
    ):
        assert f"- expect: {line}" in text, text
    (step,) = load(written).workflow.steps
    assert step.post is not None and step.post[5].expect is not None
    (order_check,) = step.post[5].expect
    assert order_check.js_property is not None
    assert order_check.js_property.equals == {"items": ["tea", 3], "paid": True, "note": None}
    assert "not imported" not in text, text
    result = execute(page, load(written), builtins={"base_url": pages_url})
    assert result.status == "passed", result.message
    assert page.locator("#save").inner_text() == "Saved"


@pytest.mark.browser
def test_a_case_blind_pattern_as_import_writes_it_is_judged_in_the_browser(order: Page) -> None:
    # (?i) is Python's: the browser's RegExp refuses it; its flag is sent as the RegExp's own.
    assert judge(order, {"text": {"css": "h1", "matches": "(?i)^ORDER$"}})[0]
    assert judge(order, {"accessible_description": {"css": "#save", "matches": "(?i)KEEPS"}})[0]
    assert judge(order, {"accessible_name": {"css": "#save", "matches": "(?i)^saved"}}) == (
        False,
        "accessible name of css='#save' to match /(?i)^saved/",
        "'Save draft'",
    )
    assert not judge(order, {"text": {"css": "h1", "matches": "^ORDER$"}})[0]


@pytest.mark.browser
def test_a_case_blind_whole_name_is_imported_anchored_at_both_ends(order: Page) -> None:
    def imported(name: str) -> dict[str, Any]:
        blind = {"string": name, "matchSubstring": False, "ignoreCase": True, "normalizeWhiteSpace": True}
        check, _ = from_playwright(
            {"selector": "#save", "expression": "to.have.accessible.name", "expectedText": [blind]}
        )
        assert check is not None and not isinstance(check, list)
        return check

    assert imported("save  DRAFT") == {"accessible_name": {"selector": "#save", "matches": "(?i)^save\\ DRAFT$"}}
    assert judge(order, imported("save  DRAFT"))[0]
    assert not judge(order, imported("save"))[0]  # a part of the name is not the name
