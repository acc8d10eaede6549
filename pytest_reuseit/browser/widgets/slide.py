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


def _close(a: float, b: float) -> bool:
    return abs(a - b) < 1e-9


def _to_end(thumb: ElementHandle, target: float, low: float | None, high: float | None, deadline: float) -> bool:
    """Home or End, where the target is an end of the slider."""
    for end, key in ((low, "Home"), (high, "End")):
        if end is not None and _close(target, end):
            thumb.press(key, timeout=time_left(deadline))
            return True
    return False


def _move(ctx: OpContext, w: Widget, thumb: ElementHandle, target: float, deadline: float, op: str) -> None:
    """The thumb moved to ``target`` with the keys a person would press: Home or End for an end;
    Page Up/Down while the way is a page or more (a tenth of the range, until the slider shows
    what its page is); the arrows for the rest (the first one shows the step where the slider does
    not say it). A thumb no key moves is dragged."""
    state = _state(thumb)
    now, low, high, step = state["now"], state["min"], state["max"], state["step"]
    if now is None:
        _drag(ctx, w, thumb, target, state, op)
        return
    if _close(now, target) or _to_end(thumb, target, low, high, deadline):
        return
    span = high - low if low is not None and high is not None else None
    page: float | None = None  # what Page Up moves, once seen (0: nothing, here)
    for _ in range(_MAX_KEYS):
        if _close(now, target):
            return
        way = target - now
        first_page = page is None and span is not None and abs(way) >= span / 10 - 1e-9
        paging = first_page or bool(page and abs(way) >= page - 1e-9)
        if not paging and step and not _on_step(way, step):
            raise OpFailed(
                op, f"{_fmt(target)} is between the steps of {w.what}: {_range_words(state, step)}", "bad_value"
            )
        thumb.press(
            ("PageUp" if way > 0 else "PageDown") if paging else ("ArrowRight" if way > 0 else "ArrowLeft"),
            timeout=time_left(deadline),
        )
        moved_to = _state(thumb)["now"]
        moved = abs(moved_to - now) if moved_to is not None else 0.0
        if paging:
            page = moved
        elif moved == 0:
            _drag(ctx, w, thumb, target, state, op)  # it takes no keys
            return
        elif not step:
            step = moved
            if moved_to is not None and not _on_step(target - moved_to, step):
                raise OpFailed(
                    op, f"{_fmt(target)} is between the steps of {w.what}: {_range_words(state, step)}", "bad_value"
                )
        if moved_to is not None:
            now = moved_to
    raise OpFailed(
        op, f"{w.what} did not reach {_fmt(target)} within {_MAX_KEYS} key presses (it shows {_fmt(now)})", "no_state"
    )


def _drag(ctx: OpContext, w: Widget, thumb: ElementHandle, target: float, state: dict[str, Any], op: str) -> None:
    """The thumb dragged to the point of the track that stands for ``target``; where it lands a
    step off (a track's padding, a thumb's width), dragged again by what is left, three times at most."""
    low, high = state["min"], state["max"]
    if low is None or high is None or high <= low:
        raise OpFailed(op, f"{w.what} takes no keys and shows no minimum and maximum to drag it by", "no_state")
    track = w.call("sliderBox")
    vertical = track["height"] > track["width"]
    share = (target - low) / (high - low)
    aim = track["y"] + (1 - share) * track["height"] if vertical else track["x"] + share * track["width"]
    mouse = ctx.page.mouse
    for _ in range(3):
        box = thumb.bounding_box()
        if box is None:
            raise OpFailed(op, f"{w.what}: its thumb is not shown", "not_found")
        cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        mouse.move(cx, cy)
        mouse.down()
        mouse.move(cx if vertical else aim, aim if vertical else cy, steps=4)
        mouse.up()
        now = _state(thumb)["now"]
        if now is None or _close(now, target):
            return
        # What is left, in pixels of the track.
        left = (target - now) / (high - low) * (track["height"] if vertical else track["width"])
        aim = (cy - left) if vertical else (aim + left)
