"""The handlers of the ops on form fields and keys: check, uncheck, fill, type, change, select
(the widgets a person sees: ``widgets``), press, scroll, wait and eval."""

from __future__ import annotations

import time

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator as PwLocator
from playwright.sync_api import expect

from ..workflow import ops as registry
from ..workflow.locators import Locator
from ..workflow.op_args import (
    FillArgs,
    PressArgs,
    ScrollBy,
    ScrollTo,
    SelectArgs,
    TypeArgs,
    WaitArgs,
)
from ..workflow.ops import describe_op
from . import widgets
from .change import CannotChange, change
from .locators import describe, resolve
from .masking import track_secret
from .observe import await_document, navigation_s
from .op_context import OpContext, OpFailed
from .op_errors import MARK_SECRET, not_answered
from .pages import until_loaded
from .scripts import ms_left, run_once, wait_for_next_document


def _tick(checked: bool) -> registry.Handler:
    """check / uncheck. Playwright clicks, then fails at once when the state did not change, but a
    controlled checkbox (React, Vue) shows its new state only when the app re-renders, after a
    timer or a request: a person sees it ticked a moment later. So the click is followed by a wait
    for the state, up to the op's timeout, and only a state that never comes fails the op. A box
    a library draws in place of an invisible input, a ``role=switch``, a web component's: what a
    person clicks (``widgets.set_checked``)."""
    word = "checked" if checked else "unchecked"

    def handler(ctx: OpContext, arg: Locator) -> None:
        loc = resolve(ctx.page, arg, ctx.render)
        widgets.set_checked(ctx, arg, loc, checked, lambda: _playwright_tick(ctx, loc, checked, word))

    return handler


def _playwright_tick(ctx: OpContext, loc: PwLocator, checked: bool, word: str) -> None:
    started = time.monotonic()
    try:
        loc.set_checked(checked, timeout=ctx.action_timeout_ms)
        return
    except PlaywrightError as exc:
        if "did not change its state" not in str(exc):
            raise
    left = max(ctx.action_timeout_ms - (time.monotonic() - started) * 1000, 1)
    try:
        expect(loc).to_be_checked(checked=checked, timeout=left)
    except AssertionError:
        what = ctx.render(describe_op(ctx.op)) if ctx.op is not None else f"{'check' if checked else 'uncheck'}"
        raise OpFailed(
            what,
            f"the checkbox was clicked but did not become {word} within {ctx.action_timeout_ms / 1000:g}s",
            "no_state",
        ) from None


registry.attach("check", _tick(True))
registry.attach("uncheck", _tick(False))


@registry.handles("fill")
def _fill(ctx: OpContext, arg: FillArgs) -> None:
    loc = resolve(ctx.page, arg, ctx.render)
    values = [arg.value] if isinstance(arg.value, str) else list(arg.value)

    def playwright(widget: widgets.Widget | None) -> None:
        assert isinstance(arg.value, str)
        if widget is None:
            loc.fill(_typed_value(loc, "fill", arg, ctx), timeout=ctx.action_timeout_ms)
            return
        field = widget.element()
        assert field is not None
        field.fill(_typed_value(loc, "fill", arg, ctx), timeout=ctx.action_timeout_ms)

    widgets.fill(ctx, arg, loc, [ctx.reveal(v) for v in values], playwright)


@registry.handles("type")
def _type(ctx: OpContext, arg: TypeArgs) -> None:
    loc = resolve(ctx.page, arg, ctx.render)
    loc.press_sequentially(_typed_value(loc, "type", arg, ctx), timeout=ctx.action_timeout_ms)


def _typed_value(loc: PwLocator, kind: str, arg: TypeArgs | FillArgs, ctx: OpContext) -> str:
    """The value to type, secrets filled in; an element given a secret is painted over in every
    screenshot from now on (the placeholder, never the value, names it in the report)."""
    assert isinstance(arg.value, str)
    value = ctx.reveal(arg.value)
    if value != ctx.render(arg.value):
        track_secret(loc, f"{kind} {describe(arg.plain(), ctx.render)} (value {arg.value})")
        # What is read back from this element later is secret too (extract_value checks the mark).
        loc.evaluate(MARK_SECRET, timeout=ctx.action_timeout_ms)
    return value


@registry.handles("change")
def _change(ctx: OpContext, arg: TypeArgs) -> None:
    loc = resolve(ctx.page, arg, ctx.render)
    try:
        change(loc, _typed_value(loc, "change", arg, ctx), ctx.action_timeout_ms)
    except CannotChange as exc:
        raise OpFailed(ctx.render(describe_op(ctx.op)) if ctx.op else "change", str(exc), "script") from None


@registry.handles("select")
def _select(ctx: OpContext, arg: SelectArgs) -> None:
    options = [ctx.reveal(o) for o in ([arg.option] if isinstance(arg.option, str) else arg.option)]
    loc = resolve(ctx.page, arg, ctx.render)
    if any(ctx.reveal(o) != ctx.render(o) for o in ([arg.option] if isinstance(arg.option, str) else arg.option)):
        track_secret(loc, f"select {describe(arg.plain(), ctx.render)} (option {arg.option})")
    listed = not isinstance(arg.option, str)

    def playwright() -> None:
        loc.select_option(options, timeout=ctx.action_timeout_ms)

    widgets.select(ctx, arg, loc, options, listed, playwright)


@registry.handles("press")
def _press(ctx: OpContext, arg: str | PressArgs) -> None:
    if isinstance(arg, PressArgs):
        resolve(ctx.page, arg, ctx.render).press(ctx.render(arg.key), timeout=ctx.action_timeout_ms)
        return
    key = ctx.render(arg)
    # A bare key goes to the focused element. Pressed through a locator, Playwright waits for a
    # navigation the key started (Enter submitting a search form) before the next op runs;
    # page.keyboard.press does not, and the next op could land on the page being left.
    focused = ctx.page.locator(_FOCUSED)
    if focused.count() == 1:
        focused.press(key, timeout=ctx.action_timeout_ms)
    else:
        ctx.page.keyboard.press(key)


# The focused element of the page itself: nothing focused (the body gets keys), a frame (its inner
# element does) or a shadow host (matched twice) leave the key to page.keyboard.
_FOCUSED = ":focus:not(body):not(iframe):not(frame)"


_SCROLL_TO = "(el, p) => { if (p.left !== null) el.scrollLeft = p.left; if (p.top !== null) el.scrollTop = p.top; }"


@registry.handles("scroll")
def _scroll(ctx: OpContext, arg: ScrollBy | Locator) -> None:
    if isinstance(arg, ScrollBy):
        ctx.page.mouse.wheel(0, arg.by)
    elif isinstance(arg, ScrollTo):
        position = {"left": arg.left, "top": arg.top}
        resolve(ctx.page, arg, ctx.render).evaluate(_SCROLL_TO, position, timeout=ctx.action_timeout_ms)
    else:
        resolve(ctx.page, arg, ctx.render).scroll_into_view_if_needed(timeout=ctx.action_timeout_ms)


@registry.handles("wait")
def _wait(ctx: OpContext, arg: int | WaitArgs) -> None:
    if isinstance(arg, WaitArgs):
        resolve(ctx.page, arg, ctx.render).wait_for(state=arg.state, timeout=ctx.action_timeout_ms)
    else:
        ctx.page.wait_for_timeout(int(arg))


@registry.handles("eval")
def _eval(ctx: OpContext, arg: str) -> None:
    page = ctx.page
    deadline = time.monotonic() + ctx.action_timeout_ms / 1000
    # Its value is not used: not brought back (nothing to lose when the page goes). A returned
    # Promise is awaited.
    ran = run_once(page, ctx.reveal(arg), ctx.action_timeout_ms, keep_value=False, watch=True)
    # A script that navigates (location.reload(), form.submit(), location.href = ...) is done as a
    # click on a link is: the next op and check meet the new page once it has loaded, within the
    # navigation budget (the op's own timeout is for the script).
    arrived = not ran.navigated or wait_for_next_document(page, ran, navigation_s(page) * 1000)
    if not arrived and await_document(page) is not None:
        raise not_answered(ctx, page, ctx.render(describe_op(ctx.op)) if ctx.op is not None else "eval")
    until_loaded(page, ctx.action_timeout_ms if ran.navigated else ms_left(deadline))
