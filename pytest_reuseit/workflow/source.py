"""Where a loaded workflow came from (:class:`Source`: the file and the line of every node),
and pydantic's validation errors turned into one readable line per place:
``file:line: path: message``."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

_TYPE_WORDS = {
    "valid tuple": "list",
    "valid list": "list",
    "valid dictionary or instance of": "mapping of",
    "valid dictionary": "mapping",
    "Tuple should have": "List should have",
}


@dataclass(frozen=True)
class Source:
    """Where a loaded workflow came from: the file and the line of every node by document path."""

    path: str
    lines: dict[tuple[str | int, ...], int] = field(default_factory=dict, hash=False, compare=False)
    # The text's fingerprint when it was loaded: an edit proposed by a run of this text is refused
    # once the file reads otherwise (``reuseit heal``).
    digest: str = field(default="", compare=False)

    def line(self, *doc_path: str | int) -> int:
        """Line of the deepest known node on ``doc_path`` (1-based)."""
        for cut in range(len(doc_path), -1, -1):
            if doc_path[:cut] in self.lines:
                return self.lines[doc_path[:cut]]
        return 1

    def where(self, *doc_path: str | int) -> str:
        return f"{self.path}:{self.line(*doc_path)}"


def digest_of(text: str) -> str:
    """The fingerprint :attr:`Source.digest` holds: enough to tell two versions of a file apart."""
    return hashlib.sha256(text.replace("\r\n", "\n").encode("utf-8")).hexdigest()[:16]


def format_path(doc_path: tuple[str | int, ...]) -> str:
    out = ""
    for part in doc_path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _doc_path(loc: tuple[Any, ...], data: Any) -> tuple[str | int, ...]:
    """Keep only the parts of a pydantic ``loc`` that exist in the document (drop union tags)."""
    path: list[str | int] = []
    cur = data
    for part in loc:
        if (
            isinstance(cur, dict)
            and part in cur
            or isinstance(cur, list)
            and isinstance(part, int)
            and 0 <= part < len(cur)
        ):
            path.append(part)
            cur = cur[part]
    return tuple(path)


def _message(err: ErrorDetails) -> str:
    msg = str(err["msg"])
    for old, new in _TYPE_WORDS.items():
        msg = msg.replace(old, new)
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    if err["type"] == "missing":
        return "required key is missing"
    return msg[0].lower() + msg[1:] if msg else msg


def validation_problems(exc: ValidationError, data: Any, source: Source) -> list[str]:
    """One readable line per distinct place, ``file:line: path: message``."""
    found: list[tuple[tuple[str | int, ...], str, str]] = []
    for err in exc.errors():
        loc = tuple(err["loc"])
        path = _doc_path(loc, data)
        if err["type"] == "missing":
            path = path + (loc[-1],) if loc and loc[-1] not in path else path
        if err["type"] == "unknown_key":
            path = path + (err["ctx"]["key"],)
        found.append((path, str(err["type"]), _message(err)))

    def is_noise(path: tuple[str | int, ...], kind: str) -> bool:
        """A union reports every alternative it tried ("should be a string" beside the real problem
        inside the mapping form), and pydantic calls a list too short after dropping a bad item:
        both are noise when a real (non-type) error is listed at the same place or deeper."""
        if not (kind.endswith("_type") or kind == "too_short"):
            return False
        deeper = any(p != path and p[: len(path)] == path and not t.endswith("_type") for p, t, _ in found)
        beside = any(p == path and not t.endswith("_type") and t != "too_short" for p, t, _ in found)
        return (
            deeper or beside or (kind == "too_short" and any(p != path and p[: len(path)] == path for p, _, _ in found))
        )

    by_place: dict[tuple[str | int, ...], list[str]] = {}
    for path, kind, msg in found:
        if is_noise(path, kind):
            continue
        bucket = by_place.setdefault(path, [])
        if msg not in bucket:
            bucket.append(msg)
    lines = []
    for path, msgs in by_place.items():
        text = msgs[0] if len(msgs) == 1 else "expected one of the accepted forms: " + " | ".join(msgs)
        lines.append(f"{source.where(*path)}: {format_path(path)}: {text}")
    return lines
