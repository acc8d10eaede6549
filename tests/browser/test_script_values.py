"""What a workflow's script brings back (browser/scripts.py): the predicate answers in JSON text,
which the driver hands back from its handle without another call into the page; the values come
back as Playwright's own evaluate would bring them, where a check or an extract can tell."""

from __future__ import annotations

import math
from typing import Any

import pytest

from pytest_reuseit.browser.scripts import ScriptError, run_script
from pytest_reuseit.errors import BrokenRun

pytestmark = pytest.mark.browser

VALUES = [
    pytest.param("'text'", "text", id="text"),
    pytest.param("30", 30, id="number"),
    pytest.param("[1, 'x', null, undefined]", [1, "x", None, None], id="array"),
    pytest.param("({a: 1, skipped: undefined, f: () => 1})", {"a": 1}, id="object"),
    pytest.param("undefined", None, id="undefined"),
    pytest.param("document.body", "ref: <Node>", id="element"),
    pytest.param("document", "ref: <Document>", id="document"),
    pytest.param("window", "ref: <Window>", id="window"),
    pytest.param(
        "(() => { const o = {a: 1}; o.self = o; return o; })()", {"a": 1, "self": "ref: <Object>"}, id="cycle"
    ),
    pytest.param("5n", 5, id="bigint"),
    pytest.param("12345678901234567890n", "12345678901234567890", id="bigint-too-large"),
    pytest.param("new Date(0)", "1970-01-01T00:00:00.000Z", id="date"),
    pytest.param("Promise.resolve({done: true})", {"done": True}, id="promise"),
]


@pytest.mark.parametrize(("expression", "expected"), VALUES)
def test_a_script_s_value_comes_back_as_the_page_had_it(page, pages_url, expression: str, expected: Any) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{pages_url}/ops.html")
    assert run_script(page, expression, 2_000) == expected


@pytest.mark.parametrize(("expression", "check"), [("NaN", math.isnan), ("-Infinity", lambda v: v == -math.inf)])
def test_numbers_json_cannot_write_come_back_as_numbers(page, pages_url, expression: str, check: Any) -> None:  # type: ignore[no-untyped-def]
    # NaN must stay falsy for an `expect: {js}` check (a parse that failed is no pass).
    page.goto(f"{pages_url}/ops.html")
    value = run_script(page, expression, 2_000)
    assert isinstance(value, float) and check(value)


def test_a_script_that_throws_is_the_page_s_error(page, pages_url) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{pages_url}/ops.html")
    with pytest.raises(ScriptError, match=r"TypeError: Cannot read properties of null"):
        run_script(page, "document.getElementById('nope').click()", 2_000)


def test_a_page_that_replaced_json_stringify_is_a_broken_run_saying_so(page, pages_url) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{pages_url}/ops.html")
    page.evaluate("JSON.stringify = () => 'not json'")
    with pytest.raises(BrokenRun, match=r"the page's JSON.stringify does not write JSON.*'not json'"):
        run_script(page, "document.title", 2_000)
