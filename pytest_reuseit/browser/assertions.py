"""DOM assertions (``expect:``), auto-waiting like Playwright's own ``expect``.

Each returns a :class:`DomVerdict` with the expected and the actual value in words, so a
failure report can say "expected text of css='.price' to contain '$' — actual: '€49.99'".
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from ..errors import BrokenRun
from ..workflow.checks import (
    DownloadExpect,
    Expect,
    LocAttribute,
    LocCount,
    LocCss,
    LocJsProperty,
    LocRole,
    LocText,
    LocTexts,
    LocValues,
    LocViewport,
    TextMatch,
    VariableMatch,
)
from ..workflow.locators import Locator
from .locators import FrameNotLoaded, describe, resolve, wait_for_frames
from .observe import close_if_unresponsive
from .ops import classify
from .pages import Pages
from .scripts import ms_left, run_script
from .verdict import DomVerdict
from .widgets import checks as widget_checks


def _pattern(m: TextMatch, render: Callable[[str], str]) -> tuple[str | re.Pattern[str], str]:
    if m.equals is not None:
        v = render(m.equals)
        return v, f"equal {v!r}"
    if m.contains is not None:
        v = render(m.contains)
        return re.compile(re.escape(v)), f"contain {v!r}"
    assert m.matches is not None
    v = render(m.matches)
    return _compiled(v), f"match /{v}/"


# A leading group of inline flags (``(?i)``, as import writes a case-blind match) is Python's: the
# browser's RegExp refuses it ("Invalid group"), so its letters become the pattern's flags, which
# Playwright sends as the RegExp's own.
_INLINE_FLAGS = re.compile(r"\(\?([ims]+)\)")
_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL}


def _compiled(source: str) -> re.Pattern[str]:
    lead = _INLINE_FLAGS.match(source)
    if lead is None:
        return re.compile(source)
    flags = 0
    for letter in lead.group(1):
        flags |= _FLAGS[letter]
    return re.compile(source[lead.end() :], flags)


def _safe(fn: Callable[[], Any], default: str = "(no such element)") -> str:
    try:
        return repr(fn())
    except (PlaywrightError, PlaywrightTimeout):
        return default


def check_one(target: Page | Pages, key: str, arg: Any, render: Callable[[str], str], timeout_ms: float) -> DomVerdict:
    """Judge one assertion key on the current page; never raises for a plain mismatch."""
    try:
        if key in PAGE_HOLDER_KEYS:
            pages = target if isinstance(target, Pages) else Pages(target)
            if key == "dialog":
                return _check_dialog(pages, arg, render, timeout_ms)
            return _check_download(pages, arg, render)
        return _check(target.page if isinstance(target, Pages) else target, key, arg, render, timeout_ms)
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
    "attached": "to_be_attached",
    "detached": "not_to_be_attached",
    "focused": "to_be_focused",
    "editable": "to_be_editable",
}


def _state(page: Page, key: str, arg: Any, render: Callable[[str], str], t: float) -> DomVerdict:
    """visible, hidden, enabled, disabled, checked, unchecked, attached, detached, focused, editable."""
    assert isinstance(arg, Locator)
    loc = resolve(page, arg, render)
    if key in ("checked", "unchecked") and not widget_checks.playwright_reads(loc, arg, "checked"):
        return widget_checks.checked(page, key, arg, render, t)  # a box, switch or radio a library draws
    name = describe(arg, render)
    try:
        getattr(expect(loc), _STATE_METHODS[key])(timeout=t)
        return DomVerdict(True, f"{name} to be {key}", key)
    except AssertionError:
        count = loc.count()
        if count == 0:
            actual = "no element matches"
        elif count > 1 and key not in ("hidden", "detached"):
            actual = ambiguous(count)
        else:
            actual = f"not {key}"
        return DomVerdict(False, f"{name} to be {key}", actual)


def _text_or_value(page: Page, key: str, arg: Any, render: Callable[[str], str], t: float) -> DomVerdict:
    assert isinstance(arg, LocText)
    loc = resolve(page, arg, render)
    if key == "value" and not widget_checks.playwright_reads(loc, arg, "value"):
        return widget_checks.value(page, key, arg, render, t)  # a slider, a date picker, a drawn field
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
        # Several matches fail the assertion whatever their text: showing the first one's text
        # would read as "expected X, actual X".
        try:
            count = loc.count()
        except PlaywrightError:
            count = 0
        if count > 1:
            return DomVerdict(False, f"{key} of {name} to {words}", ambiguous(count))
        getter = loc.first.inner_text if key == "text" else loc.first.input_value
        actual = _safe(lambda: getter(timeout=200))
        count = _element_count(loc)
        if count > 1:  # name the ambiguity, as ops do: the first match alone may look right
            actual = f"{ambiguous(count)}; first: {actual}"
        return DomVerdict(False, f"{key} of {name} to {words}", actual)


def _texts(page: Page, key: str, arg: Any, render: Callable[[str], str], t: float) -> DomVerdict:
    """The texts of every match, in order (Playwright's ``to_have_text`` with a list)."""
    assert isinstance(arg, LocTexts)
    loc = resolve(page, arg, render)
    whole = arg.equals is not None
    wanted = [render(v) for v in (arg.equals if whole else arg.contains) or ()]
    words = f"texts of {describe(arg, render)} to {'be' if whole else 'contain'} {wanted!r}"
    try:
        if whole:
            expect(loc).to_have_text(wanted, timeout=t)
        else:
            expect(loc).to_contain_text(wanted, timeout=t)
        return DomVerdict(True, words, "as expected")
    except AssertionError:
        return DomVerdict(False, words, _safe(lambda: [" ".join(x.split()) for x in loc.all_inner_texts()]))


# The selected options' values of a list box, or what the element is instead. As Playwright's
# toHaveValues, an element that is no field stands for the field its label names.
_SELECTED = """el => {
  const fields = 'a, input, textarea, button, select, [role=link], [role=button], [role=checkbox], [role=switch], [role=radio]';
  const label = el.matches(fields) || el.isContentEditable ? null : el.closest('label');
  if (label && label.control) el = label.control;
  if (el.nodeName === 'SELECT' && el.multiple) return {values: [...el.selectedOptions].map((o) => o.value)};
  return {other: el.nodeName === 'SELECT' ? 'a <select> without multiple' : '<' + el.nodeName.toLowerCase() + '>'};
}"""


def _values(page: Page, key: str, arg: Any, render: Callable[[str], str], t: float) -> DomVerdict:
    """The values of a list box's selected options, in order (Playwright's ``to_have_values``)."""
    assert isinstance(arg, LocValues)
    loc = resolve(page, arg, render)
    wanted = [render(v) for v in arg.equals]
    words = f"values of {describe(arg, render)} to be {wanted!r}"
    try:
        expect(loc).to_have_values(wanted, timeout=t)
        return DomVerdict(True, words, repr(wanted))  # what the page has: read under not
    except AssertionError:
        if not_one := _not_one(loc):
            return DomVerdict(False, words, not_one)
        try:
            shown = loc.first.evaluate(_SELECTED, timeout=1000)
        except (PlaywrightError, PlaywrightTimeout):
            return DomVerdict(False, words, "(no such element)")
        if "other" in shown:
            return DomVerdict(False, words, f"not a list box (<select multiple>): {shown['other']}", judgeable=False)
        return DomVerdict(False, words, repr(shown["values"]))


def _attribute(page: Page, key: str, arg: Any, render: Callable[[str], str], t: float) -> DomVerdict:
    assert isinstance(arg, LocAttribute)
    loc = resolve(page, arg, render)
    pattern, words = _pattern(arg, render)
    wanted = f"attribute {arg.attr} of {describe(arg, render)} to {words}"
    try:
        expect(loc).to_have_attribute(arg.attr, pattern, timeout=t)
        return DomVerdict(True, wanted, "as expected")
    except AssertionError:
        count = _element_count(loc)
        if count > 1:
            return DomVerdict(False, wanted, ambiguous(count))
        return DomVerdict(False, wanted, _safe(lambda: loc.first.get_attribute(arg.attr, timeout=200)))


def _css(page: Page, key: str, arg: Any, render: Callable[[str], str], t: float) -> DomVerdict:
    assert isinstance(arg, LocCss)
    loc = resolve(page, arg, render)
    pattern, words = _pattern(arg, render)
    wanted = f"style {arg.property} of {describe(arg, render)} to {words}"
    # The one element is there: reading what it shows gets a second (200 ms ran out on a loaded machine).
    script = "(el, name) => getComputedStyle(el).getPropertyValue(name)"
    return _by_matcher(
        loc,
        wanted,
        "as expected",
        lambda: expect(loc).to_have_css(arg.property, pattern, timeout=t),
        lambda _: _safe(lambda: loc.first.evaluate(script, arg.property, timeout=1000)),
    )


def _empty(page: Page, key: str, arg: Any, render: Callable[[str], str], t: float) -> DomVerdict:
    assert isinstance(arg, Locator)
    loc = resolve(page, arg, render)
    wanted = f"{describe(arg, render)} to be empty"
    try:
        expect(loc).to_be_empty(timeout=t)
        return DomVerdict(True, wanted, "empty")
    except AssertionError:
        return DomVerdict(False, wanted, _not_one(loc) or "not empty")


def _received(exc: AssertionError) -> str:
    """What the page has, as Playwright's failed assertion says it ("Actual value: ...")."""
    for line in str(exc).splitlines():
        if line.startswith("Actual value:"):
            return line.removeprefix("Actual value:").strip()
    return str(exc).splitlines()[0] if str(exc) else "(not read)"


def _in_viewport(page: Page, key: str, arg: Any, render: Callable[[str], str], t: float) -> DomVerdict:
    """Any part of the element in the viewport, or at least ``ratio`` of it (``to_be_in_viewport``)."""
    assert isinstance(arg, LocViewport)
    loc = resolve(page, arg, render)
    share = f" (at least {arg.ratio:g} of it)" if arg.ratio else ""
    wanted = f"{describe(arg, render)} to be in the viewport{share}"
    return _by_matcher(
        loc,
        wanted,
        "in the viewport",
        lambda: expect(loc).to_be_in_viewport(ratio=arg.ratio, timeout=t),
        _received,  # "viewport ratio 0.25"
    )


def _accessible(page: Page, key: str, arg: Any, render: Callable[[str], str], t: float) -> DomVerdict:
    """The accessible name or description (``to_have_accessible_name``/``_description``), whitespace
    collapsed as Playwright does; ``contains`` is a pattern of the text, Playwright having no
    substring option for them."""
    assert isinstance(arg, LocText)
    loc = resolve(page, arg, render)
    pattern, words = _pattern(arg, render)
    wanted = f"{key.replace('_', ' ')} of {describe(arg, render)} to {words}"
    matcher = (
        expect(loc).to_have_accessible_name if key == "accessible_name" else expect(loc).to_have_accessible_description
    )
    return _by_matcher(
        loc,
        wanted,
        repr(pattern) if isinstance(pattern, str) else "as expected",
        lambda: matcher(pattern, timeout=t),
        lambda exc: repr(_received(exc)),
    )


def _has_role(page: Page, key: str, arg: Any, render: Callable[[str], str], t: float) -> DomVerdict:
    """The element's ARIA role, explicit or implicit (``to_have_role``)."""
    assert isinstance(arg, LocRole)
    loc = resolve(page, arg, render)
    role = render(arg.equals)
    wanted = f"role of {describe(arg, render)} to be {role!r}"
    return _by_matcher(
        loc,
        wanted,
        repr(role),
        lambda: expect(loc).to_have_role(role, timeout=t),  # type: ignore[arg-type]  # a role of ARIA_ROLES
        lambda exc: repr(_received(exc)),
    )


def _filled(value: Any, render: Callable[[str], str]) -> Any:
    """A JSON value with the placeholders of its texts filled."""
    if isinstance(value, str):
        return render(value)
    if isinstance(value, list):
        return [_filled(v, render) for v in value]
    if isinstance(value, dict):
        return {k: _filled(v, render) for k, v in value.items()}
    return value


def _js_property(page: Page, key: str, arg: Any, render: Callable[[str], str], t: float) -> DomVerdict:
    """A JavaScript property of the element, deeply equal to a JSON value (``to_have_js_property``)."""
    assert isinstance(arg, LocJsProperty)
    loc = resolve(page, arg, render)
    wanted_value = _filled(arg.equals, render)
    words = json.dumps(wanted_value, ensure_ascii=False)
    wanted = f"property {arg.property} of {describe(arg, render)} to equal {words}"

    def found(exc: AssertionError) -> str:
        try:  # the value as JSON writes it, as the expected one is written
            has = loc.first.evaluate("(el, name) => el[name]", arg.property, timeout=1000)
            return json.dumps(has, ensure_ascii=False, default=repr)
        except (PlaywrightError, PlaywrightTimeout):
            return _received(exc)

    return _by_matcher(
        loc, wanted, words, lambda: expect(loc).to_have_js_property(arg.property, wanted_value, timeout=t), found
    )


_NOT_LOOK_MS = 50.0


def _not(page: Page, key: str, arg: Any, render: Callable[[str], str], t: float) -> DomVerdict:
    """Holds once the inner assertions fail (any of them), as Playwright's ``not.`` waits for that;
    each look at them is short, so the whole waits about ``t``."""
    assert isinstance(arg, Expect)
    deadline = time.monotonic() + t / 1000
    while True:
        # A short look each time (0 would be Playwright's "no timeout": wait for ever).
        verdicts = check_expect(page, arg, render, _NOT_LOOK_MS)
        held = all(v.ok for v in verdicts)
        wanted = "not: " + "; ".join(v.expected for v in verdicts)
        unasked = [v.actual for v in verdicts if not v.judgeable]
        if unasked:
            return DomVerdict(False, wanted, "; ".join(unasked), judgeable=False)
        if not held:
            return DomVerdict(True, wanted, "; ".join(v.actual for v in verdicts if not v.ok))
        if time.monotonic() >= deadline:
            return DomVerdict(False, wanted, "; ".join(v.actual for v in verdicts))
        page.wait_for_timeout(100)


def ambiguous(count: int) -> str:
    """What a check's ``actual`` says when its locator matches several elements."""
    return f"{count} elements match (the locator must be unique: add nth, exact, has_text or within)"


def _element_count(loc: Any) -> int:
    try:
        return int(loc.count())
    except (PlaywrightError, PlaywrightTimeout):
        return 0


def _not_one(loc: Any) -> str:
    """What a failed check's ``actual`` says when its locator matches no element or several; ''
    for exactly one (what that one has is then the check's to say)."""
    count = _element_count(loc)
    return "" if count == 1 else "no element matches" if count == 0 else ambiguous(count)


def _by_matcher(
    loc: Any, wanted: str, held: str, matcher: Callable[[], None], found: Callable[[AssertionError], str]
) -> DomVerdict:
    """A check Playwright's own matcher judges (``matcher`` raises AssertionError when it does not
    hold): when it fails, no element or several is said so, else what the one element has (``found``)."""
    try:
        matcher()
        return DomVerdict(True, wanted, held)
    except AssertionError as exc:
        return DomVerdict(False, wanted, _not_one(loc) or found(exc))


def _count(page: Page, key: str, arg: Any, render: Callable[[str], str], t: float) -> DomVerdict:
    assert isinstance(arg, LocCount)
    loc = resolve(page, arg, render)
    equals, low, high = (_bound(name, getattr(arg, name), render) for name in ("equals", "min", "max"))
    bounds = []
    if equals is not None:
        bounds.append(f"== {equals}")
    if low is not None:
        bounds.append(f">= {low}")
    if high is not None:
        bounds.append(f"<= {high}")
    wanted = f"count of {describe(arg, render)} {' and '.join(bounds)}"
    deadline = time.monotonic() + t / 1000
    while True:
        n = loc.count()
        ok = (equals is None or n == equals) and (low is None or n >= low) and (high is None or n <= high)
        if ok or time.monotonic() >= deadline:
            return DomVerdict(ok, wanted, f"{n}")
        page.wait_for_timeout(100)


def _bound(name: str, value: int | str | None, render: Callable[[str], str]) -> int | None:
    """A count bound, its placeholder filled: a value that is no whole number leaves no verdict."""
    if value is None or isinstance(value, int):
        return value
    filled = render(value)
    try:
        return int(filled.strip())
    except ValueError:
        raise BrokenRun(f"count {name}: {value} is {filled!r}, not a whole number") from None


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
    """Poll the expression until it is truthy. A returned Promise is awaited, so one resolving to
    false fails; each evaluation gives up at the deadline (an endless loop does not hang the run)."""
    expr = render(arg)
    wanted = f"js {expr} to be truthy"
    deadline = time.monotonic() + t / 1000
    while True:
        try:
            # Half a second at least: the last poll may start at the deadline and must still run.
            value = run_script(page, expr, max(deadline - time.monotonic(), 0.5) * 1000)
        except PlaywrightTimeout:
            closed = close_if_unresponsive(page)
            return DomVerdict(False, wanted, closed or f"the expression did not finish within {t / 1000:g}s")
        if _js_truthy(value):
            return DomVerdict(True, wanted, "truthy")
        if time.monotonic() >= deadline:
            return DomVerdict(False, wanted, repr(value))
        page.wait_for_timeout(100)


def _variable(page: Page, key: str, arg: Any, render: Callable[[str], str], t: float) -> DomVerdict:
    """A value the run holds: nothing on the page changes it, so no waiting."""
    assert isinstance(arg, VariableMatch)
    value = render("{" + arg.name + "}")
    ok, words = _matches(arg, value, render)
    return DomVerdict(ok, f"{{{arg.name}}} to {words}", repr(value))


_Assertion = Callable[[Page, str, Any, Callable[[str], str], float], DomVerdict]
# Only the run's page holder has seen these: judged from it, not from a page.
PAGE_HOLDER_KEYS = ("dialog", "download")
# One entry per other key of ``expect`` (workflow.checks.EXPECT_KEYS).
_ASSERTIONS: dict[str, _Assertion] = {
    **dict.fromkeys(_STATE_METHODS, _state),
    "text": _text_or_value,
    "value": _text_or_value,
    "values": _values,
    "selected": widget_checks.selected,
    "in_viewport": _in_viewport,
    "accessible_name": _accessible,
    "accessible_description": _accessible,
    "has_role": _has_role,
    "js_property": _js_property,
    "count": _count,
    "texts": _texts,
    "attribute": _attribute,
    "style": _css,
    "empty": _empty,
    "not": _not,
    "url": _url_or_title,
    "title": _url_or_title,
    "js": _js,
    "variable": _variable,
}


def _check(page: Page, key: str, arg: Any, render: Callable[[str], str], t: float) -> DomVerdict:
    assertion = _ASSERTIONS.get(key)
    if assertion is None:
        raise AssertionError(f"assertion {key} has no implementation")
    if isinstance(arg, Locator) and (arg.frame is not None or arg.within is not None):
        deadline = time.monotonic() + t / 1000
        try:
            wait_for_frames(page, arg, render, t)
        except FrameNotLoaded as exc:
            return DomVerdict(False, f"{key} of {describe(arg, render)}", str(exc))
        t = ms_left(deadline)
    return assertion(page, key, arg, render, t)


def _matches(m: TextMatch, text: str, render: Callable[[str], str]) -> tuple[bool, str]:
    pattern, words = _pattern(m, render)
    if isinstance(pattern, str):
        return text == pattern, words
    return pattern.search(text) is not None, words


def _check_dialog(pages: Pages, arg: TextMatch, render: Callable[[str], str], t: float) -> DomVerdict:
    """The message of the last dialog shown (waits up to ``t`` for one to appear)."""
    deadline = time.monotonic() + t / 1000
    while pages.last_dialog() is None and time.monotonic() < deadline:
        pages.page.wait_for_timeout(100)
    last = pages.last_dialog()
    _, words = _pattern(arg, render)
    if last is None:
        return DomVerdict(False, f"a dialog message to {words}", "no dialog was shown")
    ok, _ = _matches(arg, last.message, render)
    return DomVerdict(ok, f"the last dialog's message to {words}", f"{last.type} {last.message!r} ({last.answer})")


def _check_download(pages: Pages, arg: DownloadExpect, render: Callable[[str], str]) -> DomVerdict:
    last = pages.last_download()
    wanted = []
    if arg.name is not None:
        wanted.append(f"name to {_pattern(arg.name, render)[1]}")
    if arg.contains is not None:
        wanted.append(f"contents to contain {render(arg.contains)!r}")
    expected = "the last download's " + " and ".join(wanted) if wanted else "a download"
    if last is None:
        return DomVerdict(False, expected, "nothing was downloaded")
    if arg.name is not None and not _matches(arg.name, last.name, render)[0]:
        return DomVerdict(False, expected, f"name {last.name!r}")
    if arg.contains is not None:
        try:
            text = Path(last.path).read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            return DomVerdict(False, expected, f"cannot read {last.name}: {exc}")
        if render(arg.contains) not in text:
            return DomVerdict(False, expected, f"{last.name} starts with {text[:200]!r}")
    return DomVerdict(True, expected, f"{last.name} ({last.size} bytes)")


def check_expect(
    target: Page | Pages, exp: Expect, render: Callable[[str], str], timeout_ms: float
) -> list[DomVerdict]:
    """All keys of one ``expect`` mapping; stops at the first that fails (the rest would only wait too)."""
    out: list[DomVerdict] = []
    for key, arg in exp.items():
        verdict = check_one(target, key, arg, render, timeout_ms)
        out.append(verdict)
        if not verdict.ok:
            break
    return out
