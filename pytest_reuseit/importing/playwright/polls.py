"""``expect.poll(() => page.evaluate(fn)).<matcher>(expected)`` as a ``js`` check that compares as
JavaScript compares.

A trace keeps the script (the browser's ``evaluateExpression``) and what its last evaluation
returned, in Playwright's serialization (``{"a": [{"s": "x"}]}``); the test's own record keeps the
matcher's name and the expected value only as words (``[buy some cheese, feed the cat]``, ``3``,
``Object``), which cannot tell ``3`` from ``'3'``. In a passing test the last evaluation is the one
that satisfied the matcher, so for ``toBe``/``toEqual``/``toStrictEqual`` the expected value is
that value, exactly; for the others it is what the words can say without doubt. The check runs the
script in the page and compares there, with the matcher's own rules (``Object.is`` for ``toBe``,
deep equality for ``toEqual``, which ignores properties that are ``undefined``): never a string
made by Python (whose JSON puts ``", "`` between items where ``JSON.stringify`` puts ``","``).
What cannot be said exactly is returned as None with its words (written as a comment, counted).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

# Deep equality as Jest's (Playwright's expect) toEqual and toStrictEqual judge values that came
# through Playwright's serialization: plain objects, arrays, primitives.
_EQ = (
    "const eq = (a, b, strict) => {"
    " if (Object.is(a, b)) return true;"
    " if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;"
    " if (Array.isArray(a) !== Array.isArray(b)) return false;"
    " const keys = (o) => Object.keys(o).filter((k) => strict || o[k] !== undefined);"
    " const ka = keys(a), kb = keys(b);"
    " return ka.length === kb.length && (!Array.isArray(a) || a.length === b.length)"
    " && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && eq(a[k], b[k], strict)); };"
)

NO_VALUE = object()


def plain_value(v: Any) -> Any:
    """A value in Playwright's serialization as Python, or NO_VALUE when it is not plain data
    (a Date, a RegExp, an element, a BigInt, a reference): those are not compared here."""
    if not isinstance(v, dict):
        return NO_VALUE
    for key in ("n", "s", "b"):
        if key in v:
            return v[key]
    special = v.get("v")
    if special in ("null", "undefined", "NaN", "Infinity", "-Infinity", "-0"):
        return _Special(special)
    if "a" in v:
        items = [plain_value(x) for x in v["a"]]
        return NO_VALUE if any(x is NO_VALUE for x in items) else items
    if "o" in v:
        out: dict[str, Any] = {}
        for entry in v["o"]:
            value = plain_value(entry.get("v"))
            if value is NO_VALUE or not isinstance(entry.get("k"), str):
                return NO_VALUE
            out[entry["k"]] = value
        return out
    return NO_VALUE


def json_value(v: Any) -> Any:
    """A value in Playwright's serialization as JSON says it (``null`` as None), or NO_VALUE when
    JSON has no word for it (undefined, NaN, the infinities, -0) or it is not plain data."""
    return _as_json(plain_value(v))


def _as_json(value: Any) -> Any:
    if isinstance(value, _Special):
        return None if value.name == "null" else NO_VALUE
    if isinstance(value, float) and value != value:
        return NO_VALUE
    if isinstance(value, list):
        items = [_as_json(v) for v in value]
        return NO_VALUE if any(v is NO_VALUE for v in items) else items
    if isinstance(value, dict):
        entries = {k: _as_json(v) for k, v in value.items()}
        return NO_VALUE if any(v is NO_VALUE for v in entries.values()) else entries
    return value


class _Special:
    """A value JSON has no word for (undefined, NaN, -0...): written as JavaScript names it."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Special) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)


def js_literal(value: Any) -> str:
    """``value`` as JavaScript source (JSON where JSON can say it, without spaces)."""
    if isinstance(value, _Special):
        return value.name
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    if isinstance(value, (int, float)):
        return repr(value) if math.isfinite(value) else ("NaN" if math.isnan(value) else "Infinity")
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(js_literal(v) for v in value) + "]"
    return "{" + ",".join(f"{json.dumps(k, ensure_ascii=False)}:{js_literal(v)}" for k, v in value.items()) + "}"


def _shown(value: Any) -> str:
    """A value as Playwright Test's record writes an expected one (strings bare, lists in brackets)."""
    if isinstance(value, _Special):
        return value.name
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_literal(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    return "Object"


# Matchers that need no expected value: the JavaScript that says each holds of v.
_UNARY = {
    "toBeNull": "v === null",
    "toBeUndefined": "v === undefined",
    "toBeDefined": "v !== undefined",
    "toBeTruthy": "!!v",
    "toBeFalsy": "!v",
    "toBeNaN": "Number.isNaN(v)",
}
_ORDER = {"toBeGreaterThan": ">", "toBeGreaterThanOrEqual": ">=", "toBeLessThan": "<", "toBeLessThanOrEqual": "<="}
_NUMBER = re.compile(r"-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?", re.I)


def matcher_of(title: str) -> tuple[str, bool]:
    """(matcher, negated) from a poll step's title: ``Expect "poll not toEqual"`` -> ("toEqual", True)."""
    m = re.search(r"poll (not )?(\w+)", title)
    return (m.group(2), bool(m.group(1))) if m else ("", False)


def poll_check(expression: str, is_function: bool, last: Any, title: str, expected: str) -> tuple[str | None, str]:
    """(the ``js`` of the check or None, the assertion in words) for one poll: ``last`` is what the
    script returned the last time (Playwright's serialization), ``expected`` the record's words."""
    matcher, negated = matcher_of(title)
    words = f"expect.poll({_one_line(expression)}).{'not.' if negated else ''}{matcher}({expected})"
    if not expression or not matcher:
        return None, words
    condition = _condition(matcher, negated, plain_value(last), expected)
    if condition is None:
        return None, words
    call = f"({expression})()" if is_function else f"({expression})"
    body = f"{{ {_EQ} return {condition}; }}" if "eq(" in condition else condition
    return f"Promise.resolve({call}).then((v) => {body})", words


def _condition(matcher: str, negated: bool, value: Any, expected: str) -> str | None:
    if matcher in _UNARY:
        held = _UNARY[matcher]
        return f"!({held})" if negated else held
    if negated:
        return _negated(matcher, expected)
    if value is NO_VALUE:
        return None
    if matcher == "toBe":
        # Object.is: only a primitive passes toBe from a fresh evaluation.
        return None if isinstance(value, (list, dict)) else f"Object.is(v, {js_literal(value)})"
    if matcher in ("toEqual", "toStrictEqual"):
        return f"eq(v, {js_literal(value)}, {'true' if matcher == 'toStrictEqual' else 'false'})"
    if matcher == "toHaveLength" and isinstance(value, (list, str)):
        return f"v != null && v.length === {len(value)}"
    if matcher in _ORDER and _NUMBER.fullmatch(expected):
        return f"typeof v === 'number' && v {_ORDER[matcher]} {expected}"
    if matcher == "toContain":
        return _contains(value, expected)
    return None


def _contains(value: Any, expected: str) -> str | None:
    """toContain: a substring of a string, or an item (===) of a list, when the words name one
    item without doubt (an item shown as ``3`` could be 3 or '3': both there, it is not said)."""
    if isinstance(value, str):
        return f"typeof v === 'string' && v.includes({js_literal(expected)})" if expected in value else None
    if isinstance(value, list):
        items = {js_literal(v) for v in value if not isinstance(v, (list, dict)) and _shown(v) == expected}
        if len(items) == 1:
            return f"Array.isArray(v) && v.includes({items.pop()})"
    return None


def _negated(matcher: str, expected: str) -> str | None:
    """``not.toBe``/``not.toEqual`` of a value the words say without doubt: a string that cannot
    be read as a number, a boolean, null, undefined, a list or an object."""
    if matcher not in ("toBe", "toEqual", "toStrictEqual", "toContain"):
        return None
    ambiguous = (
        _NUMBER.fullmatch(expected)
        or expected in ("true", "false", "null", "undefined", "NaN", "Infinity", "-Infinity", "Object", "")
        or expected.startswith("[")
        or re.fullmatch(r"[A-Z]\w*", expected)  # a class's name: how the record shows an instance
    )
    if ambiguous:
        return None
    literal = js_literal(expected)
    if matcher == "toContain":
        return f"!((typeof v === 'string' || Array.isArray(v)) && v.includes({literal}))"
    return f"!Object.is(v, {literal})"


def _one_line(text: str) -> str:
    return " ".join(text.split())
