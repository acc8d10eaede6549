"""DOM assertions (``expect:``), auto-waiting like Playwright's own ``expect``.

Each returns a :class:`DomVerdict` with the expected and the actual value in words, so a
failure report can say "expected text of css='.price' to contain '$' — actual: '€49.99'".
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from ..errors import BrokenRun
from ..workflow.model import Expect, Locator, LocCount, LocText, TextMatch
from .locators import describe, resolve
from .ops import classify


@dataclass(frozen=True)
class DomVerdict:
    ok: bool
    expected: str
    actual: str


def _pattern(m: TextMatch, render: Callable[[str], str]) -> tuple[str | re.Pattern[str], str]:
    if m.equals is not None:
        v = render(m.equals)
        return v, f"equal {v!r}"
    if m.contains is not None:
        v = render(m.contains)
        return re.compile(re.escape(v)), f"contain {v!r}"
    assert m.matches is not None
    v = render(m.matches)
    return re.compile(v), f"match /{v}/"


def _safe(fn: Callable[[], Any], default: str = "(no such element)") -> str:
    try:
        return repr(fn())
    except (PlaywrightError, PlaywrightTimeout):
        return default


def check_one(page: Page, key: str, arg: Any, render: Callable[[str], str], timeout_ms: float) -> DomVerdict:
    """Judge one assertion key; never raises for a plain mismatch."""
    try:
        return _check(page, key, arg, render, timeout_ms)
    except AssertionError as exc:  # Playwright's expect: we build our own message from the state
        return DomVerdict(False, key, str(exc).splitlines()[0])
    except (PlaywrightError, PlaywrightTimeout) as exc:
        err = classify(exc, f"expect {key}")
        if isinstance(err, BrokenRun):
            raise err from None
        return DomVerdict(False, key, str(err))


_STATE_METHODS = {
    "visible": "to_be_visible",
    "hidden": "to_be_hidden",
    "enabled": "to_be_enabled",
    "disabled": "to_be_disabled",
    "checked": "to_be_checked",
    "unchecked": "not_to_be_checked",
}


def _state(page: Page, key: str, arg: Any, render: Callable[[str], str], t: float) -> DomVerdict:
    """visible, hidden, enabled, disabled, checked, unchecked."""
    assert isinstance(arg, Locator)
    loc = resolve(page, arg, render)
    name = describe(arg, render)
    try:
        getattr(expect(loc), _STATE_METHODS[key])(timeout=t)
        return DomVerdict(True, f"{name} to be {key}", key)
    except AssertionError:
        count = loc.count()
        if count == 0:
            actual = "no element matches"
        elif count > 1 and key not in ("hidden",):
            actual = f"{count} elements match (the locator must be unique)"
        else:
            actual = f"not {key}"
        return DomVerdict(False, f"{name} to be {key}", actual)


def _text_or_value(page: Page, key: str, arg: Any, render: Callable[[str], str], t: float) -> DomVerdict:
    assert isinstance(arg, LocText)
    loc = resolve(page, arg, render)
    pattern, words = _pattern(arg, render)
    name = describe(arg, render)
    try:
        if key == "text":
            if arg.contains is not None:
                expect(loc).to_contain_text(render(arg.contains), timeout=t)
            else:
                expect(loc).to_have_text(pattern, timeout=t)
        else:
            expect(loc).to_have_value(pattern, timeout=t)
        return DomVerdict(True, f"{key} of {name} to {words}", "as expected")
    except AssertionError:
        getter = loc.first.inner_text if key == "text" else loc.first.input_value
        actual = _safe(lambda: getter(timeout=200))
        count = _matches(loc)
        if count > 1:  # name the ambiguity, as ops do: the first match alone may look right
            actual = f"{count} elements match (the locator must be unique; add nth, exact or within); first: {actual}"
        return DomVerdict(False, f"{key} of {name} to {words}", actual)


def _matches(loc: Any) -> int:
    try:
        return int(loc.count())
    except (PlaywrightError, PlaywrightTimeout):
        return 0


def _count(page: Page, key: str, arg: Any, render: Callable[[str], str], t: float) -> DomVerdict:
    assert isinstance(arg, LocCount)
    loc = resolve(page, arg, render)
    bounds = []
    if arg.equals is not None:
        bounds.append(f"== {arg.equals}")
    if arg.min is not None:
        bounds.append(f">= {arg.min}")
    if arg.max is not None:
        bounds.append(f"<= {arg.max}")
    wanted = f"count of {describe(arg, render)} {' and '.join(bounds)}"
    deadline = time.monotonic() + t / 1000
    while True:
        n = loc.count()
        ok = (
            (arg.equals is None or n == arg.equals)
            and (arg.min is None or n >= arg.min)
            and (arg.max is None or n <= arg.max)
        )
        if ok or time.monotonic() >= deadline:
            return DomVerdict(ok, wanted, f"{n}")
        page.wait_for_timeout(100)


def _url_or_title(page: Page, key: str, arg: Any, render: Callable[[str], str], t: float) -> DomVerdict:
    assert isinstance(arg, TextMatch)
    pattern, words = _pattern(arg, render)
    try:
        if key == "url":
            expect(page).to_have_url(pattern, timeout=t)
        else:
            expect(page).to_have_title(pattern, timeout=t)
        return DomVerdict(True, f"{key} to {words}", "as expected")
    except AssertionError:
        actual = page.url if key == "url" else _safe(page.title)
        return DomVerdict(False, f"{key} to {words}", actual)


def _js_truthy(value: Any) -> bool:
    """JavaScript truthiness of a value Playwright brought back (objects and arrays are truthy)."""
    if isinstance(value, (dict, list)):
        return True
    if isinstance(value, float) and math.isnan(value):
        return False
    return bool(value)


def _js(page: Page, key: str, arg: Any, render: Callable[[str], str], t: float) -> DomVerdict:
    """Poll the expression until it is truthy. ``page.evaluate`` awaits a returned Promise, so a
    Promise resolving to false fails (``wait_for_function`` would take the Promise itself as truthy)."""
    expr = render(arg)
    wanted = f"js {expr} to be truthy"
    deadline = time.monotonic() + t / 1000
    while True:
        value = page.evaluate(expr)
        if _js_truthy(value):
            return DomVerdict(True, wanted, "truthy")
        if time.monotonic() >= deadline:
            return DomVerdict(False, wanted, repr(value))
        page.wait_for_timeout(100)


_Assertion = Callable[[Page, str, Any, Callable[[str], str], float], DomVerdict]
# One entry per key of ``expect`` (workflow.model.EXPECT_KEYS).
_ASSERTIONS: dict[str, _Assertion] = {
    **dict.fromkeys(_STATE_METHODS, _state),
    "text": _text_or_value,
    "value": _text_or_value,
    "count": _count,
    "url": _url_or_title,
    "title": _url_or_title,
    "js": _js,
}


def _check(page: Page, key: str, arg: Any, render: Callable[[str], str], t: float) -> DomVerdict:
    assertion = _ASSERTIONS.get(key)
    if assertion is None:
        raise AssertionError(f"assertion {key} has no implementation")
    return assertion(page, key, arg, render, t)


def check_expect(page: Page, exp: Expect, render: Callable[[str], str], timeout_ms: float) -> list[DomVerdict]:
    """All keys of one ``expect`` mapping; stops at the first that fails (the rest would only wait too)."""
    out: list[DomVerdict] = []
    for key, arg in exp.items():
        verdict = check_one(page, key, arg, render, timeout_ms)
        out.append(verdict)
        if not verdict.ok:
            break
    return out
