"""Selectors as sources write them, and locators as a person writes them in a workflow file.

Playwright records what a test's locator resolved to as a selector string in its own syntax
(``internal:role=button[name="Add"i]``, ``internal:label="Name"s``, ``#new-todo >> nth=1``);
Chrome's recorder writes Puppeteer's (``aria/Add[role="button"]``, ``xpath///li``,
``pierce/#id``, ``text/Add``). Both become Playwright selector strings here, and a Playwright
selector becomes the LOC mapping of the format (``{role: button, name: Add}``) when it is one a
person would write, else ``{selector: ...}``, which any Playwright selector is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

# internal:role=button[name="Add"i][checked=true]
_ROLE = re.compile(r"^internal:role=([\w-]+)((?:\[[^\]]*\])*)$")
_ATTR_FILTER = re.compile(r'\[([\w-]+)(?:=("(?:[^"\\]|\\.)*"|[^\]]*))?\]')
# internal:label="Name"i, internal:text="Add"s, internal:has-text="x"i
_QUOTED = re.compile(r'^"((?:[^"\\]|\\.)*)"([is]?)$')
# internal:attr=[placeholder="What needs to be done?"i], internal:testid=[data-testid="x"s]
_ATTR = re.compile(r'^\[([\w-]+)=("(?:[^"\\]|\\.)*")([is]?)\]$')
_ATTR_KINDS = {"placeholder": "placeholder", "alt": "alt", "title": "title"}


def split_parts(selector: str) -> list[str]:
    """The parts of a selector chain (``a >> b``), not splitting inside quotes or brackets."""
    parts, depth, quote, start, i = [], 0, "", 0, 0
    while i < len(selector):
        ch = selector[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        elif depth == 0 and selector.startswith(" >> ", i):
            parts.append(selector[start:i])
            start = i + 4
            i += 3
        i += 1
    parts.append(selector[start:])
    return [p.strip() for p in parts if p.strip()]


def _unquote(text: str) -> str:
    try:
        return str(json.loads(text))
    except ValueError:
        return text.strip('"')


def _quoted(body: str) -> tuple[str, bool] | None:
    m = _QUOTED.match(body)
    return (_unquote(f'"{m.group(1)}"'), m.group(2) == "s") if m else None


def _part_loc(part: str) -> dict[str, Any] | None:
    """One part of a chain as a LOC mapping; None when it is no kind a person writes."""
    engine, _, body = part.partition("=")
    if engine == "internal:role":
        return _role_loc(part)
    if engine in ("internal:label", "internal:text"):
        got = _quoted(body)
        if got is None:
            return None
        kind = "label" if engine == "internal:label" else "text"
        return {kind: got[0], **({"exact": True} if got[1] else {})}
    if engine in ("internal:attr", "internal:testid"):
        m = _ATTR.match(body)
        if not m:
            return None
        attr, value, flag = m.group(1), _unquote(m.group(2)), m.group(3)
        if engine == "internal:testid":
            return {"test_id": value}
        if attr in _ATTR_KINDS:
            return {_ATTR_KINDS[attr]: value, **({"exact": True} if flag == "s" else {})}
        return None
    return None


def _role_loc(part: str) -> dict[str, Any] | None:
    m = _ROLE.match(part)
    if not m:
        return None
    loc: dict[str, Any] = {"role": m.group(1)}
    for name, value in _ATTR_FILTER.findall(m.group(2)):
        if name == "name" and value.startswith('"'):
            loc["name"] = _unquote(value[: value.rindex('"') + 1])
            if value.endswith('"s'):
                loc["exact"] = True
        elif name != "include-hidden":
            return None  # checked=, level=, pressed=: no such refinement in the format
    return loc


def or_chain(loc: dict[str, Any], selectors: Sequence[str]) -> dict[str, Any]:
    """``loc`` with ``selectors`` beside it, in their order (``or``: the elements any of them finds,
    Playwright's ``locator.or``); a plain selector is written as a string."""
    chain: dict[str, Any] | str | None = None
    for selector in reversed(selectors):
        alternative = to_loc(selector)
        if chain is not None:
            chain = {**alternative, "or": chain}
        else:
            chain = alternative["selector"] if list(alternative) == ["selector"] else alternative
    return loc if chain is None else {**loc, "or": chain}


def to_loc(selector: str) -> dict[str, Any]:
    """The LOC mapping a person would write for a Playwright selector: a kind (``role``,
    ``label``, ``placeholder``, ``text``, ``test_id``...) refined by ``nth``, ``has_text``,
    ``within`` and ``frame``; ``{selector: ...}`` for what has no such form (CSS, XPath)."""
    parts = split_parts(selector)
    loc: dict[str, Any] | None = None
    plain: list[str] = []  # a run of parts with no person's form: one selector
    for part in parts:
        if part.startswith("nth=") and (loc is not None or plain):
            if plain:
                loc, plain = _within(loc, {"selector": " >> ".join(plain)}), []
            assert loc is not None
            loc = {**loc, "nth": int(part[4:])}
            continue
        if part.startswith("internal:has-text=") and loc is not None and not plain:
            got = _quoted(part.partition("=")[2])
            if got is not None and "has_text" not in loc:
                loc = {**loc, "has_text": got[0]}
                continue
        if part == "internal:control=enter-frame":
            frame = {"selector": " >> ".join(plain)} if plain else loc
            if frame is None:
                return {"selector": selector}
            loc, plain = None, []
            loc = {"frame": frame, "__pending": True}
            continue
        found = _part_loc(part)
        if found is None:
            plain.append(part)
            continue
        if plain:
            loc, plain = _within(loc, {"selector": " >> ".join(plain)}), []
        loc = _within(loc, found)
    if plain:
        loc = _within(loc, {"selector": " >> ".join(plain)})
    if loc is None or loc.get("__pending"):
        return {"selector": selector}
    return loc


def _within(outer: dict[str, Any] | None, inner: dict[str, Any]) -> dict[str, Any]:
    """``inner`` looked for inside ``outer`` (a chain ``outer >> inner``)."""
    if outer is None:
        return inner
    if outer.get("__pending"):  # the first part inside a frame
        return {**inner, "frame": outer["frame"]}
    frame = outer.pop("frame", None)
    loc = {**inner, "within": outer}
    if frame is not None:
        loc["frame"] = frame
    return loc


def is_person_form(loc: dict[str, Any]) -> bool:
    """Whether a LOC is one a person writes (role, label, placeholder, text, test id...), inside
    one too, not a CSS or XPath selector copied from the page's structure."""
    if "selector" in loc or "css" in loc or "xpath" in loc:
        return False
    return all(is_person_form(loc[k]) for k in ("within", "frame") if isinstance(loc.get(k), dict))


# Chrome DevTools Recorder: Puppeteer's selector prefixes.
_ARIA_ROLE = re.compile(r'^(.*?)\[role="([\w-]+)"\]$')


def from_puppeteer(selector: str | list[str], *, field: bool = False) -> str | None:
    """A Playwright selector for one selector of a Chrome recording (a list is a chain through
    shadow roots, which Playwright's CSS pierces anyway); None when there is no equivalent."""
    if isinstance(selector, list):
        parts = [from_puppeteer(s, field=field) for s in selector]
        return None if any(p is None for p in parts) else " >> ".join(p for p in parts if p)
    if selector.startswith("aria/"):
        name = selector[5:]
        m = _ARIA_ROLE.match(name)
        if m:
            return f"internal:role={m.group(2)}[name={json.dumps(m.group(1))}s]"
        # A name with no role: a field is found by its label, anything else by its text.
        kind = "internal:label" if field else "internal:text"
        return f"{kind}={json.dumps(name)}s"
    if selector.startswith("xpath/"):
        return f"xpath={selector[6:]}"
    if selector.startswith("pierce/"):
        return from_puppeteer(selector[7:])  # Playwright's CSS pierces open shadow roots already
    if selector.startswith("text/"):
        return f"internal:text={json.dumps(selector[5:])}"
    if selector.startswith(("::-p-", ">>>")):
        return None  # Puppeteer's own pseudo-elements and deep combinators
    if selector.startswith(("css=", "xpath=", "text=")):
        return selector
    # Plain CSS reads as Playwright's default engine, unless it could be taken for XPath or text.
    return f"css={selector}" if selector.startswith(("/", "(", "..", '"', "'")) else selector
