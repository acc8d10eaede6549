"""Deterministic ops (the ``do:`` lists): the handlers of the registry's built-in ops.

Each op is declared once in ``workflow/ops.py`` (name, argument model, description); its handler
is attached here. Handlers act on the run's current page (``ctx.page``).

Errors are sorted here, once: the page did not let the op happen (``OpFailed``: a locator found
nothing, an element never became actionable, a script threw) is a *failure* the engine may
recover from or heal; the browser or the site being gone (``BrokenRun``) is *broken*.
"""

from __future__ import annotations

import json
import logging
import math
import re
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import FloatRect, Page, expect
from playwright.sync_api import Locator as PwLocator
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from ..errors import BrokenRun, ReuseitError
from ..workflow import ops as registry
from ..workflow.locators import Locator
from ..workflow.op_args import (
    DispatchArgs,
    DragArgs,
    Extract,
    FillArgs,
    PressArgs,
    ScrollBy,
    ScrollTo,
    SelectArgs,
    TypeArgs,
    UploadArgs,
    WaitArgs,
)
from ..workflow.ops import Op, describe_op

# The handlers of the ops on pages (switch_page, close_page, back, forward, reload) attach themselves.
from . import page_ops, widgets  # noqa: F401
from .change import CannotChange, change
from .drag import missing_end, which_end
from .locators import describe, resolve
from .masking import track_secret
from .observe import acted, await_document, close_if_unresponsive, navigation_s, unanswered_document
from .op_context import OpContext, OpFailed
from .pages import DialogPolicy, DownloadRecord, until_loaded
from .scripts import STUCK, closed_unresponsive, ms_left, run_once, run_script, wait_for_next_document
from .session import first_line, web_address

log = logging.getLogger(__name__)

_GONE = re.compile(
    r"Target (page, context or browser )?(has been )?closed|Browser has been closed|browser has disconnected|Target crashed|Page crashed",
    re.I,
)
# Any network error but our own block (and a navigation that another one replaced) means the
# site could not be reached: that is infrastructure, not a verdict on the site.
_UNREACHABLE = re.compile(r"net::ERR_(?!BLOCKED_BY_CLIENT|ABORTED)[A-Z_]+")


# Elements that received a secret carry this (a JS property: invisible to the page's DOM and CSS).
_MARK_SECRET = "e => { e.__reuseitSecret = true; }"
_HOLDS_SECRET = "e => !!e.__reuseitSecret || [...e.querySelectorAll('*')].some(x => x.__reuseitSecret)"


def classify(exc: BaseException, what: str, blocked: Sequence[str] = ()) -> ReuseitError:
    """Turn a Playwright exception into OpFailed (recoverable) or BrokenRun (infrastructure).
    ``blocked``: the URLs the navigation fence turned away (their navigations end "aborted")."""
    text = str(exc)
    line = first_line(text)
    if _GONE.search(text):
        return BrokenRun(f"{what}: the browser went away ({line})")
    if unreachable := _UNREACHABLE.search(text):
        return BrokenRun(f"{what}: the site is unreachable ({unreachable.group(0)})")
    if "ERR_BLOCKED_BY_CLIENT" in text or ("ERR_ABORTED" in text and any(f"at {url}" in text for url in blocked)):
        return OpFailed(what, "navigation blocked: the target is outside allowed_domains", "blocked")
    if isinstance(exc, PlaywrightTimeout):
        return OpFailed(what, f"timed out: {_timeout_reason(text)}", "not_found")
    if "strict mode violation" in text:
        m = re.search(r"resolved to (\d+) elements", text)
        n = f"{m.group(1)} elements" if m else "several elements"
        return OpFailed(what, f"the locator matches {n}; make it unique (add nth, exact or within)", "ambiguous")
    if isinstance(exc, PlaywrightError) and ("Error:" in text or "evaluate" in text.lower()):
        return OpFailed(what, f"script error: {line}", "script")
    return OpFailed(what, line, "not_found")


# Call-log lines that only say Playwright is retrying; the line before them says what was wrong
# ("<div id=overlay> intercepts pointer events", "element is not enabled", "waiting for locator(...)").
_CALL_LOG_NOISE = re.compile(
    r"^(waiting \d+ms|retrying \w+ action|attempting \w+ action|scrolling into view if needed|done scrolling"
    r"|waiting for element to be .*|element is visible, enabled and stable|element is visible and stable)$"
)


def _timeout_reason(text: str) -> str:
    """From Playwright's call log, the last thing it was waiting for (tells *why* it timed out)."""
    log_lines = [ln.strip().lstrip("- ").strip() for ln in text.splitlines()[1:] if ln.strip().startswith("-")]
    head = first_line(text)
    useful = [ln for ln in log_lines if ln and not _CALL_LOG_NOISE.match(ln)]
    if useful:
        return f"{head} (last: {useful[-1]})"
    return head


# Playwright's call log once an action has been dispatched to the page ("performing click action").
_PERFORMED = re.compile(r"^\s*- performing \w+ action", re.MULTILINE)


def _performed(exc: Exception) -> bool:
    """Whether the failed call had already performed its action (its call log says so)."""
    return bool(_PERFORMED.search(str(exc)))


def run_op(op: Op, ctx: OpContext) -> str:
    """Perform one op on the current page; return a readable line of what was done (secrets left
    as placeholders). Modifiers apply to any op: ``dialog`` answers the dialogs it raises,
    ``new_page`` waits for the page it opens and makes that page current."""
    what = ctx.render(describe_op(op))
    entry = registry.spec(op.kind)
    if entry.handler is None:
        raise BrokenRun(f"{what}: op '{op.kind}' is registered without a handler")
    assert ctx.pages is not None
    if ctx.page.is_closed() and closed_unresponsive(ctx.page):
        raise OpFailed(
            what, "not tried: the page was closed earlier in this run, when it stopped responding", "page_closed"
        )
    ctx.op = op
    policy = None
    if op.dialog is not None:
        policy = DialogPolicy.of(op.dialog)
        if policy.text is not None:
            policy = DialogPolicy(policy.accept, ctx.reveal(policy.text))
    try:
        # A second try only when the page closed under the op before it acted (see _acted_on).
        for tries_left in (1, 0):
            if _acted_on(ctx, entry.handler, op, policy, what, last_try=not tries_left):
                break
    except ReuseitError:
        raise
    except (PlaywrightError, PlaywrightTimeout) as exc:
        raise _failure(ctx, exc, what, ctx.blocked) from None
    finally:
        ctx.op = None
        acted(ctx.pages.page)
    return what


def _failure(ctx: OpContext, exc: BaseException, what: str, blocked: Sequence[str] = ()) -> ReuseitError:
    """:func:`classify`, after closing a page a timed-out call left unresponsive (nothing about it
    would answer again): caught in a script that never ends, or waiting for a next document its
    server did not answer within the navigation budget (then named)."""
    if isinstance(exc, PlaywrightTimeout):
        reason = close_if_unresponsive(ctx.page)
        if reason is not None:
            return OpFailed(what, reason, "stuck" if reason == STUCK else "no_answer")
    return classify(exc, what, blocked)


def _not_answered(ctx: OpContext, page: Page, what: str) -> OpFailed:
    """The page's next document did not answer within the navigation budget: the page is closed
    (everything Playwright does on it would wait for that document) and the op fails, saying so."""
    return OpFailed(what, close_if_unresponsive(page) or f"{page.url} did not answer", "no_answer")


def loaded_after(page: Page, exc: BaseException, *, acted: bool = False) -> bool:
    """Whether a call that timed out had done its part and was only waiting for the page it set
    loading, which then answered within the navigation budget: a click that submitted a form to a
    slow server (Playwright waits for the navigation a click starts, within the click's own
    timeout). The call's timeout is for its element; the page gets the navigation budget. One that
    does not answer in time is left to the caller (:func:`_failure` names it). ``acted``: the caller
    knows the call acted (a script), whatever its call log says. The agent's actions use it too."""
    if not isinstance(exc, PlaywrightTimeout) or page.is_closed() or not (acted or _performed(exc)):
        return False
    return unanswered_document(page) is not None and await_document(page) is None


def _loaded_after(ctx: OpContext, op: Op, exc: PlaywrightTimeout) -> bool:
    """:func:`loaded_after` for an op (an ``eval`` script that navigated, too); the page it
    loaded is then let finish loading, as after any op."""
    if not loaded_after(ctx.page, exc, acted=op.kind == "eval"):
        return False
    until_loaded(ctx.page, ctx.action_timeout_ms)
    return True


def _acted_on(
    ctx: OpContext, handler: registry.Handler, op: Op, policy: DialogPolicy | None, what: str, *, last_try: bool
) -> bool:
    """One try of an op on the current page: True once it is done; False when the page closed
    under it before it acted (a pop-up closing itself after the last op's click: the browser is
    fine and the opener is current again, so the op is meant for it)."""
    assert ctx.pages is not None
    acting_on = ctx.pages.page
    # A page whose next document has not answered yet is loading (a slow server is not a dead
    # one): it gets the navigation budget before the op's own wait for its element starts.
    if await_document(acting_on) is not None:
        raise _not_answered(ctx, acting_on, what)
    until_loaded(acting_on, ctx.action_timeout_ms)
    ctx.pages.answer_with(policy)
    try:
        if op.new_page:
            _opening_page(ctx, handler, op.arg, what)
        else:
            handler(ctx, op.arg)
        if policy is not None:
            _let_dialogs_arrive(ctx)
        return True
    except (PlaywrightError, PlaywrightTimeout) as exc:
        if isinstance(exc, PlaywrightTimeout) and _loaded_after(ctx, op, exc):
            return True
        if not (acting_on.is_closed() and ctx.pages.open_pages()):
            raise
        if _performed(exc):
            # The op's own action closed its page (a pop-up's Save): Playwright reports the close
            # when it arrives before the click returns (1 click in 10 on an idle machine).
            return True
        if last_try:
            raise OpFailed(what, "the page closed while the op was acting on it", "page_closed") from exc
        return False


def _let_dialogs_arrive(ctx: OpContext) -> None:
    """After an op with its own ``dialog:`` answer, give a dialog it raised time to reach the holder
    before the next op sets another answer."""
    try:
        ctx.page.wait_for_timeout(100)
    except PlaywrightError:
        pass  # the page closed: no dialog of it is left to answer


def _opening_page(ctx: OpContext, handler: registry.Handler, arg: Any, what: str) -> None:
    """Run ``handler`` expecting it to open a page (pop-up or tab) within the op's timeout."""
    assert ctx.pages is not None
    acted = False
    try:
        with ctx.pages.expect_new_page(ctx.action_timeout_ms):
            handler(ctx, arg)
            acted = True
    except PlaywrightTimeout:
        if not acted:
            raise
        raise OpFailed(
            what,
            f"no new page opened within {ctx.action_timeout_ms / 1000:g}s (new_page: true): "
            "the op went through but no pop-up window or tab appeared",
            "no_page",
        ) from None


# --------------------------------------------------------------------------- the built-in ops' handlers


@registry.handles("goto")
def _goto(ctx: OpContext, arg: str) -> None:
    page = ctx.page
    target = ctx.reveal(arg)  # a secret in a URL (a token link) is navigated to, never shown
    url = urljoin(page.url, target) if page.url.startswith("http") else target
    if not web_address(url):
        raise BrokenRun(f"goto {ctx.render(arg)}: not a web address; write it with http:// or https://")
    # Opening a page waits for its server as long as the navigation budget allows.
    response = page.goto(url, timeout=navigation_s(page) * 1000, wait_until="domcontentloaded")
    until_loaded(page, ctx.action_timeout_ms)
    if ctx.blocked and url in ctx.blocked:
        raise OpFailed(f"goto {url}", "navigation blocked: the target is outside allowed_domains", "blocked")
    if response is not None and response.status >= 400:
        raise OpFailed(f"goto {url}", f"the page answered HTTP {response.status}", "http")


def _element_op(method: str) -> registry.Handler:
    def handler(ctx: OpContext, arg: Locator) -> None:
        if ctx.op is not None and ctx.op.at is not None:  # a point of the element: the mouse itself
            _mouse(ctx, arg, method)
            return
        how: dict[str, Any] = {}
        if ctx.op is not None and ctx.op.button:
            how["button"] = ctx.op.button
        if ctx.op is not None and ctx.op.position is not None:  # a point in it (a canvas grid's cell)
            how["position"] = {"x": ctx.op.position.x, "y": ctx.op.position.y}
        getattr(resolve(ctx.page, arg, ctx.render), method)(timeout=ctx.action_timeout_ms, **how)

    return handler


for _name in ("click", "dblclick", "hover", "focus", "blur"):
    registry.attach(_name, _element_op(_name))


def _mouse(ctx: OpContext, arg: Locator, what: str) -> None:
    """The mouse moved to an element (its middle, or the op's ``at`` from it) and, for ``what``,
    clicked, double-clicked, pressed or let go there: what a WebDriver pointer action with the
    element as origin does (Selenium's ``clickAt``, ``mouseDown``, ``mouseUpAt``...). The point is
    the middle of the part of the element's box inside the viewport, in whole pixels (WebDriver's
    in-view centre point), once the element is shown and scrolled into view."""
    page = ctx.page
    loc = resolve(page, arg, ctx.render)
    loc.scroll_into_view_if_needed(timeout=ctx.action_timeout_ms)
    box = loc.bounding_box(timeout=ctx.action_timeout_ms)
    op = ctx.op
    if box is None:
        described = ctx.render(describe_op(op)) if op is not None else what
        raise OpFailed(described, "the element is not shown: the mouse has no point of it to go to", "not_found")
    # The viewport's size (none when the page navigated away meanwhile: the box is not clipped).
    width, height = run_script(page, "[innerWidth, innerHeight]", ctx.action_timeout_ms) or (math.inf, math.inf)
    left, right = max(box["x"], 0), min(box["x"] + box["width"], width)
    top, bottom = max(box["y"], 0), min(box["y"] + box["height"], height)
    at = op.at if op is not None else None
    x = math.floor((left + right) / 2) + (at.x if at is not None else 0)
    y = math.floor((top + bottom) / 2) + (at.y if at is not None else 0)
    if what == "mouse_out":
        x, y = _off(box, (x, y), width, height, ctx.render(describe_op(op)) if op is not None else what)
    button: Any = (op.button if op is not None else None) or "left"
    page.mouse.move(x, y)
    if what == "click":
        page.mouse.click(x, y, button=button)
    elif what == "dblclick":
        page.mouse.dblclick(x, y, button=button)
    elif what == "mouse_down":
        page.mouse.down(button=button)
    elif what == "mouse_up":
        page.mouse.up(button=button)


def _off(box: FloatRect, middle: tuple[int, int], width: float, height: float, described: str) -> tuple[int, int]:
    """A point just off the element, in the order side-runtime's ``doMouseOut`` tries: above it when
    its top is in the viewport, else right of it, below it, left of it; level with its middle. One
    whole pixel past its edge: Selenium's own arithmetic (half the element's size from its middle)
    can land on a fractional edge, which the browser counts as the element's."""
    x, y = middle
    right, bottom = box["x"] + box["width"], box["y"] + box["height"]
    if box["y"] >= 1:
        return x, math.floor(box["y"]) - 1
    if math.ceil(right) + 1 < width:
        return math.ceil(right) + 1, y
    if math.ceil(bottom) + 1 < height:
        return x, math.ceil(bottom) + 1
    if box["x"] >= 1:
        return math.floor(box["x"]) - 1, y
    raise OpFailed(described, "the element takes up the whole viewport: the mouse has nowhere off it to go", "no_state")


@registry.handles("mouse_out")
def _mouse_out(ctx: OpContext, arg: Locator) -> None:
    _mouse(ctx, arg, "mouse_out")


@registry.handles("mouse_down")
def _mouse_down(ctx: OpContext, arg: Locator) -> None:
    _mouse(ctx, arg, "mouse_down")


@registry.handles("mouse_up")
def _mouse_up(ctx: OpContext, arg: Locator) -> None:
    _mouse(ctx, arg, "mouse_up")


@registry.handles("dispatch")
def _dispatch(ctx: OpContext, arg: DispatchArgs) -> None:
    # Playwright's dispatchEvent: the event made with the init its type needs (a FocusEvent for
    # blur, a MouseEvent for click), sent to the element whatever its state; the page's handlers
    # run as for a real one (an edit ended by a blur is saved).
    resolve(ctx.page, arg, ctx.render).dispatch_event(arg.event, timeout=ctx.action_timeout_ms)


@registry.handles("drag")
def _drag(ctx: OpContext, arg: DragArgs) -> None:
    # Playwright's dragTo: the mouse pressed on the middle of one element, moved to the middle of
    # the other and let go; Chromium turns that into HTML5 dragstart/dragover/drop events too.
    source = resolve(ctx.page, arg, ctx.render)
    target = resolve(ctx.page, arg.to, ctx.render)
    try:
        source.drag_to(target, timeout=ctx.action_timeout_ms)
    except PlaywrightError as exc:
        # A failure names the element of the two it is about, as the workflow writes it.
        text, what = str(exc), ctx.render(describe_op(ctx.op)) if ctx.op is not None else "drag"
        end = missing_end(text) if isinstance(exc, PlaywrightTimeout) else None
        if end is None and "strict mode violation" in text:
            end = which_end(text)
        if end is None or ctx.page.is_closed():
            raise  # another reason (hidden, covered): the call log says it, as for any op
        failure = _failure(ctx, exc, what, ctx.blocked)
        if not isinstance(failure, OpFailed) or failure.kind not in ("not_found", "ambiguous"):
            raise failure from None  # the page stopped answering: that, not a missing element
        words = "the element to drag" if end == "source" else "the element to drop it on"
        element = f"{words} ({describe(arg.plain() if end == 'source' else arg.to, ctx.render)})"
        if failure.kind == "ambiguous":
            reason = failure.reason.replace("the locator", element, 1)
        else:
            reason = f"timed out: {element} was not found within {ctx.action_timeout_ms / 1000:g}s"
        raise OpFailed(what, reason, failure.kind) from None


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
        loc.evaluate(_MARK_SECRET, timeout=ctx.action_timeout_ms)
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
        raise _not_answered(ctx, page, ctx.render(describe_op(ctx.op)) if ctx.op is not None else "eval")
    until_loaded(page, ctx.action_timeout_ms if ran.navigated else ms_left(deadline))


@registry.handles("extract")
def _extract(ctx: OpContext, arg: Extract) -> None:
    ctx.extracted[arg.into] = extract_value(arg, ctx)


@registry.handles("upload")
def _upload(ctx: OpContext, arg: UploadArgs) -> None:
    paths = []
    for name in arg.files:
        path = Path(ctx.folder) / ctx.reveal(name)
        if not path.is_file():
            # Paths without placeholders are checked when the file loads; this one was computed.
            raise BrokenRun(f"upload: the file {ctx.render(name)} does not exist (relative to the workflow's folder)")
        paths.append(str(path))
    loc = resolve(ctx.page, arg, ctx.render)
    if any(ctx.reveal(name) != ctx.render(name) for name in arg.files):  # a secret path: its name shows
        track_secret(loc, f"upload {describe(arg.plain(), ctx.render)} (files {', '.join(arg.files)})")
    loc.set_input_files(paths, timeout=ctx.action_timeout_ms)


@registry.handles("download")
def _download(ctx: OpContext, arg: Locator) -> None:
    assert ctx.pages is not None
    page = ctx.page
    before = page.url
    clicked = False
    try:
        with page.expect_download(timeout=ctx.action_timeout_ms) as info:
            resolve(page, arg, ctx.render).click(timeout=ctx.action_timeout_ms)
            clicked = True
        download = info.value
    except PlaywrightTimeout:
        if not clicked:
            raise
        raise OpFailed(
            ctx.render(describe_op(ctx.op)) if ctx.op is not None else "download",
            f"no download started within {ctx.action_timeout_ms / 1000:g}s{_went_instead(page, before)}",
            "no_download",
        ) from None
    folder = Path(ctx.output_dir or tempfile.mkdtemp(prefix="reuseit-downloads-")) / "downloads"
    folder.mkdir(parents=True, exist_ok=True)
    name = download.suggested_filename or "download"
    target = folder / f"{len(ctx.pages.downloads) + 1}-{_safe_name(name)}"
    download.save_as(str(target))
    ctx.pages.downloads.append(DownloadRecord(name, str(target), download.url, target.stat().st_size))
    if ctx.op is not None and ctx.op.into is not None:
        ctx.extracted[ctx.op.into] = str(target)


def _went_instead(page: Page, before: str) -> str:
    """Where a click meant to download went instead, if it went to another document: a site that
    sends a file as text or JSON without ``Content-Disposition: attachment`` has the browser show
    it as a page, and the report must not read like a missing element."""
    if page.is_closed() or urldefrag(page.url).url == urldefrag(before).url:
        return ""
    try:
        kind = str(run_script(page, "document.contentType", 1_000) or "")
    except (PlaywrightError, PlaywrightTimeout, BrokenRun):
        kind = ""  # only a better message was at stake
    if kind and "html" not in kind:
        return f": the click opened {page.url} as a page ({kind}): the site shows the file instead of sending it"
    return f": the click went to {page.url} instead"


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:120] or "download"


# How many times an extract expression is run again when its page navigates under it.
_EXTRACT_TRIES = 3


def _script_value(page: Page, expression: str, timeout_ms: float, what: str) -> Any:
    """The value of an extract expression. When the page's document goes while it runs (a
    navigation the last action started that lands now, or the expression's own) the value is
    lost with it: it is read again from the new page once that has loaded, within the timeout."""
    deadline = time.monotonic() + timeout_ms / 1000
    for _ in range(_EXTRACT_TRIES):
        ran = run_once(page, expression, ms_left(deadline))
        if not ran.lost:
            return ran.value
        wait_for_next_document(page, ran, ms_left(deadline))
        until_loaded(page, ms_left(deadline))
        if time.monotonic() >= deadline:
            break
    raise OpFailed(
        what,
        f"the page navigated away while the expression ran ({page.url}), every time it was read: nothing was "
        "read. An extract expression must read the page, not leave it; if the page is still loading, wait for "
        "it first (a post check on the new page)",
        "script",
    )


def extract_value(ex: Extract, ctx: OpContext) -> str:
    """Read a value from the current page for ``extract``; one read from an element a secret was
    typed into is handed to ``ctx.taint`` (it is secret too, even when the page changed it)."""
    try:
        value = _read(ex, ctx)
        field = ex.text if ex.text is not None else ex.value if ex.value is not None else ex.of
        holds = field is not None and ctx.taint is not None and value
        if holds and resolve(ctx.page, field, ctx.render).evaluate(_HOLDS_SECRET, timeout=ctx.action_timeout_ms):  # type: ignore[arg-type]
            ctx.taint(value)  # type: ignore[misc]
        return value
    except ReuseitError:
        raise
    except (PlaywrightError, PlaywrightTimeout) as exc:
        raise _failure(ctx, exc, f"extract {ex.into}") from None


def _read(ex: Extract, ctx: OpContext) -> str:
    t = ctx.action_timeout_ms
    page = ctx.page
    if ex.text is not None:
        loc = resolve(page, ex.text, ctx.render)
        if ex.attribute:
            value = loc.get_attribute(ex.attribute, timeout=t)
            if value is None:
                raise OpFailed(
                    f"extract {ex.into}",
                    f"{describe(ex.text, ctx.render)} has no attribute {ex.attribute!r}",
                    "not_found",
                )
            return value
        return loc.inner_text(timeout=t).strip()
    if ex.value is not None:
        return resolve(page, ex.value, ctx.render).input_value(timeout=t)
    if ex.js is not None:
        if ex.of is not None:  # a function of the element, given it once it is there (as any op waits)
            result: Any = resolve(page, ex.of, ctx.render).evaluate(ctx.reveal(ex.js), timeout=t)
        else:
            result = _script_value(page, ctx.reveal(ex.js), t, f"extract {ex.into}")
        if result is None:
            raise OpFailed(f"extract {ex.into}", f"the expression returned nothing: {ex.js}", "script")
        return result if isinstance(result, str) else json.dumps(result)
    assert ex.query is not None
    if ctx.query is None:
        raise BrokenRun(f"extract {ex.into}: 'query' needs a model; enable one (--reuseit-llm) or use text/js")
    return ctx.query(ctx.render(ex.query))
