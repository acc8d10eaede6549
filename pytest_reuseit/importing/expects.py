"""A source's assertions as the DOM checks of the format.

Playwright sends every ``expect(...)`` of a test, in any language, to the browser as one call
(``Frame.expect``) with an ``expression`` (``to.have.text``, ``to.be.visible``...), the expected
texts or number, and ``isNot``; a trace keeps that call. :func:`from_playwright` turns one into an
``expect`` mapping, or says why the format cannot hold it (then it is written as a comment and
counted: none is silently left out).
"""

from __future__ import annotations

import re
from collections.abc import Callable
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
    loc: dict[str, Any] = to_loc(selector) if selector else {}
    if expression in _STATES:
        key, negated = _STATES[expression]
        if expression == "to.be.checked" and not _checked_value(params):
            key, negated = negated, key
        return {negated if is_not else key: loc}, words
    convert = _CONVERTERS.get(expression)
    texts = [t for t in params.get("expectedText") or [] if isinstance(t, dict)]
    check = convert(expression, loc, texts, params) if convert is not None else None
    if check is None:
        return None, words
    return ({"not": check} if is_not else check), words


_Texts = list[dict[str, Any]]


def _one_text(texts: _Texts) -> dict[str, str] | None:
    return _match(texts[0]) if len(texts) == 1 else None


def _text(expression: str, loc: dict[str, Any], texts: _Texts, params: dict[str, Any]) -> dict[str, Any] | None:
    m = _one_text(texts)
    return {"value" if expression == "to.have.value" else "text": {**loc, **m}} if m else None


def _texts(expression: str, loc: dict[str, Any], texts: _Texts, params: dict[str, Any]) -> dict[str, Any] | None:
    plain = [t.get("string") for t in texts]
    if not texts or not all(isinstance(t, str) for t in plain):
        return None  # regular expressions in a list: not in the format
    key = "equals" if expression == "to.have.text.array" else "contains"
    return {"texts": {**loc, key: [" ".join(str(t).split()) for t in plain]}}


def _count(expression: str, loc: dict[str, Any], texts: _Texts, params: dict[str, Any]) -> dict[str, Any] | None:
    number = params.get("expectedNumber")
    return {"count": {**loc, "equals": int(number)}} if isinstance(number, (int, float)) else None


def _page(expression: str, loc: dict[str, Any], texts: _Texts, params: dict[str, Any]) -> dict[str, Any] | None:
    m = _one_text(texts)
    return {expression.rsplit(".", 1)[1]: m} if m else None


def _empty(expression: str, loc: dict[str, Any], texts: _Texts, params: dict[str, Any]) -> dict[str, Any] | None:
    return {"empty": loc}


def _attribute(expression: str, loc: dict[str, Any], texts: _Texts, params: dict[str, Any]) -> dict[str, Any] | None:
    m = _one_text(texts)
    if m is None:
        return None
    if expression == "to.contain.class" and "equals" in m:  # one class among the element's
        m = {"matches": rf"(^|\s){re.escape(m['equals'])}(\s|$)"}
    name = {"to.have.class": "class", "to.contain.class": "class", "to.have.id": "id"}.get(expression)
    name = name or str(params.get("expressionArg") or "")
    return {"attribute": {**loc, "attr": name, **m}} if name else None


_Converter = Callable[[str, dict[str, Any], _Texts, dict[str, Any]], "dict[str, Any] | None"]
_CONVERTERS: dict[str, _Converter] = {
    "to.have.text": _text,
    "to.contain.text": _text,
    "to.have.value": _text,
    "to.have.text.array": _texts,
    "to.contain.text.array": _texts,
    "to.have.count": _count,
    "to.have.url": _page,
    "to.have.title": _page,
    "to.be.empty": _empty,
    "to.have.class": _attribute,
    "to.contain.class": _attribute,
    "to.have.id": _attribute,
    "to.have.attribute.value": _attribute,
}
