"""The fields of a Chrome DevTools recording's steps, checked as ``@puppeteer/replay`` checks them.

The recorder's replay library reads a recording with its own parser (``parse``/``parseStep``:
every field of every step type of ``Schema.ts`` has a type). A field of another type is refused
here the same way, in one line naming the step and the field, before anything is imported: a
string where a list of selectors is due must not become a click on each of its characters, nor
``url: 5`` a page called "5", nor ``checked: "false"`` a box ticked.
"""

from __future__ import annotations

from typing import Any

from ..demo import UnreadableInput

# Every step type of the schema, and the fields each requires (beyond type): name -> kind.
_REQUIRED: dict[str, dict[str, str]] = {
    "click": {"selectors": "selectors", "offsetX": "number", "offsetY": "number"},
    "doubleClick": {"selectors": "selectors", "offsetX": "number", "offsetY": "number"},
    "hover": {"selectors": "selectors"},
    "change": {"selectors": "selectors", "value": "string"},
    "keyDown": {"key": "string"},
    "keyUp": {"key": "string"},
    "emulateNetworkConditions": {"download": "number", "upload": "number", "latency": "number"},
    "close": {},
    "setViewport": {
        "width": "number",
        "height": "number",
        "deviceScaleFactor": "number",
        "isMobile": "boolean",
        "hasTouch": "boolean",
        "isLandscape": "boolean",
    },
    "scroll": {},
    "navigate": {"url": "string"},
    "customStep": {"name": "string"},
    "waitForElement": {"selectors": "selectors"},
    "waitForExpression": {"expression": "string"},
}
STEP_TYPES = frozenset(_REQUIRED)
_OPTIONAL: dict[str, str] = {
    "target": "string",
    "frame": "frame",
    "assertedEvents": "events",
    "duration": "number",
    "x": "number",
    "y": "number",
    "operator": "operator",
    "count": "number",
    "visible": "boolean",
    "attributes": "strings",
    "properties": "object",
    "button": "button",
    "deviceType": "device",
    "timeout": "timeout",
}
# The optional fields each type has (replay ignores the others; so does this reader).
_HAS = {
    "click": {"target", "frame", "assertedEvents", "duration", "button", "deviceType"},
    "doubleClick": {"target", "frame", "assertedEvents", "duration", "button", "deviceType"},
    "scroll": {"target", "frame", "assertedEvents", "x", "y", "selectors"},
    "waitForElement": {"target", "frame", "assertedEvents", "operator", "count", "visible", "attributes", "properties"},
}
_WITH_FRAME = {"hover", "change", "waitForExpression", "customStep"}
MOUSE_BUTTONS = ("primary", "auxiliary", "secondary", "back", "forward")
_WORDS = {
    "string": "a string",
    "number": "a number",
    "boolean": "true or false",
    "selectors": "a non-empty list of selectors (each a string, or a list of strings)",
    "frame": "a list of whole numbers",
    "events": "a list of {type: navigation, url, title}",
    "operator": "one of '>=', '==', '<='",
    "strings": "a mapping of strings",
    "object": "a mapping",
    "button": "one of " + ", ".join(MOUSE_BUTTONS),
    "device": "one of mouse, pen, touch",
    "timeout": "a number of milliseconds from 1 to 30000",
}


def _fits(value: Any, kind: str) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "selectors":
        return (
            isinstance(value, list)
            and bool(value)
            and all(
                isinstance(s, str) or (isinstance(s, list) and s and all(isinstance(p, str) for p in s)) for s in value
            )
        )
    if kind == "frame":
        return isinstance(value, list) and all(isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in value)
    if kind == "events":
        return isinstance(value, list) and all(_event(e) for e in value)
    if kind == "operator":
        return value in (">=", "==", "<=")
    if kind == "strings":
        return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
    if kind == "object":
        return isinstance(value, dict)
    if kind == "timeout":
        return _fits(value, "number") and 1 <= value <= 30000
    if kind == "button":
        return value in MOUSE_BUTTONS
    return value in ("mouse", "pen", "touch")


def _event(event: Any) -> bool:
    return (
        isinstance(event, dict)
        and event.get("type") == "navigation"
        and all(isinstance(event[k], str) for k in ("url", "title") if k in event)
    )


def check_recording(data: dict[str, Any], where: str) -> None:
    """Refuse, in one line, a recording whose title or steps are not what the schema says."""
    if not isinstance(data.get("title"), str):
        raise UnreadableInput(f"{where}: the recording's title is not a string")
    if "timeout" in data and not _fits(data["timeout"], "timeout"):
        raise UnreadableInput(
            f"{where}: the recording's timeout must be {_WORDS['timeout']}, got {_short(data['timeout'])}"
        )
    for n, step in enumerate(data["steps"]):
        check_step(step, f"{where}: steps[{n}]")


def check_step(step: Any, where: str) -> None:
    if not isinstance(step, dict):
        raise UnreadableInput(f"{where} is not a mapping but {type(step).__name__}: not a Chrome DevTools recording")
    kind = step.get("type")
    if not isinstance(kind, str) or kind not in STEP_TYPES:
        raise UnreadableInput(f"{where} has the type {kind!r}, which this release does not know")
    for name, want in _REQUIRED[kind].items():
        if name not in step or not _fits(step[name], want):
            got = "missing" if name not in step else f"{type(step[name]).__name__} {_short(step[name])}"
            raise UnreadableInput(f"{where} ({kind}): {name} must be {_WORDS[want]}, got {got}")
    optional = {"timeout"} | _HAS.get(
        kind, {"target", "assertedEvents"} | ({"frame"} if kind in _WITH_FRAME else set())
    )
    for name in optional:
        want = "selectors" if name == "selectors" else _OPTIONAL[name]
        if name in step and not _fits(step[name], want):
            raise UnreadableInput(
                f"{where} ({kind}): {name} must be {_WORDS[want]}, got {type(step[name]).__name__} {_short(step[name])}"
            )


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
