"""The ops on the widgets the web uses (workflow-format.md, "Widgets"): ``select``, ``check`` /
``uncheck`` and ``fill`` written the way a person says them, on native controls as Playwright
does, and on what component libraries draw instead.

On a LOC that names exactly one shown native control, each op is Playwright's own call, as
before: nothing more is asked of the page than one look at what the LOC matches. Anything else
(a custom dropdown, a hidden input and the box drawn for it, a ``<div>`` slider, a date picker, a
shadow root's control) goes to the widget's own op here: ``page.py`` finds the widget, then
``choose.py``, ``tick.py``, ``slide.py`` or ``date_fill.py`` act on it as a person does and read
back what it shows, so a value the page did not take fails the op.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator as PwLocator
from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from ...workflow.locators import Locator
from ..locators import describe
from ..op_context import OpContext, OpFailed
from . import dates
from .choose import choose
from .date_fill import fill_date
from .page import Widget, find, op_name
from .slide import slide
from .tick import tick

__all__ = ["Widget", "fill", "native", "on_element", "select", "set_checked"]

# Whether a locator names exactly one shown native control of a kind: then the op is
# Playwright's own call. One short look, without the widget script (native ops cost what
# Playwright's own call costs).
_NATIVE = """(els, kind) => {
  if (els.length !== 1) return false;
  const e = els[0];
  const r = e.getBoundingClientRect();
  if (r.width < 4 || r.height < 4 || (e.checkVisibility && !e.checkVisibility({visibilityProperty: true}))) return false;
  const cs = getComputedStyle(e);
  if (/rect\\(0(px)?,? 0(px)?,? 0(px)?,? 0(px)?\\)/.test(cs.clip)) return false;
  if (Number(cs.opacity) === 0 && cs.pointerEvents === 'none') return false;
  if (kind === 'select') return e.tagName === 'SELECT';
  if (kind === 'check') return e.tagName === 'INPUT' && (e.type === 'checkbox' || e.type === 'radio');
  const texty = (e.tagName === 'INPUT' && !['checkbox','radio','button','submit','reset','file','image','range','hidden'].includes(e.type))
    || e.tagName === 'TEXTAREA' || e.isContentEditable;
  if (!texty) return false;
  if (kind === 'fill-date') {
    // A text field a date picker owns takes a date its own way.
    const words = `${e.className} ${e.id} ${e.name || ''}`;
    const ph = e.getAttribute('placeholder') || '';
    if (e.tagName === 'INPUT' && ['date','datetime-local','month','week','time'].includes(e.type)) return true;
    if (e.readOnly || /date|picker|calendar|flatpickr/i.test(words) || ['dialog','grid','true'].includes(e.getAttribute('aria-haspopup'))) return false;
    if (/(yyyy|mm[\\/.-]|dd[\\/.-])/i.test(ph)) return false;
  }
  return true;
}"""


def native(loc: PwLocator, kind: str) -> bool:
    """Whether ``loc`` is exactly one shown native control for ``kind`` (select, check, fill,
    fill-date: a fill whose value is a date)."""
    return bool(loc.evaluate_all(_NATIVE, kind))


_DISABLED = "els => els.length === 1 && !!(els[0].disabled || els[0].closest('fieldset[disabled]') || els[0].getAttribute('aria-disabled') === 'true')"


def _playwright(ctx: OpContext, arg: Locator, loc: PwLocator, call: Callable[[], None], op: str) -> None:
    """Playwright's own call on a native control; one that stayed disabled for the op's whole
    timeout says so in one line, not as the call log of a timeout."""
    try:
        call()
    except PlaywrightTimeout:
        try:
            disabled = bool(loc.evaluate_all(_DISABLED))
        except PlaywrightError:
            disabled = False
        if not disabled:
            raise
        raise OpFailed(
            op,
            f"{describe(arg.plain(), ctx.render)} is disabled: it did not become enabled within {ctx.action_timeout_ms / 1000:g}s",
            "disabled",
        ) from None


def _look(ctx: OpContext, arg: Locator, loc: PwLocator, kind: str, op: str, thumbs: int = 1) -> Widget | None:
    """The widget the LOC names; None where nothing matches it yet and no label names a widget
    either: then Playwright's own call waits for the element and says what it waited for, as it
    always did."""
    if loc.count() > 0:
        return find(ctx, arg, kind, op, thumbs=thumbs)
    try:
        return find(ctx, arg, kind, op, thumbs=thumbs, wait=False)
    except OpFailed as exc:
        if exc.kind == "not_found" and exc.reason.startswith("timed out"):
            return None
        raise


def _is_date(value: str) -> bool:
    return dates.parse(value) is not None


def select(
    ctx: OpContext, arg: Locator, loc: PwLocator, options: list[str], listed: bool, playwright: Callable[[], None]
) -> None:
    """``select``: Playwright's ``select_option`` on a native ``<select>``, the widget's own way on any other."""
    op = op_name(ctx, "select")
    w = None if native(loc, "select") else _look(ctx, arg, loc, "select", op)
    if w is None or w.type == "native":
        try:
            _playwright(ctx, arg, loc, playwright, op)
        except PlaywrightTimeout:
            _missing_option(arg, loc, options, op, ctx)
            raise
        return
    choose(ctx, w, options, listed, op)


_OPTIONS = "els => els.length === 1 && els[0].tagName === 'SELECT' ? [...els[0].options].map(o => [o.label || o.textContent.trim(), o.value]) : null"


def _missing_option(arg: Locator, loc: PwLocator, options: list[str], op: str, ctx: OpContext) -> None:
    """A native ``<select>`` that never offered an option: the op fails listing what it offers."""
    try:
        offered = loc.evaluate_all(_OPTIONS)
    except PlaywrightError:
        return
    if offered is None:
        return
    for wanted in options:
        if not any(wanted in (label, value) for label, value in offered):
            listed = ", ".join(label for label, _ in offered[:12]) + (", ..." if len(offered) > 12 else "")
            raise OpFailed(
                op,
                f"{wanted!r} is not among the {len(offered)} options of {describe(arg.plain(), ctx.render)}: {listed}",
                "no_option",
            ) from None


def set_checked(ctx: OpContext, arg: Locator, loc: PwLocator, checked: bool, playwright: Callable[[], None]) -> None:
    """``check`` / ``uncheck``: Playwright's on a shown native checkbox or radio, else what a person clicks."""
    op = op_name(ctx, "check" if checked else "uncheck")
    if native(loc, "check"):
        _playwright(ctx, arg, loc, playwright, op)
        return
    w = _look(ctx, arg, loc, "check", op)
    if w is None or w.type == "native":
        _playwright(ctx, arg, loc, playwright, op)
        return
    tick(ctx, w, checked, op)


def fill(
    ctx: OpContext, arg: Locator, loc: PwLocator, values: list[str], playwright: Callable[[Widget | None], None]
) -> None:
    """``fill``: Playwright's on a text field, a slider set by keys or a drag, a date picked in its
    picker. ``playwright(widget)`` fills a text field (the one a widget found, when not ``loc``)."""
    one = values[0] if len(values) == 1 else None
    op = op_name(ctx, "fill")
    iso = one is not None and re.match(r"\s*\d{4}-\d{2}-\d{2}", one) is not None
    if one is not None and native(loc, "fill-date" if _is_date(one) else "fill") and (iso or not _is_date(one)):
        _playwright(ctx, arg, loc, lambda: playwright(None), op)
        return
    w = _look(ctx, arg, loc, "fill", op, thumbs=len(values))
    if w is None:
        if one is None:
            raise OpFailed(op, f"timed out: no element matches {describe(arg.plain(), ctx.render)}", "not_found")
        _playwright(ctx, arg, loc, lambda: playwright(None), op)
        return
    if w.type == "slider":
        slide(ctx, w, values, op)
        return
    if one is None:
        raise OpFailed(op, f"{w.what} is no slider of {len(values)} thumbs: give one value", "bad_value")
    if w.type == "segments" or (w.date and _is_date(one)) or (w.type == "native" and _is_date(one)):
        fill_date(ctx, w, one, op)
        return
    playwright(w)


@dataclass
class _OnPage(OpContext):
    """An op context on one page, for the agent's actions (it acts on the page it observes)."""

    on: Page | None = None

    @property
    def page(self) -> Page:
        assert self.on is not None
        return self.on


def on_element(page: Page, selector: str, action: str, value: str, timeout_ms: float) -> None:
    """The agent's ``select``, ``check``, ``uncheck`` and ``fill`` on an element of its
    observation: the same ops a workflow's ``do:`` runs, so a custom dropdown or a drawn switch
    is operated as a person does, and what the agent did compiles to the op that did it."""
    ctx = _OnPage(lambda s: s, lambda s: s, timeout_ms, {}, [], on=page)
    arg = Locator(selector=selector)
    loc = page.locator(selector)
    if action == "select":
        select(ctx, arg, loc, [value], False, lambda: _none(loc.select_option(value, timeout=timeout_ms)))
    elif action in ("check", "uncheck"):
        checked = action == "check"
        set_checked(ctx, arg, loc, checked, lambda: loc.set_checked(checked, timeout=timeout_ms))
    elif action == "fill":

        def playwright(w: Widget | None) -> None:
            field = w.element() if w is not None else None
            (field or loc).fill(value, timeout=timeout_ms)

        fill(ctx, arg, loc, [value], playwright)
    else:
        raise ValueError(f"no widget op for the agent's {action!r}")


def _none(_: object) -> None:
    return None
