"""``reuseit heal``: write the locators that self-healing found back into the workflow files.

When a ``do`` op breaks because the page changed and the agent performs the step instead, the
run records the locator the agent used (``healing.json`` in the output folder, written at the
end of every pytest session that healed something). This command turns those suggestions into
edits: the broken op keeps its kind and its own keys and gets the new locator as a Playwright
selector string — ``click: {css: "#old"}`` becomes ``click: 'role=button[name="Paint"]'``,
``fill: {css: "#q", value: "{x}"}`` becomes ``fill: {selector: 'role=textbox[name="Search"]',
value: "{x}"}``. It shows the diff and writes only with ``--apply``.

Several variations healing the same op the same way count once. When runs disagree about the
same op (typically because the locator names a parameter's value, which differs per variation),
the op is left alone and the command says so: that op needs a person, or a locator that does
not depend on the value.

The same file holds the edits the history proves for failed runs (``"origin": "history"``):
:func:`read_healing` reads them too, and ``history_edits.py`` groups and applies them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ReuseitError
from ..llm.schemas import AGENT_ACTIONS
from .history_edits import HistoryEdit
from .yamledit import WorkflowDoc, YamlEditError

# What the agent's record looks like when it did not act on an element: "press 'Enter'", "back".
_NOT_A_LOCATOR = re.compile(rf"^({'|'.join(AGENT_ACTIONS)})(\s|$)")


@dataclass
class Suggestion:
    file: str
    step: int  # 1-based
    op_index: int  # 0-based
    replacement: str
    broken: str = ""
    line: int = 0
    tests: list[str] = field(default_factory=list)

    @property
    def op_key(self) -> tuple[int, int]:
        return self.step, self.op_index


@dataclass
class FilePlan:
    """What heal will do to one file."""

    path: Path
    shown: str
    apply: list[Suggestion] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # skipped suggestions, with why


class HealingFileError(ReuseitError):
    """The healing suggestions file cannot be read."""


def read_healing(path: Path) -> tuple[list[Suggestion], list[HistoryEdit]]:
    """The healed locators and the history's proven edits (``origin: history``) of ``path``."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise HealingFileError(
            f"no healing suggestions at {path}: run pytest first; runs that healed, and failures the "
            "history explains, write it (or pass --from PATH)"
        ) from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise HealingFileError(f"cannot read {path}: {exc}") from None
    if not isinstance(data, list):
        raise HealingFileError(f"{path}: expected a JSON list of healing suggestions, got {type(data).__name__}")
    out: list[Suggestion] = []
    proven: list[HistoryEdit] = []
    for n, item in enumerate(data):
        if isinstance(item, dict) and item.get("origin") == "history":
            try:
                edit = HistoryEdit.from_entry(item)
            except (KeyError, TypeError, ValueError) as exc:
                raise HealingFileError(f"{path}: entry {n} is not an edit the history proves: {exc!r}") from None
            edit.path = locate(edit.file, path)
            proven.append(edit)
            continue
        try:
            out.append(
                Suggestion(
                    file=str(item["file"]),
                    step=int(item["step"]),
                    op_index=int(item["op_index"]),
                    replacement=str(item["replacement"]).strip(),
                    broken=str(item.get("broken", "")),
                    line=int(item.get("line") or 0),
                    tests=[str(item["test"])] if item.get("test") else [],
                )
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise HealingFileError(
                f"{path}: entry {n} is not a healing suggestion (needs file, step, op_index, replacement): {exc!r}"
            ) from None
    return out, proven


def locate(file: str, healing: Path) -> Path:
    """The workflow file a suggestion names: as given (relative to here), else relative to the
    folder above the output folder (where pytest ran), else the path as given."""
    p = Path(file)
    if p.is_absolute() or p.exists():
        return p
    for base in healing.resolve().parents:
        candidate = base / p
        if candidate.exists():
            return candidate
    return p


def selected(path: Path, wanted: list[Path]) -> bool:
    if not wanted:
        return True
    real = path.resolve()
    return any(real == w or (w.is_dir() and w in real.parents) for w in wanted)


def plan(suggestions: Iterable[Suggestion], healing: Path, files: list[str]) -> list[FilePlan]:
    """Group by file (only ``files``, when given), merge duplicates, set conflicts aside."""
    wanted = [Path(f).resolve() for f in files]
    by_file: dict[Path, dict[tuple[int, int], list[Suggestion]]] = {}
    shown: dict[Path, str] = {}
    for s in suggestions:
        path = locate(s.file, healing)
        if not selected(path, wanted):
            continue
        key = path.resolve()
        shown.setdefault(key, s.file)
        by_file.setdefault(key, {}).setdefault(s.op_key, []).append(s)
    plans: list[FilePlan] = []
    for key in sorted(by_file, key=lambda k: shown[k]):
        fp = FilePlan(path=key, shown=shown[key])
        for op_key in sorted(by_file[key]):
            group = by_file[key][op_key]
            step, op_index = op_key
            distinct: dict[str, list[str]] = {}
            for s in group:
                distinct.setdefault(s.replacement, []).extend(s.tests)
            if len(distinct) > 1:
                seen = "; ".join(f"{r!r} ({', '.join(t) or 'run unnamed'})" for r, t in distinct.items())
                fp.notes.append(
                    f"step {step} op {op_index + 1}: skipped, the runs disagree: {seen}. "
                    "The locator probably depends on a parameter's value; fix this op by hand"
                )
                continue
            merged = Suggestion(
                file=group[0].file,
                step=step,
                op_index=op_index,
                replacement=group[0].replacement,
                broken=group[0].broken,
                line=group[0].line,
                tests=[t for s in group for t in s.tests],
            )
            problem = _unusable(merged.replacement)
            if problem:
                fp.notes.append(f"step {step} op {op_index + 1}: skipped, {problem}")
                continue
            fp.apply.append(merged)
        plans.append(fp)
    return plans


def _unusable(replacement: str) -> str:
    if not replacement:
        return "the healing run recorded no locator"
    if "; " in replacement:
        return (
            f"the agent needed several actions ({replacement}); one locator cannot replace them: edit the step by hand"
        )
    if replacement.startswith("aria-ref="):
        return f"{replacement!r} is only valid during that run (no role or name to locate it by)"
    if _NOT_A_LOCATOR.match(replacement):
        return f"the agent did not act on an element ({replacement!r})"
    return ""


def _uses(doc: WorkflowDoc, i: int, j: int, selector: str) -> bool:
    op, kind = doc.op(i, j)
    arg = op[kind]
    if isinstance(arg, dict):
        return [k for k in arg if k not in ("value", "option", "key", "state")] == ["selector"] and arg[
            "selector"
        ] == selector
    return isinstance(arg, str) and arg == selector


def heal_file(fp: FilePlan) -> tuple[WorkflowDoc, str, list[str]]:
    """Apply a file's suggestions; return the document, the validated new text and what changed."""
    doc = WorkflowDoc.load(fp.path, display=fp.shown)
    changes: list[str] = []
    applied = 0
    for s in fp.apply:
        i, j = s.step - 1, s.op_index
        try:
            _, kind = doc.op(i, j)
            broken_kind = s.broken.split(" ", 1)[0] if s.broken else kind
            if broken_kind != kind:
                fp.notes.append(
                    f"step {s.step} op {j + 1}: skipped, the file changed since the run "
                    f"(the run broke on '{s.broken}', the op there now is '{kind}')"
                )
                continue
            if _uses(doc, i, j, s.replacement):
                fp.notes.append(f"step {s.step} op {j + 1}: already uses {s.replacement}")
                continue
            old = doc.replace_op_locator(i, j, s.replacement)
        except YamlEditError as exc:
            fp.notes.append(f"step {s.step} op {j + 1}: skipped, {'; '.join(exc.problems)}")
            continue
        applied += 1
        runs = f"  ({len(s.tests)} runs)" if len(s.tests) > 1 else ""
        moved = ""
        if s.line and doc.line_of_op(i, j) != s.line:
            moved = f"; line {s.line} at the run, the file changed since"
        changes.append(
            f"step {s.step} op {j + 1} (line {doc.line_of_op(i, j)}{moved}): {kind} {old} -> {s.replacement}{runs}"
        )
    if not applied:
        return doc, doc.original, changes
    text, _ = doc.validated()
    return doc, text, changes
