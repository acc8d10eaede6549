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
- a rename comes with every use of the element (engine/uses.py): each op and fallback op of the
  runs' files that names it the same way, reached by a run or not, is a place of the same cause;
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
    fallback: int = -1  # -1: an op of the step's ``do``; else of that fallback's ``do``
    reached: bool = True  # False: another use of what the run stopped at, never reached
    base_url: str = ""  # the site the run used
    part: str = ""  # "to": the edit is of the element a drag drops on, not the op's own
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
            fallback=int(entry.get("fallback", -1)),
            reached=bool(entry.get("reached", True)),
            base_url=str(entry.get("base_url") or ""),
            part=_part(entry.get("part")),
        )

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file

    @property
    def target(self) -> tuple[str, int, str, int, int, int, str]:
        """What the edit changes: two edits with one target and different words disagree."""
        line = self.line if self.kind == "check" else 0  # two checks of one step are two places
        return str(self.path.resolve()), self.step, self.kind, self.fallback, self.op_index, line, self.part

    @property
    def place(self) -> str:
        """Where in its step: 'op 2', 'fallback 1 op 1', 'op 3 to' (a drag's drop target)."""
        op = f"op {self.op_index + 1}" + (f" {self.part}" if self.part else "")
        return op if self.fallback < 0 else f"fallback {self.fallback + 1} {op}"


def _part(value: Any) -> str:
    """An entry's ``part``: "" or one the editor knows (a drag's ``to``); anything else is no edit."""
    part = str(value or "")
    if part not in ("", "to"):
        raise ValueError(f"unknown part {part!r}")
    return part


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
    def changes(self) -> list[HistoryEdit]:
        """The edits that change a file (its checks are only listed)."""
        return [e for e in self.edits if e.kind != "check"]

    @property
    def regressions(self) -> list[HistoryEdit]:
        return [e for e in self.edits if e.kind == "check"]

    @property
    def files(self) -> int:
        return len({e.target[0] for e in self.changes} or {e.target[0] for e in self.edits})

    @property
    def places(self) -> int:
        """Every op the edit changes, reached by a run or not."""
        return len(self.changes)


def group(edits: list[HistoryEdit]) -> list[Cause]:
    """Merge the same edit proposed by several runs, set disagreements aside, group by cause.

    The causes that change files come first (the most files first), the possible regressions last."""
    by_target: dict[tuple[str, int, str, int, int, int, str], list[HistoryEdit]] = {}
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
        if cause.kind == "check" and first.kind != "check":
            # A check naming a renamed element came first: the cause is the rename.
            cause.kind, cause.summary = first.kind, first.summary
        distinct = {repr(e.new) for e in same}
        if len(distinct) > 1 and first.kind != "check":
            runs = ", ".join(t for e in same for t in e.tests) or "several runs"
            cause.notes.append(
                f"{first.where}: step {first.step}: skipped, the runs disagree ({runs}): "
                + "; ".join(sorted({e.summary for e in same}))
            )
            continue
        merged = HistoryEdit(
            **{**first.__dict__, "tests": [t for e in same for t in e.tests], "reached": any(e.reached for e in same)}
        )
        cause.edits.append(merged)
    for cause in causes.values():
        cause.edits.sort(key=lambda e: (e.kind == "check", e.file, e.step, e.fallback, e.op_index))
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
        _, name = doc.op(i, edit.op_index, edit.fallback)
        doc.set_locator(i, edit.op_index, dict(edit.old), dict(edit.new), edit.fallback, edit.part)
        line = doc.line_of_op(i, edit.op_index, edit.fallback)
        also = "" if edit.reached else " (the same element, not reached by the run)"
        return f"step {edit.step} {edit.place} (line {line}): {name} {_short(edit.old)} -> {_short(edit.new)}{also}"
    doc.insert_fallback(i, dict(edit.new), f"dismisses {edit.summary.split(',')[0]}, {_day(edit.since)} (reuseit heal)")
    return f"step {edit.step}: first fallback {_short(edit.new)}"


def _already(doc: WorkflowDoc, edit: HistoryEdit) -> bool:
    """Whether the file says what the edit would write (an earlier --apply wrote it)."""
    i = edit.step - 1
    try:
        if edit.kind == "locator":
            op, name = doc.op(i, edit.op_index, edit.fallback)
            arg = op[name]
            if edit.part and isinstance(arg, dict):
                arg = arg.get(edit.part)
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
