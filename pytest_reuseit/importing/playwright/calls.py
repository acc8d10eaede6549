"""Every browser call a Playwright trace can hold: a step, nothing to import, or said.

``trace.py`` maps the user's actions it knows (click, fill, press...). The calls here are the rest:
those that are steps of another form (a dispatched event, a blur, keys typed on the focused
element, a page script the test ran), those that change nothing the workflow replays (reads of
the page, waits, the test runner's own calls), and everything else, which is written as a
``# not imported: ...`` comment with the reason and counted: a call the format cannot say (a click
at coordinates, a network route, a screenshot comparison) is never dropped silently.
"""

from __future__ import annotations

import json
from typing import Any

from ..demo import DemoStep, Target
from ..selectors import to_loc

# Reads and waits: the workflow's checks wait by themselves and a read changes nothing.
_READS = {
    "Frame": {
        "ariaSnapshot",
        "content",
        "evaluateExpressionHandle",
        "frameElement",
        "getAttribute",
        "highlight",
        "innerHTML",
        "innerText",
        "inputValue",
        "isChecked",
        "isDisabled",
        "isEditable",
        "isEnabled",
        "isHidden",
        "isVisible",
        "queryCount",
        "querySelector",
        "querySelectorAll",
        "resolveSelector",
        "textContent",
        "title",
        "waitForTimeout",
    },
    "Page": {
        "accessibilitySnapshot",
        "requestGC",
        "screencastSetOverlayVisible",  # the runner's own overlay, around a screenshot
        "screenshot",
        "updateSubscription",
    },
    "ElementHandle": {
        "boundingBox",
        "contentFrame",
        "getAttribute",
        "innerHTML",
        "innerText",
        "inputValue",
        "isChecked",
        "isDisabled",
        "isEditable",
        "isEnabled",
        "isHidden",
        "isVisible",
        "ownerFrame",
        "querySelector",
        "querySelectorAll",
        "screenshot",
        "textContent",
        "waitForElementState",
        "waitForSelector",
    },
    "BrowserContext": {"close", "cookies", "newPage", "pages", "storageState", "updateSubscription"},
}
# Whole kinds of objects whose calls are the runner's (launching, tracing, streams) or reads.
_RUNNER = {
    "Android",
    "Artifact",
    "Browser",
    "BrowserType",
    "CDPSession",
    "JSHandle",
    "LocalUtils",
    "Playwright",
    "Request",
    "Response",
    "Root",
    "Stream",
    "Tracing",
    "WritableStream",
}
_ANY = {"waitForEventInfo"}  # the bookkeeping of page.waitForEvent / waitForNavigation

_POINTER = "another mouse button or modifier keys held: the format presses its buttons with no key held"

# Why a call the format has no form for is not imported (the rest: "the format has no such step").
_WHY = {
    "mouseClick": "a click at coordinates: the format clicks elements",
    "mouseDown": "a mouse button at coordinates: the format clicks elements",
    "mouseUp": "a mouse button at coordinates: the format clicks elements",
    "mouseMove": "a mouse moved to coordinates: the format hovers elements",
    "mouseWheel": "a sideways wheel: the format scrolls down or up",
    "keyboardDown": "a key held down: the format presses keys",
    "keyboardUp": "a key let go: the format presses keys",
    "keyboardInsertText": "text inserted without key events: the format fills or types",
    "expectScreenshot": "toHaveScreenshot: a comparison of pixels with a reference image the format does not hold",
    "dispatchEvent": "an event with an init (its properties): the format dispatches plain events",
    "evaluateExpression": "a page script given an argument from the test",
    "setViewportSize": "the window resized during the test",
    "waitForFunction": "a page script waited for with an argument from the test",
    "selectOption": "options chosen by position or an element, or none: the format chooses options by label or value",
    "dragAndDrop": "a drag from or to a point in an element: the format drags from the middle of one to the middle of the other",
    "click": _POINTER,
    "dblclick": _POINTER,
    "tap": _POINTER,
    "hover": _POINTER,
    "selectText": "a text selection",
    "route": "a network route: the workflow runs against the site itself",
    "setNetworkInterceptionPatterns": "a network route: the workflow runs against the site itself",
    "fetch": "a request the test sent itself, not the page",
    "setInputFiles": "a folder, or files streamed to a remote browser: the format uploads files by name",
}


def unusual_pointer(params: dict[str, Any], buttons: tuple[str, ...] = ("left",)) -> bool:
    """Whether a click, double-click or hover says more than the format can (another button than
    ``buttons``, Shift held): as a plain click it would be another action. A point in the element
    (``position``) the format keeps."""
    return params.get("button") not in (None, *buttons) or bool(params.get("modifiers"))


def position(params: dict[str, Any]) -> tuple[float, float] | None:
    """The point in its element a click, double-click or hover was made at (``position``: pixels
    from its top-left corner), or None for its middle (or a point that is no point)."""
    point = params.get("position")
    if not isinstance(point, dict):
        return None
    x, y = point.get("x"), point.get("y")
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 100_000 for v in (x, y)):
        return None
    return float(x), float(y)  # type: ignore[arg-type]


def unimportant(cls: str, method: str) -> bool:
    """Whether a call changes nothing a workflow replays."""
    return cls in _RUNNER or method in _ANY or method in _READS.get(cls, set())


def not_imported(cls: str, method: str, params: dict[str, Any]) -> str:
    """The comment of a call the format cannot say, on one line."""
    # A drag's first element is its ``source``, where another call's is its ``selector``.
    own = "source" if method == "dragAndDrop" and not params.get("selector") else "selector"
    shown = {k: v for k, v in params.items() if k not in ("strict", "timeout", "selector", "frame", own)}
    args = " ".join(json.dumps(shown, ensure_ascii=False, default=str).split())
    if len(args) > 120:
        args = args[:117] + "..."
    where = f"locator({params[own]})" if params.get(own) else cls[:1].lower() + cls[1:]
    why = _WHY.get(method, "the format has no such step")
    return f"{where}.{method}({'' if args == '{}' else args}) ({why})"


def other_step(cls: str, method: str, params: dict[str, Any]) -> DemoStep | None:
    """The step a call is when it is an action of another form than click/fill/press; None when
    it is not one (a read, a wait, or a call ``not_imported`` words)."""
    target = Target([str(params["selector"])]) if params.get("selector") else None
    if cls == "Frame" and method in ("focus", "blur") and target is not None:
        return DemoStep(method, target)
    if cls == "Frame" and method == "dispatchEvent" and target is not None and _no_init(params.get("eventInit")):
        return DemoStep("dispatch", target, value=str(params.get("type") or ""))
    if cls == "Frame" and method == "dragAndDrop" and _middle_to_middle(params):
        return DemoStep("drag", Target([str(params["source"])]), to=Target([str(params["target"])]))
    if cls == "Page" and method == "keyboardType":
        # Keys typed on whatever has the focus (a field clicked just before): that element.
        return DemoStep("type", Target(["*:focus"]), value=str(params.get("text") or ""))
    if cls == "Page" and method == "mouseWheel" and not params.get("deltaX"):
        return DemoStep("scroll", value=str(int(params.get("deltaY") or 0)))
    if cls == "Page" and method == "close":
        return DemoStep("close_page")
    if cls == "Frame" and method == "evaluateExpression" and _no_init(params.get("arg")):
        expression = str(params.get("expression") or "")
        return DemoStep("eval", value=f"({expression})()" if params.get("isFunction") else expression)
    return None


# What the test waits for an element to be (``waitForSelector``, ``locator.waitFor``): the check
# that holds once it is. A wait that never ends fails the test, so it is an assertion, not a read.
_WAITED_STATES = {"visible": "visible", "hidden": "hidden", "attached": "attached", "detached": "detached"}


def wait_check(cls: str, method: str, params: dict[str, Any]) -> tuple[dict[str, Any], str] | None:
    """The check a test's wait for the page says, and its words: an element's state waited for,
    or a page script waited for until truthy (without an argument from the test); None for any
    other call (a wait with an argument is said as not imported)."""
    if cls == "Frame" and method == "waitForSelector" and params.get("selector"):
        state = str(params.get("state") or "visible")
        if state in _WAITED_STATES:
            selector = str(params["selector"])
            return {_WAITED_STATES[state]: to_loc(selector)}, f"waitForSelector({selector}, state: {state})"
    if cls == "Frame" and method == "waitForFunction" and _no_init(params.get("arg")):
        expression = str(params.get("expression") or "").strip()
        if expression:
            # isFunction absent (a Python client's call): the script runner calls a function, as Playwright does.
            js = f"({expression})()" if params.get("isFunction") else expression
            return {"js": js}, f"waitForFunction({' '.join(expression.split())[:120]})"
    return None


def _middle_to_middle(params: dict[str, Any]) -> bool:
    """Whether a traced drag is the op's: from the middle of one element to the middle of another
    (Playwright's default); one from or to a point in an element is said as not imported."""
    return bool(params.get("source") and params.get("target")) and not (
        params.get("sourcePosition") or params.get("targetPosition")
    )


def _no_init(value: Any) -> bool:
    """Whether a serialized argument is empty: ``undefined``, ``null`` (what Playwright's Python
    client sends when no argument is given), or an object with no properties."""
    inner = value.get("value") if isinstance(value, dict) else None
    return (
        inner is None
        or inner in ({"v": "undefined"}, {"v": "null"})
        or (isinstance(inner, dict) and inner.get("o") == [])
    )
