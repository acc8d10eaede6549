"""How much of a source the import reads, checked before it is read (docs/import.md, "Limits").

A source comes from anywhere: a trace from a CI artifact, a recording from a colleague's mail.
Each limit is far above what Playwright or the Chrome Recorder writes for one test, and low
enough that no input makes the import use more than about 600 MB or 30 s: a zip is judged from
its directory (the member count at its end, each member's size) before a member is opened; a
file from its size before it is read; JSON from its nesting before it is parsed. Past a limit
the input is refused with one line naming it and the limit.
"""

from __future__ import annotations

import json
import os
import re
import struct
import zipfile
from pathlib import Path
from typing import Any

from ..workflow.yaml_reader import MAX_FILE_BYTES
from .demo import Demonstration, UnreadableInput

MB = 1024 * 1024
# A Chrome DevTools recording or a codegen file: a few kilobytes per test.
MAX_RECORDING_BYTES = 10 * MB
# A trace: the members listed in its directory, each event file (*.trace, *.network) as
# uncompressed, and all of them together; the page resources (CSS, images) a snapshot shows.
MAX_TRACE_MEMBERS = 20_000
MAX_TRACE_DIRECTORY_BYTES = 8 * MB
MAX_EVENTS_BYTES = 64 * MB
MAX_ALL_EVENTS_BYTES = 128 * MB
MAX_RESOURCE_BYTES = 16 * MB
MAX_ALL_RESOURCES_BYTES = 64 * MB
# JSON nesting (a DOM snapshot nests one level per element), steps of one test, selectors of one step.
MAX_JSON_DEPTH = 256
MAX_STEPS = 500
MAX_SELECTORS = 32
# One text of a step (a value typed, a selector, a check's expected text): a workflow file is at
# most 256 KiB, and each text is matched against the others while the file is written.
MAX_TEXT_CHARS = 4_096
# How much of a file in a folder is looked at to tell whether it is a source.
PEEK_BYTES = 64 * 1024


def _size(n: int) -> str:
    """A size as a line says it: whole megabytes as such, other sizes to the byte."""
    return f"{n // MB} MB" if n >= MB and n % MB == 0 else f"{n / MB:.0f} MB" if n >= 100 * MB else f"{n:,} bytes"


def read_bytes(path: Path, limit: int = MAX_RECORDING_BYTES) -> bytes:
    """The file's bytes, if it is a readable file no larger than ``limit``."""
    try:
        if not path.is_file():
            raise UnreadableInput(f"{path}: not a file")
        size = path.stat().st_size
        if size > limit:
            raise UnreadableInput(f"{path}: {_size(size)}, over the limit of {_size(limit)} for a recording")
        with path.open("rb") as f:
            data = f.read(limit + 1)
    except OSError as exc:
        raise UnreadableInput(f"{path}: cannot read it ({exc.strerror or exc.__class__.__name__})") from None
    if len(data) > limit:  # it grew while being read
        raise UnreadableInput(f"{path}: over the limit of {_size(limit)} for a recording")
    return data


def read_text(path: Path, limit: int = MAX_RECORDING_BYTES) -> str:
    try:
        return read_bytes(path, limit).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableInput(f"{path}: not UTF-8 text (byte {exc.start}): not a recording") from None


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def depth(text: str) -> int:
    """How deep JSON ``text`` nests (strings skipped), without parsing it."""
    deepest = level = 0
    for c in _NOT_BRACKET.sub("", _STRING.sub("", text)):
        level += 1 if c in "[{" else -1
        deepest = max(deepest, level)
    return deepest


def loads(text: str, where: str) -> Any:
    """``json.loads``, after checking the nesting is within :data:`MAX_JSON_DEPTH`."""
    if text.count("[") + text.count("{") > MAX_JSON_DEPTH and depth(text) > MAX_JSON_DEPTH:
        raise UnreadableInput(f"{where}: JSON nested deeper than {MAX_JSON_DEPTH} levels, the limit")
    return json.loads(text)


def peek(path: Path) -> str:
    """The start of a file (at most :data:`PEEK_BYTES`), as text; empty if it cannot be read."""
    try:
        with path.open("rb") as f:
            return f.read(PEEK_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""


def _entries_at_the_end(path: Path) -> tuple[int, int] | None:
    """The member count and the directory's size a zip states in its last record, read from its
    last 64 KB (before zipfile builds a list of every member); None without one."""
    try:
        with path.open("rb") as f:
            f.seek(0, os.SEEK_END)
            end = f.tell()
            f.seek(max(0, end - (65535 + 22)))
            tail = f.read()
    except OSError:
        return None
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < 22:
        return None
    _, _, _, _, total, directory, _, _ = struct.unpack("<4s4H2LH", tail[at : at + 22])
    return total, directory


def check_zip_directory(path: Path) -> None:
    """Refuse a zip whose directory states more members, or a larger directory, than a trace has."""
    stated = _entries_at_the_end(path)
    if stated is None:
        return  # no end record: zipfile says it is no zip
    total, directory = stated
    if total >= 0xFFFF or total > MAX_TRACE_MEMBERS:
        raise UnreadableInput(f"{path}: a zip of {total} or more members, over the limit of {MAX_TRACE_MEMBERS}")
    if directory > MAX_TRACE_DIRECTORY_BYTES:
        raise UnreadableInput(
            f"{path}: a zip directory of {_size(directory)}, over the limit of {_size(MAX_TRACE_DIRECTORY_BYTES)}"
        )


def check_trace_members(path: Path, z: zipfile.ZipFile, events: list[str]) -> None:
    """Refuse a trace whose event files are, as its directory says, larger than any test's."""
    if len(z.infolist()) > MAX_TRACE_MEMBERS:
        raise UnreadableInput(f"{path}: a zip of {len(z.infolist())} members, over the limit of {MAX_TRACE_MEMBERS}")
    total = 0
    for name in events:
        size = z.getinfo(name).file_size
        total += size
        if size > MAX_EVENTS_BYTES:
            raise UnreadableInput(
                f"{path}: its member {name} is {_size(size)} uncompressed, over the limit of {_size(MAX_EVENTS_BYTES)}"
            )
    if total > MAX_ALL_EVENTS_BYTES:
        raise UnreadableInput(
            f"{path}: its event files are {_size(total)} uncompressed, over the limit of {_size(MAX_ALL_EVENTS_BYTES)}"
        )


def read_member(z: zipfile.ZipFile, name: str, limit: int) -> bytes | None:
    """A member's bytes, or None when its directory entry says it is larger than ``limit``."""
    info = z.getinfo(name)
    if info.file_size > limit:
        return None
    with z.open(info) as f:
        data = f.read(limit + 1)
    return data if len(data) <= limit else None


def check_demonstration(path: Path, demo: Demonstration) -> None:
    """Refuse a test of more steps, or a step of more selectors, than the limits."""
    if len(demo.steps) > MAX_STEPS:
        raise UnreadableInput(f"{path}: {len(demo.steps)} steps, over the limit of {MAX_STEPS} for one test")
    total = 0
    for n, step in enumerate(demo.steps, 1):
        if step.target is not None and len(step.target.selectors) > MAX_SELECTORS:
            raise UnreadableInput(
                f"{path}: step {n} has {len(step.target.selectors)} selectors, over the limit of {MAX_SELECTORS}"
            )
        texts = [step.value, *(step.target.selectors if step.target else []), *_strings(step.checks)]
        longest = max(map(len, texts), default=0)
        if longest > MAX_TEXT_CHARS:
            raise UnreadableInput(
                f"{path}: step {n} holds a text of {longest} characters, over the limit of {MAX_TEXT_CHARS}"
            )
        total += sum(map(len, texts))
        if total > MAX_FILE_BYTES:  # each text is written at least once
            raise UnreadableInput(
                f"{path}: its steps hold more text than a workflow file may ({MAX_FILE_BYTES // 1024} KiB, the limit)"
            )


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _strings(v)]
    return []


def check_count(path: Path, items: Any, limit: int, what: str) -> None:
    """Refuse a list (of steps, of selectors) longer than ``limit`` before it is read item by item."""
    if isinstance(items, list) and len(items) > limit:
        raise UnreadableInput(f"{path}: {len(items)} {what}, over the limit of {limit}")
