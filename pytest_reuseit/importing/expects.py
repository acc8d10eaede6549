"""A source's assertions as the DOM checks of the format.

Playwright sends every ``expect(...)`` of a test, in any language, to the browser as one call
(``Frame.expect``) with an ``expression`` (``to.have.text``, ``to.be.visible``...), the expected
texts or number, and ``isNot``; a trace keeps that call. :func:`from_playwright` turns one into an
``expect`` mapping, or says why the format cannot hold it (then it is written as a comment and
counted: none is silently left out).
"""

from __future__ import annotations

import re
from typing import Any

from .selectors import to_loc

# expression -> (key, key under not.): the state assertions.
_STATES = {
    "to.be.visible": ("visible", "hidden"),
    "to.be.hidden": ("hidden", "visible"),
    "to.be.checked": ("checked", "unchecked"),
    "to.be.unchecked": ("unchecked", "checked"),
    "to.be.enabled": ("enabled", "disabled"),
    "to.be.disabled": ("disabled", "enabled"),
}


def _match(expected: dict[str, Any]) -> dict[str, str] | None:
    """One of Playwright's expected texts as ``equals``/``contains``/``matches``."""
    if "regexSource" in expected:
        flags = str(expected.get("regexFlags") or "")
        source = str(expected["regexSource"])
        return {"matches": f"(?i){source}" if "i" in flags else source}
    if "string" not in expected:
        return None
    text = str(expected["string"])
    if expected.get("normalizeWhiteSpace"):
        text = " ".join(text.split())
    if expected.get("ignoreCase"):
        return {"matches": f"(?i){'^' if not expected.get('matchSubstring') else ''}{re.escape(text)}"}
    return {"contains": text} if expected.get("matchSubstring") else {"equals": text}


def _checked_value(params: dict[str, Any]) -> bool:
    """``to_be_checked(checked=False)``: the wanted state travels in expectedValue."""
    value = params.get("expectedValue")
    if isinstance(value, dict):
        inner = value.get("value", value)
        if isinstance(inner, dict) and "o" in inner:  # serialized {checked: false}
            for entry in inner["o"]:
                if entry.get("k") == "checked":
                    return bool(entry.get("v", {}).get("b", True))
    return True


def from_playwright(params: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """(the ``expect`` mapping or None, the assertion in words for comments and summaries)."""
    expression = str(params.get("expression") or "")
    is_not = bool(params.get("isNot"))
    selector = str(params.get("selector") or "")
    words = f"expect({selector or 'page'}).{'not.' if is_not else ''}{expression}"
    texts = [t for t in params.get("expectedText") or [] if isinstance(t, dict)]
    loc: dict[str, Any] = to_loc(selector) if selector else {}
    check: dict[str, Any] | None = None
    if expression in _STATES:
        key, negated = _STATES[expression]
        if expression == "to.be.checked" and not _checked_value(params):
            key, negated = negated, key
        return {negated if is_not else key: loc}, words
    if expression in ("to.have.text", "to.contain.text", "to.have.value") and len(texts) == 1:
        m = _match(texts[0])
        if m is not None:
            check = {"value" if expression == "to.have.value" else "text": {**loc, **m}}
    elif expression in ("to.have.text.array", "to.contain.text.array") and texts:
        plain = [t.get("string") for t in texts]
        if all(isinstance(t, str) for t in plain):
            whole = expression == "to.have.text.array"
            normal = [" ".join(str(t).split()) for t in plain]
            check = {"texts": {**loc, ("equals" if whole else "contains"): normal}}
    elif expression == "to.have.count" and isinstance(params.get("expectedNumber"), (int, float)):
        check = {"count": {**loc, "equals": int(params["expectedNumber"])}}
    elif expression in ("to.have.url", "to.have.title") and len(texts) == 1:
        m = _match(texts[0])
        if m is not None:
            check = {expression.rsplit(".", 1)[1]: m}
    elif expression == "to.be.empty":
        check = {"empty": loc}
    elif expression in ("to.have.class", "to.contain.class") and len(texts) == 1:
        m = _match(texts[0])
        if m is not None and expression == "to.contain.class" and "equals" in m:
            m = {"matches": rf"(^|\s){re.escape(m['equals'])}(\s|$)"}
        if m is not None:
            check = {"attribute": {**loc, "attr": "class", **m}}
    elif expression == "to.have.attribute.value" and len(texts) == 1 and params.get("expressionArg"):
        m = _match(texts[0])
        if m is not None:
            check = {"attribute": {**loc, "attr": str(params["expressionArg"]), **m}}
    elif expression == "to.have.id" and len(texts) == 1:
        m = _match(texts[0])
        if m is not None:
            check = {"attribute": {**loc, "attr": "id", **m}}
    if check is None:
        return None, words
    return ({"not": check} if is_not else check), words
