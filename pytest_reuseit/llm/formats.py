"""How the answer's shape is asked for, and which way each endpoint accepts.

OpenAI and most servers take ``response_format: json_schema``. Some take only ``json_object``
(the schema must then be in the prompt), some refuse ``response_format`` altogether. The first
refusal moves that endpoint one step down the chain ``json_schema`` → ``json_object`` →
``prompt`` for the rest of the process, so a session pays for the discovery once.
"""

from __future__ import annotations

import json
import threading
from typing import Any

CHAIN = ("json_schema", "json_object", "prompt")

_current: dict[str, str] = {}
_lock = threading.Lock()

#: The sentence that names the schema in the prompt (test doubles find the schema's name by it).
SCHEMA_SENTENCE = 'Answer with one JSON object only, no other text, that fits the JSON schema named "{name}": {schema}'


def current(endpoint: str) -> str:
    with _lock:
        return _current.get(endpoint, CHAIN[0])


def downgrade(endpoint: str, refused: str) -> None:
    """The endpoint refused ``refused``: use the next format (never climbs back within the process)."""
    with _lock:
        now = _current.get(endpoint, CHAIN[0])
        if CHAIN.index(now) <= CHAIN.index(refused) < len(CHAIN) - 1:
            _current[endpoint] = CHAIN[CHAIN.index(refused) + 1]


def forget() -> None:
    """Start over (tests)."""
    with _lock:
        _current.clear()


def response_format(fmt: str, name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments that ask for ``fmt``."""
    if fmt == "json_schema":
        return {
            "response_format": {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}
        }
    if fmt == "json_object":
        return {"response_format": {"type": "json_object"}}
    return {}


def with_schema_in_prompt(messages: list[dict[str, Any]], name: str, schema: dict[str, Any]) -> list[dict[str, Any]]:
    """``messages`` with the schema written into the system message (added first when there is none)."""
    sentence = SCHEMA_SENTENCE.format(name=name, schema=json.dumps(schema, separators=(",", ":")))
    out = [dict(m) for m in messages]
    if out and out[0].get("role") == "system" and isinstance(out[0].get("content"), str):
        out[0]["content"] = f"{out[0]['content']}\n\n{sentence}"
    else:
        out.insert(0, {"role": "system", "content": sentence})
    return out
