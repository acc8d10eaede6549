"""The one writer of workflow files: import, synthesis, heal, guide and promote all write here.

What a producer puts in a file comes from places nobody here controls (a recording, a page, a
model's answer), and the file is then read by the runner, which gives some characters a meaning.
So every file is written by the same rules:

- **text stays text**: a literal (what a source typed, named or selected) is written with its
  braces doubled (:func:`literal`), so ``{env.HOME}`` typed in a recording is typed as those
  characters, never this machine's home folder;
- **a comment is one line** whatever its text holds: every character YAML or ``str.splitlines``
  ends a line at (CR, NEL, U+2028, U+2029, VT, FF, the file/group/record separators), and every
  character YAML does not allow in a stream, is written as its escape (``\\u2028``); otherwise
  what follows it in the comment would be read as steps;
- **a secret's value is written nowhere**: wherever it would appear (a check's expected value, a
  URL, a text, a comment) it is written ``{secret.NAME}``; a text that still holds it is refused;
- **what is written is what was meant**: the text is read back by the project's own reader and
  loader, and a file whose data differs from the document given, or that does not validate, is
  refused (:class:`WorkflowWriteError`) instead of written.
"""

from __future__ import annotations

import io
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedBase
from ruamel.yaml.tokens import CommentToken

from ..atomic import write_text_atomic
from ..errors import WorkflowFormatError
from .loader import LoadedWorkflow, parse
from .yaml_reader import read_yaml

# Every character a line ends at, for YAML (CR, NEL, LS, PS) or for str.splitlines (also VT, FF
# and the file, group and record separators); "\n" itself separates a comment's own lines.
LINE_BREAKS = frozenset("\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")


class WorkflowWriteError(WorkflowFormatError):
    """A workflow that would not be written as meant; ``problems`` says why, nothing is written."""


def literal(text: str) -> str:
    """``text`` as a literal of the format: its braces doubled, so no placeholder is read in it."""
    return text.replace("{", "{{").replace("}", "}}")


def _printable(ch: str) -> bool:
    """Whether YAML allows ``ch`` in a stream as it is (its c-printable set, tab and newline)."""
    o = ord(ch)
    return (
        ch in "\t\n" or 0x20 <= o <= 0x7E or 0xA0 <= o <= 0xD7FF or 0xE000 <= o <= 0xFFFD or 0x10000 <= o <= 0x10FFFF
    ) and o != 0xFEFF


def _escaped(ch: str) -> str:
    o = ord(ch)
    return f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}"


def one_line(text: str) -> str:
    """``text`` as one comment line: every line break (``\\n`` too) and every character YAML does
    not allow written as its escape."""
    return "".join(_escaped(c) if c == "\n" or c in LINE_BREAKS or not _printable(c) else c for c in text)


def _comment_lines(text: str) -> str:
    """A comment token's text with its own ``\\n`` kept and every other break escaped."""
    return "".join(_escaped(c) if c in LINE_BREAKS or not _printable(c) else c for c in text)


def _forms(value: str) -> list[str]:
    """How a secret's value can stand in a file: as a literal, as it is, URL-encoded."""
    return list(dict.fromkeys(f for f in (literal(value), value, quote(value, safe=""), quote_plus(value)) if f))


def _hidden(text: str, secrets: Mapping[str, str]) -> str:
    """``text`` with each secret's value, in each of its forms, written ``{secret.NAME}`` (longest first)."""
    for name, value in sorted(secrets.items(), key=lambda kv: -len(kv[1])):
        for form in _forms(value) if value else ():
            text = text.replace(form, f"{{secret.{name}}}")
    return text


def _comments_of(node: CommentedBase) -> list[CommentToken]:
    """Every comment token attached to ``node`` itself (before it, after a key, at its end)."""
    out: list[CommentToken] = []

    def collect(value: Any) -> None:
        if isinstance(value, CommentToken):
            out.append(value)
        elif isinstance(value, (list, tuple)):
            for v in value:
                collect(v)

    ca = node.ca
    collect(ca.comment)
    collect(ca.end)
    for value in ca.items.values():
        collect(value)
    return out


def _prepare(value: Any, secrets: Mapping[str, str]) -> Any:
    """The document's strings with secrets written as placeholders, and its comments one line
    each (in place for the round-trip collections, so their comments and styles stay)."""
    if isinstance(value, CommentedBase):
        for token in _comments_of(value):
            token.value = _comment_lines(_hidden(token.value, secrets))
    if isinstance(value, dict):
        for key in list(value):
            value[key] = _prepare(value[key], secrets)
        return value
    if isinstance(value, list):
        for i, item in enumerate(value):
            value[i] = _prepare(item, secrets)
        return value
    if isinstance(value, tuple):
        return [_prepare(v, secrets) for v in value]
    if isinstance(value, str) and secrets:
        hidden = _hidden(value, secrets)
        if hidden != value:
            try:
                return type(value)(hidden)  # a quoted scalar stays quoted
            except TypeError:
                return hidden
    return value


def _plain(value: Any) -> Any:
    """The document as plain data, as a YAML reader gives it back."""
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, str):
        return str(value)
    return value


def _same(read: Any, meant: Any) -> bool:
    """Whether what was read back has the shape and the texts meant: the same keys in the same
    order, the same items, the same strings. A scalar that is no string on one side is not
    compared: YAML 1.1 (the runner's reader) and 1.2 (ruamel, which keeps a hand-written
    ``yes`` as it was) disagree on a few plain words, which is no change of steps."""
    if isinstance(meant, dict) or isinstance(read, dict):
        if not (isinstance(meant, dict) and isinstance(read, dict)) or len(read) != len(meant):
            return False
        return all(
            (rk == mk or not (isinstance(rk, str) and isinstance(mk, str))) and _same(rv, mv)
            for (rk, rv), (mk, mv) in zip(read.items(), meant.items(), strict=True)
        )
    if isinstance(meant, list) or isinstance(read, list):
        if not (isinstance(meant, list) and isinstance(read, list)) or len(read) != len(meant):
            return False
        return all(_same(r, m) for r, m in zip(read, meant, strict=True))
    if isinstance(meant, str) and isinstance(read, str):
        return read == meant
    return True


def default_yaml() -> YAML:
    """How a new file is laid out: two-space mappings, list items indented, long lines kept."""
    yaml = YAML()
    yaml.width = 120
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


@dataclass(frozen=True)
class Written:
    """A workflow's text, checked: what it loads as."""

    text: str
    loaded: LoadedWorkflow


def render(
    doc: Any,
    path: str,
    *,
    secrets: Mapping[str, str] | None = None,
    yaml: YAML | None = None,
    folder: str | None = None,
    builtin_names: Collection[str] = (),
    newline: str = "\n",
) -> Written:
    """``doc`` (a round-trip document, comments and all) as the text of a workflow file, by the
    rules above; :class:`WorkflowWriteError` when that text would not be what ``doc`` means.
    ``secrets`` maps each secret's NAME to its value (the value is only looked for)."""
    secrets = {k: v for k, v in (secrets or {}).items() if v}
    doc = _prepare(doc, secrets)
    buf = io.StringIO()
    (yaml or default_yaml()).dump(doc, buf)
    text = buf.getvalue()
    if newline != "\n":
        text = text.replace("\n", newline)
    return Written(text, check(text, doc, path, secrets=secrets, folder=folder, builtin_names=builtin_names))


def check(
    text: str,
    meant: Any,
    path: str,
    *,
    secrets: Mapping[str, str] | None = None,
    folder: str | None = None,
    builtin_names: Collection[str] = (),
) -> LoadedWorkflow:
    """What ``text`` loads as, if it holds no secret's value and reads back as ``meant``."""
    problems = [
        f"{path}: the text would hold the value of the secret {name} (written {{secret.{name}}} instead)"
        for name, value in (secrets or {}).items()
        if value and any(form in text for form in _forms(value))
    ]
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        problems.append(f"{path}: the text holds {exc.object[exc.start : exc.end]!r}, which no file can hold")
    if problems:
        raise WorkflowWriteError(path, problems)
    _, data = read_yaml(text, path)
    if not _same(data, _plain(meant)):
        raise WorkflowWriteError(path, [f"{path}: the text written reads back as other steps than were meant"])
    return parse(text, path, folder, builtin_names=builtin_names)


def write(path: str | Path, written: Written) -> None:
    """Write a checked text in one step (a reader sees the old file or the new one)."""
    write_text_atomic(path, written.text)
