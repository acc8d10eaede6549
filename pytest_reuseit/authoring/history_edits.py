"""``reuseit heal`` for the edits the history proves: a renamed element's new name, a fallback that
dismisses a dialog new since the last pass (engine/proven.py decides them; no model involved).

A failing run writes them into ``healing.json`` beside the locators self-healing found, marked
``origin: history``, with the lines of the page that left and appeared and when the run last
passed. Here they are grouped by cause (one renamed button used by ten files is one cause and ten
hunks), checked against the file as it is now and applied with the comment-keeping editor:

- an edit whose file reads otherwise than when the run loaded it is refused with one line (it
  was proven for that text), unless the file already says what the edit would write;
- the same edit from several runs of a file (its variations) counts once; runs that disagree
  about one op leave it alone;
- a check is never edited: what it expects is what the site must do. A failing check the history
  explains is listed as the possible regression, for a person to judge.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..workflow.source import digest_of
from .yamledit import WorkflowDoc, YamlEditError

KINDS = ("locator", "fallback", "check")


@dataclass
class HistoryEdit:
    """One edit as a run proposed it (``healing.json``, ``origin: history``)."""

    file: str
    kind: str
    step: int  # 1-based
    line: int
    summary: str
    cause: str
    op_index: int = -1
    old: Any = None
    new: Any = None
    digest: str = ""
    since: str = ""
    removed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    tests: list[str] = field(default_factory=list)
    path: Path = Path()  # where the file is found from here

    @classmethod
    def from_entry(cls, entry: dict[str, Any]) -> HistoryEdit:
        """Raises KeyError, TypeError or ValueError for an entry that is not one."""
        kind = str(entry["kind"])
        if kind not in KINDS:
            raise ValueError(f"unknown kind {kind!r}")
        return cls(
            file=str(entry["file"]),
            kind=kind,
            step=int(entry["step"]),
            line=int(entry.get("line") or 0),
            summary=str(entry.get("summary") or ""),
            cause=str(entry.get("cause") or ""),
            op_index=int(entry.get("op_index", -1)),
            old=entry.get("old"),
            new=entry.get("new"),
            digest=str(entry.get("digest") or ""),
            since=str(entry.get("since") or ""),
            removed=[str(x) for x in entry.get("removed") or []],
            added=[str(x) for x in entry.get("added") or []],
            tests=[str(entry["test"])] if entry.get("test") else [],
        )

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file

    @property
    def target(self) -> tuple[str, int, str, int]:
        """What the edit changes: two edits with one target and different words disagree."""
        return str(self.path.resolve()), self.step, self.kind, self.op_index


@dataclass
class Cause:
    """Every edit that answers one change of the site, one per file."""

    key: str
    summary: str
    kind: str
    since: str
    removed: list[str]
    added: list[str]
    edits: list[HistoryEdit] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def files(self) -> int:
        return len({e.target[0] for e in self.edits})


def group(edits: list[HistoryEdit]) -> list[Cause]:
    """Merge the same edit proposed by several runs, set disagreements aside, group by cause.

    The causes that change files come first (the most files first), the possible regressions last."""
    by_target: dict[tuple[str, int, str, int], list[HistoryEdit]] = {}
    for edit in edits:
        by_target.setdefault(edit.target, []).append(edit)
    causes: dict[str, Cause] = {}
    for same in by_target.values():
        first = same[0]
        cause = causes.get(first.cause)
        if cause is None:
            cause = causes[first.cause] = Cause(
                first.cause, first.summary, first.kind, first.since, first.removed, first.added
            )
        distinct = {repr(e.new) for e in same}
        if len(distinct) > 1 and first.kind != "check":
            runs = ", ".join(t for e in same for t in e.tests) or "several runs"
            cause.notes.append(
                f"{first.where}: step {first.step}: skipped, the runs disagree ({runs}): "
                + "; ".join(sorted({e.summary for e in same}))
            )
            continue
        merged = HistoryEdit(**{**first.__dict__, "tests": [t for e in same for t in e.tests]})
        cause.edits.append(merged)
    for cause in causes.values():
        cause.edits.sort(key=lambda e: (e.file, e.step))
    return sorted(causes.values(), key=lambda c: (c.kind == "check", -c.files, c.summary))


def apply(doc: WorkflowDoc, edit: HistoryEdit) -> str:
    """Make ``edit`` in ``doc``; return what changed in one line, or "" when the file already
    says it. Raises YamlEditError when it cannot be made (the file changed since the run)."""
    if edit.kind == "check":
        raise YamlEditError(edit.file, [f"{edit.where}: a check is never changed by heal"])
    if _already(doc, edit):
        return ""
    if not fresh(edit, doc.original):
        raise YamlEditError(
            edit.file,
            [
                f"{edit.where}: refused: the file changed since the run that proposed this edit"
                + (f" ({edit.since[:10]})" if edit.since else "")
                + "; run the workflows again for a new proposal"
            ],
        )
    i = edit.step - 1
    if edit.kind == "locator":
        _, name = doc.op(i, edit.op_index)
        doc.set_locator(i, edit.op_index, dict(edit.old), dict(edit.new))
        line = doc.line_of_op(i, edit.op_index)
        return f"step {edit.step} op {edit.op_index + 1} (line {line}): {name} {_short(edit.old)} -> {_short(edit.new)}"
    doc.insert_fallback(i, dict(edit.new), f"dismisses {edit.summary.split(',')[0]}, {_day(edit.since)} (reuseit heal)")
    return f"step {edit.step}: first fallback {_short(edit.new)}"


def _already(doc: WorkflowDoc, edit: HistoryEdit) -> bool:
    """Whether the file says what the edit would write (an earlier --apply wrote it)."""
    i = edit.step - 1
    try:
        if edit.kind == "locator":
            op, name = doc.op(i, edit.op_index)
            arg = op[name]
            return isinstance(arg, dict) and all(arg.get(k) == v for k, v in dict(edit.new).items())
        return any(_plain(fb) == edit.new for fb in doc.step(i).get("fallback") or [])
    except YamlEditError:
        return False


def fresh(edit: HistoryEdit, text: str) -> bool:
    """Whether the file reads as it did when the run that proposed ``edit`` loaded it."""
    return not edit.digest or digest_of(text) == edit.digest


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _short(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_short(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_short(v) for v in value) + "]"
    return "true" if value is True else "false" if value is False else str(value)


def _day(since: str) -> str:
    """When the dialog was not there yet, to the day: a comment in a file says no more."""
    return f"not there on {since[:10]}" if since else "new since the last pass"
