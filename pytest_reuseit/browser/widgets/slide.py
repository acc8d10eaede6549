"""``fill`` on a slider: a native range, a ``role=slider`` thumb, a library's drawn one; a list
of two values sets a two-thumb slider.

Set as a person does it: with the keyboard on the thumb (Home, End, Page Up/Down, the arrows),
or by dragging where the thumb takes no keys; then read back (``aria-valuenow``, ``value``). A
value outside its minimum and maximum, or between its steps, fails naming all three.
"""

from __future__ import annotations

import math
import time
from typing import Any

from playwright.sync_api import ElementHandle

from ..op_context import OpContext, OpFailed
from .page import Widget, time_left

# The most keys one value is worth before a drag is tried instead (a slider of 10,000 steps).
_MAX_KEYS = 60


def _number(text: str, op: str, what: str) -> float:
    try:
        value = float(text.strip().replace(",", ""))
    except ValueError:
        raise OpFailed(op, f"{what} is a slider: its value must be a number, not {text!r}", "bad_value") from None
    if not math.isfinite(value):
        raise OpFailed(op, f"{what} is a slider: its value must be a number, not {text!r}", "bad_value")
    return value


def _fmt(x: float | None) -> str:
    if x is None:
        return "?"
    return f"{x:g}"


def _state(thumb: ElementHandle) -> dict[str, Any]:
    return thumb.evaluate("el => window.__reuseitWidgets.thumb(el)")


def _range_words(info: dict[str, Any], step: float | None) -> str:
    return f"minimum {_fmt(info['min'])}, maximum {_fmt(info['max'])}, step {_fmt(step)}"


def slide(ctx: OpContext, w: Widget, values: list[str], op: str) -> None:
    thumbs = w.elements("thumbs")
    if w.disabled:
        raise OpFailed(op, f"{w.what} is disabled", "disabled")
    if len(values) != len(thumbs):
        raise OpFailed(
            op,
            f"{w.what} has {len(thumbs)} thumb{'s' if len(thumbs) != 1 else ''}: give {'one value' if len(thumbs) == 1 else 'a list of ' + str(len(thumbs)) + ' values'}",
            "bad_value",
        )
    wanted = [_number(v, op, w.what) for v in values]
    states = [_state(t) for t in thumbs]
    lows = min((s["min"] for s in states if s["min"] is not None), default=None)
    highs = max((s["max"] for s in states if s["max"] is not None), default=None)
    info = {"min": lows, "max": highs}
    step = states[0]["step"]
    for v in wanted:
        if (lows is not None and v < lows - 1e-9) or (highs is not None and v > highs + 1e-9):
            raise OpFailed(op, f"{_fmt(v)} is outside {w.what}: {_range_words(info, step)}", "bad_value")
        if step and lows is not None and not _on_step(v - lows, step):
            raise OpFailed(op, f"{_fmt(v)} is between the steps of {w.what}: {_range_words(info, step)}", "bad_value")
    if len(wanted) == 2 and wanted[0] > wanted[1]:
        raise OpFailed(op, f"the low value {_fmt(wanted[0])} is above the high one {_fmt(wanted[1])}", "bad_value")
    deadline = time.monotonic() + ctx.action_timeout_ms / 1000
    order = list(range(len(thumbs)))
    if len(thumbs) == 2 and states[1]["now"] is not None and wanted[0] > states[1]["now"]:
        order.reverse()  # the high thumb moves first, or the low one would be stopped at it
    for i in order:
        _move(ctx, w, thumbs[i], wanted[i], deadline, op)
    # Leaving the thumb commits where the slider commits only then.
    thumbs[order[-1]].evaluate("el => el.blur && el.blur()")
    got = [_state(t)["now"] for t in thumbs]
    if any(g is None or abs(g - v) > 1e-6 for g, v in zip(got, wanted, strict=True)):
        shown = ", ".join(_fmt(g) for g in got)
        raise OpFailed(op, f"{w.what} shows {shown} after the op, not {', '.join(_fmt(v) for v in wanted)}", "no_state")


def _on_step(offset: float, step: float) -> bool:
    n = offset / step
    return abs(n - round(n)) < 1e-6


def _keys(horizontal_rtl: bool, up: bool) -> str:
    return "ArrowRight" if up else "ArrowLeft"


def _move(ctx: OpContext, w: Widget, thumb: ElementHandle, target: float, deadline: float, op: str) -> None:
    state = _state(thumb)
    now = state["now"]
    if now is not None and abs(now - target) < 1e-9:
        return
    if state["min"] is not None and abs(target - state["min"]) < 1e-9:
        thumb.press("Home", timeout=time_left(deadline))
    elif state["max"] is not None and abs(target - state["max"]) < 1e-9:
        thumb.press("End", timeout=time_left(deadline))
    elif now is not None:
        up = target > now
        thumb.press("ArrowRight" if up else "ArrowLeft", timeout=time_left(deadline))
        moved = _state(thumb)["now"]
        step = abs(moved - now) if moved is not None else 0
        if step > 0:
            _by_keys(thumb, moved, target, step, state, deadline, op, w)
            return
        _drag(ctx, w, thumb, target, state, op)
    else:
        _drag(ctx, w, thumb, target, state, op)
    after = _state(thumb)["now"]
    if after is not None and abs(after - target) > 1e-9 and after != now:
        # A drag lands on the nearest step: the rest by keys, where the thumb takes them.
        step_guess = state["step"]
        if step_guess:
            _by_keys(thumb, after, target, step_guess, state, deadline, op, w)


def _by_keys(
    thumb: ElementHandle,
    now: float,
    target: float,
    step: float,
    state: dict[str, Any],
    deadline: float,
    op: str,
    w: Widget,
) -> None:
    n = (target - now) / step
    if abs(n - round(n)) > 1e-6:
        raise OpFailed(op, f"{_fmt(target)} is between the steps of {w.what}: {_range_words(state, step)}", "bad_value")
    steps = round(n)
    if abs(steps) > 10:
        # Page Up/Down: one key for many steps (how many, the slider says by moving).
        thumb.press("PageUp" if steps > 0 else "PageDown", timeout=time_left(deadline))
        after = _state(thumb)["now"]
        page = abs(after - now) / step if after is not None else 0
        if page >= 2:
            now = after
            remaining = round((target - now) / step)
            pages = int(abs(remaining) // round(page))
            for _ in range(pages):
                thumb.press("PageUp" if remaining > 0 else "PageDown", timeout=time_left(deadline))
            now = _state(thumb)["now"]
        elif after is not None:
            now = after
        steps = round((target - now) / step)
    if abs(steps) > _MAX_KEYS:
        raise OpFailed(op, f"{w.what} would need {abs(steps)} key presses to reach {_fmt(target)}", "bad_value")
    key = "ArrowRight" if steps > 0 else "ArrowLeft"
    for _ in range(abs(steps)):
        thumb.press(key, timeout=time_left(deadline))


def _drag(ctx: OpContext, w: Widget, thumb: ElementHandle, target: float, state: dict[str, Any], op: str) -> None:
    """The thumb dragged to the point of the track that stands for ``target``."""
    low, high = state["min"], state["max"]
    if low is None or high is None or high <= low:
        raise OpFailed(op, f"{w.what} takes no keys and shows no minimum and maximum to drag it by", "no_state")
    track = w.call("sliderBox")
    box = thumb.bounding_box()
    if box is None:
        raise OpFailed(op, f"{w.what}: its thumb is not shown", "not_found")
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    share = (target - low) / (high - low)
    vertical = track["height"] > track["width"]
    x = track["x"] + share * track["width"] if not vertical else cx
    y = track["y"] + (1 - share) * track["height"] if vertical else cy
    mouse = ctx.page.mouse
    mouse.move(cx, cy)
    mouse.down()
    mouse.move(x, y, steps=4)
    mouse.up()
