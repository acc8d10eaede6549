"""Values a source reads at run time, carried through the import as marks, written as placeholders.

A Selenium IDE test stores what it reads from the page (``storeText``) or the environment
(``${env:NAME}``) and uses it later in a target or a value. In the workflow that is ``{name}``
(an ``extract``) or ``{env.NAME}``; everything else a source wrote is text, written with its braces
doubled (``workflow.writer.literal``). Between the reader and the writer a reference travels as a
mark no source can hold (private-use characters around a token drawn at random for this process),
through the same code as any text (locators, typed values, checks), and becomes the placeholder
only in the document written (:func:`placeholders_in`). A source that holds the same characters
cannot forge one: it does not know the token.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

_TOKEN = secrets.token_hex(6)
_OPEN, _CLOSE = "\ue000", "\ue001"
_MARK = re.compile(re.escape(_OPEN + _TOKEN + ":") + r"([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?)" + _CLOSE)


def ref(name: str) -> str:
    """A mark for ``{name}`` (``name`` or ``env.NAME``: names the format's placeholders take)."""
    return f"{_OPEN}{_TOKEN}:{name}{_CLOSE}"


def holds_ref(text: str) -> bool:
    return _OPEN in text and _MARK.search(text) is not None


def refs_in(text: str) -> list[str]:
    return _MARK.findall(text) if _OPEN in text else []


def only_ref(text: str) -> str | None:
    """The name when ``text`` is one mark and nothing else."""
    m = _MARK.fullmatch(text)
    return m.group(1) if m else None


def as_placeholders(text: str) -> str:
    """``text`` (already written as a literal) with each mark as its ``{placeholder}``."""
    return _MARK.sub(r"{\1}", text) if _OPEN in text else text


def as_source(text: str) -> str:
    """``text`` with each mark as the source wrote it (``${name}``), for a comment or the words."""
    return _MARK.sub(lambda m: "${" + m.group(1).replace("env.", "env:", 1) + "}", text) if _OPEN in text else text


def placeholders_in(value: Any) -> Any:
    """Every string of a document (a round-trip one: its mappings and lists changed in place, so
    their comments and styles stay) with its marks as placeholders."""
    if isinstance(value, dict):
        for key in list(value):
            value[key] = placeholders_in(value[key])
        return value
    if isinstance(value, list):
        for i, item in enumerate(value):
            value[i] = placeholders_in(item)
        return value
    if isinstance(value, str) and _OPEN in value:
        done = as_placeholders(value)
        try:
            return type(value)(done)  # a quoted scalar stays quoted
        except TypeError:
            return done
    return value
