"""The ``values`` check (the selected options of a list box, Playwright's ``toHaveValues``) judged
in a real page served on 127.0.0.1 (tests/pages/recorded/extras.html), and ``toHaveValues`` of a
trace imported as it."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from pydantic import ValidationError

from pytest_reuseit.browser.session import BrowserSession, NavigationFence
from pytest_reuseit.engine.runner import execute
from pytest_reuseit.importing.playwright.expects import from_playwright
from pytest_reuseit.workflow.checks import EXPECT_KEYS, Expect
from pytest_reuseit.workflow.loader import load, parse
from tests.support.checks import judge
from tests.support.cli_process import import_one


@pytest.fixture
def extras(pages_url: str, page: Page) -> Page:
    page.goto(f"{pages_url}/recorded/extras.html")
    return page


# ----------------------------------------------------------------------------- the format


def test_values_is_a_check_key_of_a_list_written_whole() -> None:
    assert "values" in EXPECT_KEYS
    exp = Expect.model_validate({"values": {"label": "Extras", "equals": ["wrap", "ins"]}})
    assert exp.values is not None and exp.values.equals == ("wrap", "ins")
    assert Expect.model_validate({"values": {"css": "#extras", "equals": []}}).values is not None
    with pytest.raises(ValidationError, match="equals"):
        Expect.model_validate({"values": {"css": "#extras"}})
    with pytest.raises(ValidationError, match="did you mean 'equals'"):
        Expect.model_validate({"values": {"css": "#extras", "equal": ["wrap"]}})
    with pytest.raises(ValidationError, match="valid string"):  # an option's value is text: 1 is written '1'
        Expect.model_validate({"values": {"css": "#extras", "equals": [1]}})


# ----------------------------------------------------------------------------- judged in a page


@pytest.mark.browser
def test_values_hold_when_the_selection_is_the_one_listed_in_its_order(extras: Page) -> None:
    assert judge(extras, {"values": {"label": "Extras", "equals": []}})[0]  # nothing chosen yet
    extras.select_option("#extras", ["wrap", "ins"])
    ok, expected, actual = judge(extras, {"values": {"label": "Extras", "equals": ["wrap", "ins"]}})
    assert ok, actual
    assert (expected, actual) == ("values of label='Extras' to be ['wrap', 'ins']", "['wrap', 'ins']")
    # By the element itself, by its role, and the values of options, not their labels.
    assert judge(extras, {"values": {"css": "#extras", "equals": ["wrap", "ins"]}})[0]
    assert judge(extras, {"values": {"role": "listbox", "name": "Extras", "equals": ["wrap", "ins"]}})[0]
    assert not judge(extras, {"values": {"css": "#extras", "equals": ["Gift wrap", "Insurance"]}})[0]


@pytest.mark.browser
def test_values_fail_saying_what_was_expected_and_what_is_selected(extras: Page) -> None:
    extras.select_option("#extras", ["wrap", "ins"])
    # Another order, one too few, one too many, and a value compared whole (no part of it).
    for wanted in (["ins", "wrap"], ["wrap"], ["wrap", "ins", "card"], ["wra", "ins"]):
        assert judge(extras, {"values": {"css": "#extras", "equals": wanted}}, 50) == (
            False,
            f"values of css='#extras' to be {wanted!r}",
            "['wrap', 'ins']",
        )
    extras.select_option("#extras", [])
    assert judge(extras, {"values": {"css": "#extras", "equals": ["wrap"]}}, 50)[2] == "[]"


@pytest.mark.browser
def test_values_of_no_element_several_or_no_list_box_fail_saying_so(extras: Page) -> None:
    assert judge(extras, {"values": {"css": "#gone", "equals": []}})[1:] == (
        "values of css='#gone' to be []",
        "no element matches",
    )
    extras.set_content(
        '<select class="s" multiple><option>a</option></select><select class="s" multiple></select>'
        '<select id="one"><option value="a">A</option></select><p id="p">a</p>'
    )
    ok, _, actual = judge(extras, {"values": {"css": ".s", "equals": []}})
    assert not ok and actual.startswith("2 elements match (the locator must be unique")
    ok, _, actual = judge(extras, {"values": {"css": "#one", "equals": ["a"]}})
    assert (ok, actual) == (False, "not a list box (<select multiple>): a <select> without multiple")
    ok, _, actual = judge(extras, {"values": {"css": "#p", "equals": ["a"]}})
    assert (ok, actual) == (False, "not a list box (<select multiple>): <p>")


@pytest.mark.browser
def test_not_values_holds_for_another_selection_and_fails_for_the_one_listed(extras: Page) -> None:
    extras.select_option("#extras", ["wrap", "ins"])
    assert judge(extras, {"not": {"values": {"css": "#extras", "equals": ["ins", "wrap"]}}})[0]
    assert judge(extras, {"not": {"values": {"css": "#extras", "equals": []}}})[0]
    assert judge(extras, {"not": {"values": {"css": "#extras", "equals": ["wrap", "ins"]}}}) == (
        False,
        "not: values of css='#extras' to be ['wrap', 'ins']",
        "['wrap', 'ins']",
    )


@pytest.mark.browser
def test_not_values_of_what_is_no_list_box_fails_as_playwright_s_error_does(extras: Page) -> None:
    # An assertion that cannot be asked of the element does not "not hold": it would pass unjudged.
    ok, expected, actual = judge(extras, {"not": {"values": {"css": "#chosen", "equals": ["wrap"]}}})
    assert (ok, expected, actual) == (
        False,
        "not: values of css='#chosen' to be ['wrap']",
        "not a list box (<select multiple>): <p>",
    )
    ok, _, actual = judge(extras, {"not": {"not": {"values": {"css": "#chosen", "equals": ["wrap"]}}}})
    assert (ok, actual) == (False, "not a list box (<select multiple>): <p>")


@pytest.mark.slow
@pytest.mark.browser
def test_values_wait_for_the_selection_and_not_waits_for_it_to_change(extras: Page) -> None:
    later = "ms => setTimeout(() => { for (const o of document.querySelectorAll('#extras option')) o.selected = o.value !== 'wrap'; }, ms)"
    extras.evaluate(later, 400)
    started = time.monotonic()
    assert judge(extras, {"values": {"css": "#extras", "equals": ["ins", "card"]}}, 5000)[0]
    assert 0.3 < time.monotonic() - started < 4
    extras.evaluate(later.replace("!==", "==="), 400)
    started = time.monotonic()
    assert judge(extras, {"not": {"values": {"css": "#extras", "equals": ["ins", "card"]}}}, 5000)[0]
    assert 0.3 < time.monotonic() - started < 4


@pytest.mark.slow
@pytest.mark.browser
def test_a_workflow_choosing_a_list_box_s_options_checks_them(pages_url: str, page: Page) -> None:
    text = f"""name: n
task: t
start_url: {pages_url}/recorded/extras.html
settings: {{action_timeout: 2, check_timeout: 1}}
steps:
  - action: Choose gift wrap and insurance
    do:
      - select: {{label: Extras, option: [Gift wrap, Insurance]}}
    post:
      - expect: {{values: {{label: Extras, equals: [wrap, ins]}}}}
      - expect: {{not: {{values: {{label: Extras, equals: [wrap]}}}}}}
"""
    result = execute(page, parse(text, "w.reuseit.yaml"))
    assert result.status == "passed", result.message
    failing = text.replace("equals: [wrap, ins]", "equals: [wrap, card]")
    result = execute(page, parse(failing, "w.reuseit.yaml"))
    assert result.status == "failed"
    (verdict,) = [v for v in result.steps[0].post if v.ok is False]
    assert (verdict.expected, verdict.actual) == ("values of label='Extras' to be ['wrap', 'card']", "['wrap', 'ins']")
    assert "expected values of label='Extras' to be ['wrap', 'card']; actual: ['wrap', 'ins']" in result.message


# ----------------------------------------------------------------------------- import


def _values(*items: dict[str, Any], is_not: bool = False) -> dict[str, Any]:
    return {"selector": "#extras", "expression": "to.have.values", "expectedText": list(items), "isNot": is_not}


def _exact(value: str) -> dict[str, Any]:
    # As Playwright sends each string of toHaveValues: compared whole, as written.
    return {"string": value, "matchSubstring": False, "normalizeWhiteSpace": False}


def test_to_have_values_of_strings_is_the_values_check_and_its_not() -> None:
    assert from_playwright(_values(_exact("wrap"), _exact("ins"))) == (
        {"values": {"selector": "#extras", "equals": ["wrap", "ins"]}},
        "expect(#extras).to.have.values",
    )
    assert from_playwright(_values(_exact("wrap"), is_not=True))[0] == {
        "not": {"values": {"selector": "#extras", "equals": ["wrap"]}}
    }
    assert from_playwright(_values())[0] == {"values": {"selector": "#extras", "equals": []}}  # none selected
    # Whitespace is the value's own: kept as it is.
    assert from_playwright(_values(_exact(" a  b ")))[0] == {"values": {"selector": "#extras", "equals": [" a  b "]}}


def test_to_have_values_with_a_regular_expression_is_said_not_imported() -> None:
    check, words = from_playwright(_values(_exact("wrap"), {"regexSource": "ins", "regexFlags": ""}))
    assert check is None
    assert words == (
        "expect(#extras).to.have.values (a regular expression among the values: the format compares exact values)"
    )
    check, words = from_playwright(_values({"string": "WRAP", "ignoreCase": True}, is_not=True))
    assert check is None
    assert words.startswith("expect(#extras).not.to.have.values (values compared other than whole and exactly")
    check, words = from_playwright({"selector": "#extras", "expression": "to.have.values"})
    assert (check, words) == (None, "expect(#extras).to.have.values (no list of expected values)")


@pytest.mark.slow
@pytest.mark.browser
def test_a_traced_list_box_and_its_to_have_values_import_and_run_again(
    browser_session: BrowserSession, pages_url: str, tmp_path: Path, page: Page
) -> None:
    context = browser_session.new_context({}, NavigationFence(("127.0.0.1",)))
    context.tracing.start(snapshots=True, title="choose extras")
    traced = context.new_page()
    traced.goto(f"{pages_url}/recorded/extras.html")
    traced.locator("#extras").select_option(["wrap", "ins"])
    expect(traced.locator("#extras")).to_have_values(["wrap", "ins"])
    expect(traced.locator("#extras")).not_to_have_values(["wrap"])
    expect(traced.locator("#extras")).to_have_values(["wrap", re.compile("in")])
    context.tracing.stop(path=tmp_path / "trace.zip")
    context.close()
    done, written = import_one(tmp_path / "trace.zip", tmp_path / "out", "--no-derive")
    assert done.returncode == 0 and written.is_file(), done.stdout + done.stderr
    text = written.read_text()
    # The locator a person writes, found on the traced page, first; the test's selector beside it.
    assert "- expect: {values: {label: Extras, or: '#extras', equals: [wrap, ins]}}" in text, text
    assert "- expect: {not: {values: {label: Extras, or: '#extras', equals: [wrap]}}}" in text, text
    assert (
        "# not imported: expect(#extras).to.have.values (a regular expression among the values: "
        "the format compares exact values)" in text
    ), text
    assert "2 checks from the source, 1 not imported (comments)" in done.stdout, done.stdout
    result = execute(page, load(written), builtins={"base_url": pages_url})
    assert result.status == "passed", result.message
    assert page.locator("#chosen").inner_text() == "Chosen: wrap, ins"
