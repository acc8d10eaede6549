"""Reading a model's answer text: one JSON object out of whatever the server wrapped it in.

Servers that honour ``response_format`` send the bare object. Many local servers, and vision
models asked without a schema, wrap it: ```json fences, a sentence before or after, a
``<think>`` block. :func:`json_objects` yields every JSON object found in the text, the most
likely first; the caller validates each against the schema and keeps the first that fits.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.S)
_THINK = re.compile(r"<think>.*?</think>", re.S)


def json_objects(text: str) -> Iterator[dict[str, Any]]:
    """Every JSON object in ``text``: the whole text, then fenced blocks, then objects found by scanning."""
    seen: set[str] = set()
    for candidate in _candidates(text):
        blob = json.dumps(candidate, sort_keys=True)
        if blob not in seen:
            seen.add(blob)
            yield candidate


def _candidates(text: str) -> Iterator[dict[str, Any]]:
    whole = _loads(text.strip())
    if whole is not None:
        yield whole
    # A reasoning block may hold draft objects: look past it first.
    visible = _THINK.sub("", text)
    for block in _FENCE.findall(visible):
        found = _loads(block.strip())
        if found is not None:
            yield found
    yield from _scan(visible)
    if visible != text:
        yield from _scan(text)


def _loads(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _scan(text: str) -> Iterator[dict[str, Any]]:
    """Objects starting at each '{' (outermost first), decoded with the standard parser."""
    decoder = json.JSONDecoder()
    pos = text.find("{")
    while pos != -1:
        try:
            value, end = decoder.raw_decode(text, pos)
        except ValueError:
            pos = text.find("{", pos + 1)
            continue
        if isinstance(value, dict):
            yield value
            pos = text.find("{", end)
        else:
            pos = text.find("{", pos + 1)
