"""The checks of Playwright's web-first matchers that came with ``reuseit import`` (``in_viewport``,
``accessible_name``, ``accessible_description``, ``has_role``, ``js_property``) judged in a real
page served on 127.0.0.1 (tests/pages/recorded/order.html), and the traced assertions imported
as them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page
from pydantic import ValidationError

from pytest_reuseit.browser.assertions import check_expect
from pytest_reuseit.importing.expects import from_playwright
from pytest_reuseit.workflow.checks import EXPECT_KEYS, Expect
from tests.support.serve import Served, files

PAGES = Path(__file__).resolve().parent / "pages" / "recorded"


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with Served(files(PAGES)) as served:
        yield served.url


@pytest.fixture
def order(site: str, page: Page) -> Page:
    page.goto(f"{site}/order.html")
    return page


def _judge(page: Page, mapping: dict[str, Any], timeout_ms: float = 200) -> tuple[bool, str, str]:
    verdicts = check_expect(page, Expect.model_validate(mapping), lambda s: s, timeout_ms)
    failed = next((v for v in verdicts if not v.ok), None)
    if failed is None:
        return True, "; ".join(v.expected for v in verdicts), "; ".join(v.actual for v in verdicts)
    return False, failed.expected, failed.actual


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
    assert _judge(order, {"in_viewport": {"role": "button", "name": "Save draft"}}) == (
        True,
        "role='button'[name='Save draft'] to be in the viewport",
        "in the viewport",
    )
    assert _judge(order, {"in_viewport": {"css": "#half", "ratio": 0.4}})[0]
    assert _judge(order, {"in_viewport": {"css": "#half", "ratio": 0.6}}) == (
        False,
        "css='#half' to be in the viewport (at least 0.6 of it)",
        "viewport ratio 0.5",
    )
    assert _judge(order, {"in_viewport": {"css": "#footer"}}) == (
        False,
        "css='#footer' to be in the viewport",
        "viewport ratio 0",
    )
    assert _judge(order, {"in_viewport": {"css": "#nothing"}})[2] == "no element matches"
    assert _judge(order, {"in_viewport": {"css": "p"}})[2].startswith("2 elements match")


@pytest.mark.browser
def test_not_in_viewport_holds_off_screen_and_fails_on_screen(order: Page) -> None:
    assert _judge(order, {"not": {"in_viewport": {"css": "#footer"}}}) == (
        True,
        "not: css='#footer' to be in the viewport",
        "viewport ratio 0",
    )
    assert _judge(order, {"not": {"in_viewport": {"css": "#save"}}}) == (
        False,
        "not: css='#save' to be in the viewport",
        "in the viewport",
    )
    order.click("#save")  # scrolls the footer into view
    assert _judge(order, {"in_viewport": {"css": "#footer"}}, 2000)[0]
    assert _judge(order, {"not": {"in_viewport": {"css": "#save"}}}, 2000)[0]


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
