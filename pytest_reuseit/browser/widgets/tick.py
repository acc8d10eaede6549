"""``check`` / ``uncheck`` on what a person clicks: a checkbox or radio whose ``<input>`` is drawn
invisible (its label, the drawn box or track), an element with role checkbox, switch, radio or
menuitemcheckbox (its ``aria-checked``), a web component's own (its shadow root's input)."""

from __future__ import annotations

import time

from ..op_context import OpContext, OpFailed
from .page import POLL_MS, Widget, call, time_left


def tick(ctx: OpContext, w: Widget, checked: bool, op: str) -> None:
    word = "checked" if checked else "unchecked"
    if w.disabled:
        raise OpFailed(op, f"{w.what} is disabled", "disabled")
    if call(w.handle, "ticked") == checked:
        return
    is_radio = w.handle.evaluate("t => t.el.matches('input[type=radio], [role=radio], [role=menuitemradio]')")
    if is_radio and not checked:
        raise OpFailed(op, f"{w.what} is a radio button: it is unchecked by checking another of its group", "no_state")
    deadline = time.monotonic() + ctx.action_timeout_ms / 1000
    target = w.element("click") or w.element("host") or w.element()
    assert target is not None
    target.click(timeout=time_left(deadline))
    # A controlled widget (React, Vue) shows its new state when the app re-renders: a moment later.
    while True:
        if call(w.handle, "ticked") == checked:
            return
        if time.monotonic() >= deadline:
            break
        ctx.page.wait_for_timeout(POLL_MS)
    raise OpFailed(
        op, f"{w.what} was clicked but did not become {word} within {ctx.action_timeout_ms / 1000:g}s", "no_state"
    )
