"""The handlers of the ops that point at an element: click, dblclick, hover, focus, blur, the
mouse's own moves (mouse_down, mouse_up, mouse_out, a point ``at`` or ``position``), dispatch, drag."""

from __future__ import annotations

import math
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import FloatRect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from ..workflow import ops as registry
from ..workflow.locators import Locator
from ..workflow.op_args import (
    DispatchArgs,
    DragArgs,
)
from ..workflow.ops import describe_op
from .drag import missing_end, which_end
from .locators import describe, resolve
from .op_context import OpContext, OpFailed
from .op_errors import failure
from .scripts import run_script


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
        found = failure(ctx, exc, what, ctx.blocked)
        if not isinstance(found, OpFailed) or found.kind not in ("not_found", "ambiguous"):
            raise found from None  # the page stopped answering: that, not a missing element
        words = "the element to drag" if end == "source" else "the element to drop it on"
        element = f"{words} ({describe(arg.plain() if end == 'source' else arg.to, ctx.render)})"
        if found.kind == "ambiguous":
            reason = found.reason.replace("the locator", element, 1)
        else:
            reason = f"timed out: {element} was not found within {ctx.action_timeout_ms / 1000:g}s"
        raise OpFailed(what, reason, found.kind) from None
