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

from ..selectors import to_loc
from .polls import NO_VALUE, json_value

# expression -> (key, key under not.): the state assertions. Playwright sends an option's false
# (toBeVisible({visible: false}), toBeEditable({editable: false})) as the other expression.
_STATES = {
    "to.be.visible": ("visible", "hidden"),
    "to.be.hidden": ("hidden", "visible"),
    "to.be.checked": ("checked", "unchecked"),
    "to.be.unchecked": ("unchecked", "checked"),
    "to.be.enabled": ("enabled", "disabled"),
    "to.be.disabled": ("disabled", "enabled"),
    "to.be.attached": ("attached", "detached"),
    "to.be.detached": ("detached", "attached"),
}
# States without a key of their own for the other way: not. of the state.
_ONE_WAY = {"to.be.focused": "focused", "to.be.editable": "editable"}


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
        # Whole (not matchSubstring): anchored at both ends, or "save" would hold for "Save draft".
        whole = not expected.get("matchSubstring")
        return {"matches": f"(?i){'^' if whole else ''}{re.escape(text)}{'$' if whole else ''}"}
    return {"contains": text} if expected.get("matchSubstring") else {"equals": text}


def _option(params: dict[str, Any], name: str) -> bool | None:
    """An option of a state assertion (``toBeChecked({checked: false})``), from expectedValue."""
    value = params.get("expectedValue")
    if isinstance(value, dict):
        inner = value.get("value", value)
        if isinstance(inner, dict) and "o" in inner:  # serialized {checked: false}
            for entry in inner["o"]:
                if entry.get("k") == name and "b" in (entry.get("v") or {}):
                    return bool(entry["v"]["b"])
    return None


def from_playwright(params: dict[str, Any]) -> tuple[dict[str, Any] | list[dict[str, Any]] | None, str]:
    """(the ``expect`` mapping, or a list of them that hold together, or None; the assertion in
    words for comments and summaries)."""
    expression = str(params.get("expression") or "")
    is_not = bool(params.get("isNot"))
    selector = str(params.get("selector") or "")
    words = f"expect({selector or 'page'}).{'not.' if is_not else ''}{expression}"
    loc: dict[str, Any] = to_loc(selector) if selector else {}
    if expression in _STATES:
        key, negated = _STATES[expression]
        if expression == "to.be.checked" and _option(params, "indeterminate"):
            return None, words + " (indeterminate: the format has no such state)"
        if expression == "to.be.checked" and _option(params, "checked") is False:
            key, negated = negated, key
        return {negated if is_not else key: loc}, words
    if expression in _ONE_WAY:
        state = {_ONE_WAY[expression]: loc}
        return ({"not": state} if is_not else state), words
    if expression == "to.be.readonly":  # toBeEditable({editable: false})
        state = {"editable": loc}
        return (state if is_not else {"not": state}), words
    unsaid = _values_unsaid(params) if expression == "to.have.values" else None
    if unsaid:
        return None, f"{words} ({unsaid})"
    if expression == "to.have.property":
        return _js_property(params, loc, is_not, words)
    convert = _CONVERTERS.get(expression)
    texts = [t for t in params.get("expectedText") or [] if isinstance(t, dict)]
    check = convert(expression, loc, texts, params) if convert is not None else None
    if check is None:
        return None, words
    if "all" in check:  # several checks: their not. is "one of them fails", which the format cannot say
        return (None if is_not else list(check["all"])), words
    return ({"not": check} if is_not else check), words


_Texts = list[dict[str, Any]]


def _one_text(texts: _Texts) -> dict[str, str] | None:
    return _match(texts[0]) if len(texts) == 1 else None


def _text(expression: str, loc: dict[str, Any], texts: _Texts, params: dict[str, Any]) -> dict[str, Any] | None:
    m = _one_text(texts)
    return {"value" if expression == "to.have.value" else "text": {**loc, **m}} if m else None


def _accessible(expression: str, loc: dict[str, Any], texts: _Texts, params: dict[str, Any]) -> dict[str, Any] | None:
    """``toHaveAccessibleName`` / ``toHaveAccessibleDescription``: a text match, as ``text``."""
    m = _one_text(texts)
    key = "accessible_name" if expression == "to.have.accessible.name" else "accessible_description"
    return {key: {**loc, **m}} if m else None


def _role(expression: str, loc: dict[str, Any], texts: _Texts, params: dict[str, Any]) -> dict[str, Any] | None:
    """``toHaveRole(role)``: ``has_role`` (``role`` is the locator's key)."""
    role = texts[0].get("string") if len(texts) == 1 else None
    return {"has_role": {**loc, "equals": role}} if isinstance(role, str) and role else None


def _js_property(
    params: dict[str, Any], loc: dict[str, Any], is_not: bool, words: str
) -> tuple[dict[str, Any] | None, str]:
    """``toHaveJSProperty(name, value)``: the value as the trace serialized it, when JSON says it."""
    name = params.get("expressionArg")
    expected = params.get("expectedValue")
    serialized = expected.get("value") if isinstance(expected, dict) else None
    value = json_value(serialized)
    if not isinstance(name, str) or not name:
        return None, f"{words} (no property name)"
    if serialized is None:
        return None, f"{words} (no expected value)"
    if value is NO_VALUE:
        return None, f"{words} (a value JSON cannot say: undefined, NaN, a date, an element...)"
    check = {"js_property": {**loc, "property": name, "equals": value}}
    return ({"not": check} if is_not else check), words


def _texts(expression: str, loc: dict[str, Any], texts: _Texts, params: dict[str, Any]) -> dict[str, Any] | None:
    plain = [t.get("string") for t in texts]
    if not texts or not all(isinstance(t, str) for t in plain):
        return None  # regular expressions in a list: not in the format
    key = "equals" if expression == "to.have.text.array" else "contains"
    return {"texts": {**loc, key: [" ".join(str(t).split()) for t in plain]}}


def _values_unsaid(params: dict[str, Any]) -> str | None:
    """Why the expected items of ``toHaveValues`` are not the format's (exact strings), or None."""
    items = params.get("expectedText")
    if not isinstance(items, list) or not all(isinstance(t, dict) for t in items):
        return "no list of expected values"
    if any("regexSource" in t for t in items):
        return "a regular expression among the values: the format compares exact values"
    loose = ("matchSubstring", "normalizeWhiteSpace", "ignoreCase")
    if not all(isinstance(t.get("string"), str) and not any(t.get(k) for k in loose) for t in items):
        return "values compared other than whole and exactly: the format compares exact values"
    return None


def _values(expression: str, loc: dict[str, Any], texts: _Texts, params: dict[str, Any]) -> dict[str, Any] | None:
    """``toHaveValues([...])``: the selected options of a list box, in order (none: ``[]``)."""
    return {"values": {**loc, "equals": [str(t["string"]) for t in texts]}}


def _in_viewport(expression: str, loc: dict[str, Any], texts: _Texts, params: dict[str, Any]) -> dict[str, Any] | None:
    """``toBeInViewport({ratio})``: the ratio comes as expectedNumber (none or 0: any part)."""
    ratio = params.get("expectedNumber")
    if isinstance(ratio, bool) or (ratio is not None and not isinstance(ratio, (int, float))):
        return None
    return {"in_viewport": {**loc, "ratio": ratio} if ratio else loc}


def _count(expression: str, loc: dict[str, Any], texts: _Texts, params: dict[str, Any]) -> dict[str, Any] | None:
    number = params.get("expectedNumber")
    return {"count": {**loc, "equals": int(number)}} if isinstance(number, (int, float)) else None


def _page(expression: str, loc: dict[str, Any], texts: _Texts, params: dict[str, Any]) -> dict[str, Any] | None:
    m = _one_text(texts)
    return {expression.rsplit(".", 1)[1]: m} if m else None


def _empty(expression: str, loc: dict[str, Any], texts: _Texts, params: dict[str, Any]) -> dict[str, Any] | None:
    return {"empty": loc}


def _classes(expression: str, loc: dict[str, Any], texts: _Texts, params: dict[str, Any]) -> dict[str, Any] | None:
    """``toHaveClass([...])``: as many elements as classes, each one's class attribute as given
    (an empty one: no class at all, or only spaces); ``toContainClass([...])``: each holds it."""
    if not texts or "nth" in loc or len(texts) > 50:
        return None
    checks: list[dict[str, Any]] = [{"count": {**loc, "equals": len(texts)}}]
    for i, expected in enumerate(texts):
        m = _match(expected)
        if m is None:
            return None
        one = {**loc, "nth": i, "attr": "class"}
        if expression == "to.contain.class.array" and "equals" in m:
            m = {"matches": rf"(^|\s){re.escape(m['equals'])}(\s|$)"}
        if m.get("equals") == "":
            checks.append({"not": {"attribute": {**one, "matches": r"\S"}}})
        else:
            checks.append({"attribute": {**one, **m}})
    return {"all": checks}


def _css(expression: str, loc: dict[str, Any], texts: _Texts, params: dict[str, Any]) -> dict[str, Any] | None:
    m = _one_text(texts)
    name = str(params.get("expressionArg") or "")
    return {"style": {**loc, "property": name, **m}} if m and name else None


def _has_attribute(
    expression: str, loc: dict[str, Any], texts: _Texts, params: dict[str, Any]
) -> dict[str, Any] | None:
    """``toHaveAttribute(name)``: the element has it, whatever its value (``^`` matches any; an
    empty pattern would be sent to Playwright as no pattern)."""
    name = str(params.get("expressionArg") or "")
    return {"attribute": {**loc, "attr": name, "matches": "^"}} if name else None


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
    "to.have.values": _values,
    "to.have.text.array": _texts,
    "to.contain.text.array": _texts,
    "to.have.count": _count,
    "to.be.in.viewport": _in_viewport,
    "to.have.accessible.name": _accessible,
    "to.have.accessible.description": _accessible,
    "to.have.role": _role,
    "to.have.url": _page,
    "to.have.title": _page,
    "to.be.empty": _empty,
    "to.have.class": _attribute,
    "to.have.class.array": _classes,
    "to.contain.class.array": _classes,
    "to.contain.class": _attribute,
    "to.have.id": _attribute,
    "to.have.attribute.value": _attribute,
    "to.have.attribute": _has_attribute,
    "to.have.css": _css,
}
