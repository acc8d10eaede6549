"""DOM assertions on widgets: ``selected`` (what a select-like widget shows chosen), and ``value``
and ``checked`` / ``unchecked`` where the LOC names no single native control (a slider's number,
a date as a date, a drawn switch's state). Each looks again until its timeout, as Playwright's
assertions wait."""

from __future__ import annotations

import datetime as dt
import re
import time
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator as PwLocator
from playwright.sync_api import Page

from ...workflow.checks import LocSelected, LocText
from ...workflow.locators import Locator
from ..locators import describe
from ..op_context import OpFailed
from ..verdict import DomVerdict
from . import dates
from .date_fill import shown_date
from .page import Widget, call, find_in

Render = Callable[[str], str]

# How often a widget check looks again while it waits.
_LOOK_MS = 100

# Exactly one element that Playwright's own matcher reads: a form field for ``value`` (hidden or
# not), a checkbox, radio or ARIA checkable for ``checked``. None at all, for a LOC that names no
# label (a CSS selector): Playwright's matcher waits for it and says so, as before.
_PLAYWRIGHT_READS = """(els, [key, labelled]) => {
  if (els.length === 0) return !labelled;
  if (els.length !== 1) return false;
  const e = els[0];
  if (key === 'value') return ['INPUT', 'TEXTAREA', 'SELECT'].includes(e.tagName);
  return (e.tagName === 'INPUT' && ['checkbox', 'radio'].includes(e.type))
    || ['checkbox', 'switch', 'radio', 'menuitemcheckbox', 'menuitemradio'].includes(e.getAttribute('role'));
}"""


def playwright_reads(loc: PwLocator, arg: Locator, key: str) -> bool:
    """Whether ``loc`` is one element Playwright's own ``value`` / ``checked`` matcher reads."""
    labelled = arg.label is not None or (arg.role is not None and arg.name is not None)
    try:
        return bool(loc.evaluate_all(_PLAYWRIGHT_READS, [key, labelled]))
    except PlaywrightError:
        return True  # its frame is going: Playwright's matcher says what it can


def _until(page: Page, t: float, look: Callable[[], tuple[bool, str]]) -> tuple[bool, str]:
    deadline = time.monotonic() + t / 1000
    while True:
        ok, actual = look()
        if ok or time.monotonic() >= deadline:
            return ok, actual
        page.wait_for_timeout(_LOOK_MS)


def _widget(page: Page, arg: Locator, render: Render, kind: str) -> Widget | str:
    """The widget ``arg`` names now (one look), or what was found instead, in words."""
    try:
        return find_in(page, arg, render, 1000, kind, f"expect {kind}", wait=False)
    except OpFailed as exc:
        return exc.reason
    except PlaywrightError as exc:
        return str(exc).splitlines()[0]


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def selected(page: Page, key: str, arg: Any, render: Render, t: float) -> DomVerdict:
    """``selected``: the labels of the option(s) the widget shows chosen."""
    assert isinstance(arg, LocSelected)
    name = describe(arg.plain(), render)
    if arg.contains is not None:
        wanted_words = f"contain {render(arg.contains)!r}"
    elif isinstance(arg.equals, str):
        wanted_words = f"be {render(arg.equals)!r}"
    else:
        wanted_words = f"be exactly {[render(v) for v in arg.equals or ()]!r}"
    words = f"the option(s) {name} shows chosen to {wanted_words}"

    def look() -> tuple[bool, str]:
        w = _widget(page, arg, render, "select")
        if isinstance(w, str):
            return False, w
        shown: list[str] = call(w.handle, "chosen", [])
        actual = repr(shown) if shown else "nothing chosen"
        if arg.contains is not None:
            return any(_norm(render(arg.contains)) in _norm(s) for s in shown), actual
        if isinstance(arg.equals, str):
            want = _norm(render(arg.equals))
            return len(shown) == 1 and _norm(shown[0]) == want, actual
        wanted = sorted(_norm(render(v)) for v in arg.equals or ())
        return sorted(_norm(s) for s in shown) == wanted, actual

    ok, actual = _until(page, t, look)
    return DomVerdict(ok, words, actual)


def _fmt(x: float | None) -> str:
    return "?" if x is None else f"{x:g}"


def widget_value(w: Widget) -> tuple[str, dt.date | None]:
    """What a widget holds as text (a slider's number, ``20, 80`` for two thumbs; a date as ISO;
    a combobox's choice), and the date when it is one."""
    if w.type == "slider":
        nows = [t.evaluate("el => window.__reuseitWidgets.thumb(el).now") for t in w.elements("thumbs")]
        return ", ".join(_fmt(n) for n in nows), None
    if w.type == "segments" or w.date:
        date, text = shown_date(w)
        return (date.isoformat() if date else text), date
    el = w.element()
    value = str(el.evaluate("e => 'value' in e ? e.value : e.textContent") if el is not None else "")
    return value, None


def value(page: Page, key: str, arg: Any, render: Render, t: float) -> DomVerdict:
    """``value`` of what no single native field holds: read from the widget, a date as a date."""
    assert isinstance(arg, LocText)
    name = describe(arg.plain(), render)
    if arg.equals is not None:
        words = f"equal {render(arg.equals)!r}"
    elif arg.contains is not None:
        words = f"contain {render(arg.contains)!r}"
    else:
        words = f"match /{render(arg.matches or '')}/"
    wanted = f"value of {name} to {words}"

    def look() -> tuple[bool, str]:
        w = _widget(page, arg, render, "fill")
        if isinstance(w, str):
            return False, w
        text, date = widget_value(w)
        if arg.equals is not None:
            want = render(arg.equals)
            want_date = dates.parse(want)
            if date is not None and want_date is not None:
                return date == want_date, repr(text)
            if w.type == "slider":
                try:
                    numbers = [float(x) for x in want.split(",")]
                    got = [float(x) for x in text.split(",")]
                    return numbers == got, repr(text)
                except ValueError:
                    pass
            return text == want, repr(text)
        if arg.contains is not None:
            return render(arg.contains) in text, repr(text)
        return re.search(render(arg.matches or ""), text) is not None, repr(text)

    ok, actual = _until(page, t, look)
    return DomVerdict(ok, wanted, actual)


def checked(page: Page, key: str, arg: Any, render: Render, t: float) -> DomVerdict:
    """``checked`` / ``unchecked`` of a checkbox, switch or radio a library draws."""
    assert isinstance(arg, Locator)
    want = key == "checked"
    name = describe(arg.plain(), render)

    def look() -> tuple[bool, str]:
        w = _widget(page, arg, render, "check")
        if isinstance(w, str):
            return False, w
        state = bool(call(w.handle, "ticked"))
        return state == want, "checked" if state else "not checked"

    ok, actual = _until(page, t, look)
    return DomVerdict(ok, f"{name} to be {key}", key if ok else actual)
