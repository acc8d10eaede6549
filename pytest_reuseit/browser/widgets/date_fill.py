"""``fill`` on a date: a native date input, a text field with a calendar pop-up, segmented
fields of one spin button per part, a read-only field only its calendar sets.

The value is an ISO date (or the date as the field shows it); it is typed in the field's own
format (its placeholder, or the date it shows), part by part where it has parts, or picked in its
calendar where it takes no typing; then committed as a person leaves the field (Enter in an open
calendar, then leaving it), and read back as a date: a field that shows a date it did not take
fails the op.
"""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

from playwright.sync_api import ElementHandle, JSHandle

from ..op_context import OpContext, OpFailed
from . import dates
from .page import POLL_MS, Widget, call, time_left

# A calendar is turned a month a click: ten years either way at most.
_MAX_MONTHS = 120


def wanted_date(value: str, order: str, op: str, what: str) -> dt.date:
    date = dates.parse(value, order)
    if date is None:
        raise OpFailed(op, f"{what} is a date field: {value!r} is not a date (write it as 2027-03-15)", "bad_value")
    return date


def shown_date(w: Widget) -> tuple[dt.date | None, str]:
    """The date the field shows (its kept original first: what a form submits), and its text."""
    shown: dict[str, Any] = w.call("dateShown")
    fmt = dates.fmt_of(shown.get("placeholder") or "", shown.get("text") or "")
    order = dates.order_of(fmt)
    original = shown.get("original") or shown.get("value")
    if original:
        parsed = dates.parse(original, "YMD" if "-" in original else order)
        if parsed is not None:
            return parsed, shown.get("text") or original
    if w.type == "segments":
        return _from_parts(shown.get("parts") or []), shown.get("text") or ""
    return dates.parse(shown.get("text") or "", order), shown.get("text") or ""


def _from_parts(parts: list[dict[str, Any]]) -> dt.date | None:
    got: dict[str, int] = {}
    for p in parts:
        kind = _part_kind(p)
        raw = p.get("now") or "".join(ch for ch in p.get("text", "") if ch.isdigit())
        if kind and raw:
            try:
                got[kind] = int(float(raw))
            except ValueError:
                continue
    try:
        return dt.date(got["year"], got["month"], got["day"])
    except (KeyError, ValueError):
        return None


def _part_kind(p: dict[str, Any]) -> str | None:
    name = f"{p.get('name', '')} {p.get('placeholder', '')}".lower()
    for kind, words in (("month", ("month", "mm")), ("day", ("day", "dd")), ("year", ("year", "yy"))):
        if any(w in name for w in words):
            return kind
    text = p.get("text", "").lower()
    if text in ("mm", "m"):
        return "month"
    if text in ("dd", "d"):
        return "day"
    if text in ("yyyy", "yy", "aaaa", "jjjj"):
        return "year"
    return None


def fill_date(ctx: OpContext, w: Widget, value: str, op: str) -> None:
    if w.disabled:
        raise OpFailed(op, f"{w.what} is disabled", "disabled")
    deadline = time.monotonic() + ctx.action_timeout_ms / 1000
    shown: dict[str, Any] = w.call("dateShown")
    fmt = dates.fmt_of(shown.get("placeholder") or "", shown.get("text") or "")
    date = wanted_date(value, dates.order_of(fmt), op, w.what)
    field = w.element()
    assert field is not None
    if w.type == "segments":
        _type_parts(w, date, deadline)
    elif w.type == "native":
        field.fill(date.isoformat(), timeout=time_left(deadline))
    elif shown.get("readonly"):
        _pick_in_calendar(ctx, w, field, date, deadline, op)
    else:
        for form in [fmt] if fmt else ["YYYY-MM-DD", "MM/DD/YYYY", "DD/MM/YYYY"]:
            _type_text(ctx, w, field, dates.write(date, form), deadline)
            if shown_date(w)[0] == date:
                break
        else:
            if _calendar(w) is not None or _opens_calendar(ctx, w, field):
                _pick_in_calendar(ctx, w, field, date, deadline, op)
    _settle(ctx, w, date, deadline, op)


def _type_text(ctx: OpContext, w: Widget, field: ElementHandle, text: str, deadline: float) -> None:
    field.fill(text, timeout=time_left(deadline))
    # A calendar open on the field takes the typed date on Enter (flatpickr's allowInput commits
    # only then, or on leaving it); a plain field inside a form would submit it, so only then.
    if _calendar(w) is not None:
        field.press("Enter", timeout=time_left(deadline))
    _leave(ctx, w, field)


def _leave(ctx: OpContext, w: Widget, field: ElementHandle) -> None:
    """Leave the field as a person's next move does: it loses the focus (its change event, a
    picker's commit on blur); a calendar left open is closed with Escape."""
    field.evaluate("e => e.blur()")
    if _calendar(w) is not None:
        ctx.page.keyboard.press("Escape")


def _type_parts(w: Widget, date: dt.date, deadline: float) -> None:
    parts = w.elements("parts")
    infos = w.handle.evaluate(
        "t => t.parts.map(p => window.__reuseitWidgets.dateShown({type: 'segments', parts: [p]}).parts[0])"
    )
    digits = {"month": f"{date.month:02d}", "day": f"{date.day:02d}", "year": f"{date.year:04d}"}
    typed = False
    for part, info in zip(parts, infos, strict=False):
        kind = _part_kind(info)
        if kind is None:
            continue
        part.click(timeout=time_left(deadline))
        part.type(digits[kind], timeout=time_left(deadline))
        typed = True
    if typed and parts:
        parts[-1].evaluate("e => e.blur()")


def _calendar(w: Widget) -> JSHandle | None:
    cal = w.handle.evaluate_handle("t => window.__reuseitWidgets.calendar(t.el)")
    return cal if cal.as_element() is not None else None


def _opens_calendar(ctx: OpContext, w: Widget, field: ElementHandle) -> bool:
    field.click()
    for _ in range(20):
        if _calendar(w) is not None:
            return True
        ctx.page.wait_for_timeout(POLL_MS)
    return False


def _pick_in_calendar(ctx: OpContext, w: Widget, field: ElementHandle, date: dt.date, deadline: float, op: str) -> None:
    """The date picked in the field's calendar: turned to its month, its day clicked."""
    cal = _calendar(w)
    if cal is None:
        field.click(timeout=time_left(deadline))
        while (cal := _calendar(w)) is None:
            if time.monotonic() >= deadline:
                raise OpFailed(op, f"{w.what} takes no typing and opened no calendar when clicked", "no_state")
            ctx.page.wait_for_timeout(POLL_MS)
    for _ in range(_MAX_MONTHS + 1):
        view = call(cal, "calendarView")
        if view["month"] is None or view["year"] is None:
            raise OpFailed(op, f"the calendar of {w.what} shows no month and year it can be turned by", "no_state")
        months = (date.year * 12 + date.month - 1) - (view["year"] * 12 + view["month"])
        if months == 0:
            break
        button = cal.evaluate_handle(
            "(c, next) => window.__reuseitWidgets.calendarView(c)[next ? 'next' : 'prev']", months > 0
        ).as_element()
        if button is None:
            raise OpFailed(
                op,
                f"the calendar of {w.what} has no button to its {'next' if months > 0 else 'previous'} month",
                "no_state",
            )
        button.click(timeout=time_left(deadline))
        while call(cal, "calendarView") == view and time.monotonic() < deadline:
            ctx.page.wait_for_timeout(POLL_MS)
            refreshed = _calendar(w)
            if refreshed is not None:
                cal = refreshed
    else:
        raise OpFailed(
            op, f"{date.isoformat()} is more than {_MAX_MONTHS // 12} years from the month {w.what} shows", "bad_value"
        )
    day = cal.evaluate_handle(
        "(c, d) => window.__reuseitWidgets.dayCell(c, d[0], d[1], d[2])", [date.year, date.month - 1, date.day]
    ).as_element()
    if day is None:
        raise OpFailed(
            op,
            f"the calendar of {w.what} offers no day {date.day} in {dates.MONTHS[date.month - 1].capitalize()} {date.year}",
            "no_state",
        )
    disabled = day.evaluate(
        "d => d.getAttribute('aria-disabled') === 'true' || d.disabled || /disabled|unavailable/i.test(d.className + ' ' + (d.parentElement ? d.parentElement.className : ''))"
    )
    if disabled:
        raise OpFailed(
            op, f"{w.what} does not offer {date.isoformat()} (its calendar shows that day disabled)", "bad_value"
        )
    day.click(timeout=time_left(deadline))


def _settle(ctx: OpContext, w: Widget, date: dt.date, deadline: float, op: str) -> None:
    """Read back until the field shows ``date``: what it shows without taking it fails."""
    got, text = shown_date(w)
    while got != date and time.monotonic() < deadline:
        ctx.page.wait_for_timeout(POLL_MS)
        got, text = shown_date(w)
    if got == date:
        refused: dict[str, Any] = w.call("dateRefused")
        if refused.get("refused"):
            allows = ", ".join(f"{k} {refused[k]}" for k in ("min", "max") if refused.get(k))
            raise OpFailed(
                op,
                f"{w.what} refuses {date.isoformat()}: it shows it as invalid{' (' + allows + ')' if allows else ''}",
                "bad_value",
            )
        return
    if got != date:
        says = repr(text) if text else "nothing"
        raise OpFailed(
            op,
            f"{w.what} shows {says} after the op, not {date.isoformat()}: the field did not take the date",
            "no_state",
        )
