"""The widget a LOC names, found in the page by ``widgets.js``, and the calls that read it.

A LOC names a field as a person sees it; a component library puts the control somewhere else (a
hidden ``<select>`` it keeps for forms, a ``role=combobox`` button, a shadow host, a ``<div>``
slider a ``<label for>`` points at). :func:`find` asks the page which widget of a kind the LOC's
matches, or its label, belong to, waiting for it as Playwright's own calls wait for an element.
The script only reads: every click and key is Playwright's.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import ElementHandle, JSHandle, Page
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator as PwLocator

from ...workflow.locators import Locator
from ..locators import Render, describe, resolve
from ..op_context import OpContext, OpFailed

_SCRIPT = (Path(__file__).parent / "widgets.js").read_text(encoding="utf-8")
# Every call carries the script: a document the page navigated to since has none installed, and
# one round trip that installs it when missing costs what a check for it would.
_CALL = "(target, arg) => {\n" + _SCRIPT + "\nreturn window.__reuseitWidgets[arg.fn](target, ...arg.args);\n}"
_FIND = "(root, arg) => {\n" + _SCRIPT + "\nreturn window.__reuseitWidgets.find({...arg.spec, root}, arg.matches);\n}"

# How often the page is asked again while a widget or a state is awaited.
POLL_MS = 50


@dataclass
class Widget:
    """A widget found in the page: ``handle`` is the page's own record of it (its elements), the
    rest what the ops decide on."""

    handle: JSHandle
    type: str  # native | custom | drawn | aria | slider | segments | text
    what: str  # "combobox "Country"": how errors name it
    name: str
    disabled: bool
    multiple: bool
    label: str  # the op's own words for it (its LOC)
    date: bool = False  # a text field of a date picker (fill with a date picks it)

    def element(self, key: str = "el") -> ElementHandle | None:
        prop = self.handle.get_property(key)
        element = prop.as_element()
        return element

    def elements(self, key: str) -> list[ElementHandle]:
        listed = self.handle.get_property(key)
        out = []
        for value in listed.get_properties().values():
            element = value.as_element()
            if element is not None:
                out.append(element)
        return out

    def call(self, fn: str, *args: Any) -> Any:
        return self.handle.evaluate(_CALL, {"fn": fn, "args": list(args)})

    def call_handle(self, fn: str, *args: Any) -> JSHandle:
        return self.handle.evaluate_handle(_CALL, {"fn": fn, "args": list(args)})


def call(target: JSHandle, fn: str, *args: Any) -> Any:
    """``window.__reuseitWidgets[fn](target, *args)`` in the target's document."""
    return target.evaluate(_CALL, {"fn": fn, "args": list(args)})


def root_of(page: Page, arg: Locator, render: Render) -> PwLocator:
    """The document (or ``within`` element) a LOC is looked up in, in its frame."""
    scope = Locator.model_validate({"css": ":root", "frame": arg.frame, "within": arg.within}, strict=False)
    return resolve(page, scope, render).first


def _plain_label(arg: Locator, render: Render) -> str | None:
    """The words a label-like LOC names its field by (label, placeholder or role's name)."""
    if arg.label is not None:
        return render(arg.label)
    if arg.role is not None and arg.name is not None:
        return render(arg.name)
    return None


def find(ctx: OpContext, arg: Locator, kind: str, op: str, *, thumbs: int = 1, wait: bool = True) -> Widget:
    """The one widget of ``kind`` (select, check, slider, date, fill) that ``arg`` names, waited
    for up to the op's timeout. Fails naming what was found instead: nothing, several widgets, or
    an element that is no such widget."""
    return find_in(ctx.page, arg, ctx.render, ctx.action_timeout_ms, kind, op, thumbs=thumbs, wait=wait)


def find_in(
    page: Page,
    arg: Locator,
    render: Render,
    timeout_ms: float,
    kind: str,
    op: str,
    *,
    thumbs: int = 1,
    wait: bool = True,
) -> Widget:
    """:func:`find` on a page with its own placeholder filling and timeout (the checks' use)."""
    loc = resolve(page, arg, render)
    label = _plain_label(arg, render)
    spec = {"kind": kind, "label": label, "exact": bool(arg.exact), "thumbs": thumbs}
    deadline = time.monotonic() + timeout_ms / 1000
    last: dict[str, Any] = {}
    while True:
        left_ms = max((deadline - time.monotonic()) * 1000, 1)
        try:
            root = root_of(page, arg, render).element_handle(timeout=max(left_ms, 1000))
            matches = loc.element_handles()
            handle = root.evaluate_handle(_FIND, {"spec": spec, "matches": matches})
            summary = handle.evaluate(
                "t => ({status: t.status, type: t.type, what: t.what, name: t.name, disabled: !!t.disabled,"
                " multiple: !!t.multiple, date: !!t.date, found: t.found || []})"
            )
        except PlaywrightError as exc:
            if "Execution context was destroyed" in str(exc) or "navigat" in str(exc).lower():
                summary = {"status": "none", "found": []}  # the page is changing: ask the next one
                handle = None
            else:
                raise
        if summary["status"] == "ok" and handle is not None:
            widget = Widget(
                handle,
                summary["type"],
                summary["what"],
                summary["name"] or (label or ""),
                summary["disabled"],
                summary["multiple"],
                describe(arg.plain(), render),
                summary["date"],
            )
            # A disabled widget may be enabled once the page has loaded what it needs: it is
            # waited for as Playwright waits for an enabled element, and said to be disabled after.
            if not widget.disabled or not wait or time.monotonic() >= deadline:
                return widget
            page.wait_for_timeout(POLL_MS)
            continue
        if summary["status"] == "many":
            found = ", ".join(summary["found"])
            raise OpFailed(
                op,
                f"{describe(arg.plain(), render)} names several widgets ({found}): make it unique (add nth, exact or within)",
                "ambiguous",
            )
        last = summary
        if not wait or time.monotonic() >= deadline:
            break
        page.wait_for_timeout(POLL_MS)
    seen: list[str] = last.get("found") or []
    if seen:
        words = {
            "select": "a list of options",
            "check": "a checkbox, switch or radio",
            "slider": "a slider",
            "date": "a date field",
        }
        raise OpFailed(
            op,
            f"{describe(arg.plain(), render)} is {seen[0]}, not {words.get(kind, 'a field')}",
            "not_found",
        )
    raise OpFailed(
        op,
        f"timed out: no element matches {describe(arg.plain(), render)} within {timeout_ms / 1000:g}s",
        "not_found",
    )


def op_name(ctx: OpContext, fallback: str) -> str:
    """How the op being run is named in a failure, as the other ops name it."""
    from ...workflow.ops import describe_op

    return ctx.render(describe_op(ctx.op)) if ctx.op is not None else fallback


def time_left(deadline: float) -> float:
    """Milliseconds to ``deadline`` (at least 1: Playwright reads 0 as no limit)."""
    return max((deadline - time.monotonic()) * 1000, 1)
