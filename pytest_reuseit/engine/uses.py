"""Every place of a run's workflow that names one element the way a failing op names it: the
places a proven rename edits besides the op the run stopped at (engine/proven.py).

A person who renames a button in a test edits every place that names it, not only the first one a
run reached: the second click of the same step, a later step, a fallback's op, and the same in the
files the workflow ``use``s. Those are found here, in the steps as each file writes them
(``StepOrigin.written``), so each place is edited in the file and step where it is written.

"The same locator, written the same way" means: the op's locator keys (the kind, its name, and any
refinement: ``exact``, ``nth``, ``has_text``, ``within``, ``frame``) equal the failing op's, as
YAML reads them (quoting aside) and before placeholders are filled. ``{role: button, name: Add to
cart}`` matches ``{name: "Add to cart", role: button}`` but not ``{role: button, name: Add to
cart, nth: 1}`` (another element, maybe) nor ``'role=button[name="Add to cart"]'`` (a selector
string the editor would have to rewrite). A name written with a placeholder (``Remove {item}``)
matches the same template: the new name keeps the placeholder, as it does for every variation.

A ``drag`` names two elements: the one dragged (its locator keys, as any op's) and the one it is
dropped on (its ``to:``). Each is a place of its own (``part``: "" or "to"), so a renamed column of
a board is renamed in every drag that drops on it, and only there.

A check whose ``expect`` names that locator is found too, and only listed: a check is never edited
(what it expects is what the site must do), it is the possible regression.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..workflow.loader import LoadedWorkflow
from ..workflow.locators import LOCATOR_KEYS, Locator
from ..workflow.ops import written_name

# The keys of an op's argument that find its element (the op's own keys: value, option, key...).
LOCATOR_FIELDS = LOCATOR_KEYS


@dataclass(frozen=True)
class Place:
    """An op (or a check) in the file where it is written."""

    file: str
    step: int  # 0-based, among that file's own steps
    digest: str  # that file's fingerprint as loaded
    line: int
    op_index: int = -1  # among the ``do`` ops
    fallback: int = -1  # -1: the step's own ``do``; else that fallback's ``do``
    check: str = ""  # a check: '<phase> check "<words>"'
    part: str = ""  # "": the op's own element; "to": the element a drag drops on

    @property
    def key(self) -> tuple[str, int, int, int, str, str]:
        return self.file, self.step, self.fallback, self.op_index, self.check, self.part


# The parts of an op's value that name another element than its own: a drag's drop target.
PARTS = ("to",)


def elements(arg: Locator) -> list[tuple[str, Locator]]:
    """The elements an op's value names, each with its part: its own (""), then each of
    :data:`PARTS` it has (a drag's drop target)."""
    parts = [(part, getattr(arg, part, None)) for part in PARTS]
    return [("", arg.plain()), *((part, loc) for part, loc in parts if isinstance(loc, Locator))]


def written_locator(op: Any, part: str = "") -> dict[str, Any] | None:
    """The locator keys of one op as a file writes it (``{click: {role: button, ...}}``), or of
    its ``part`` (``to``: the element a drag drops on); None when the op names that element
    otherwise (a selector string, no element)."""
    name = written_name(op)
    if name is None:
        return None
    arg = op[name]
    if part and isinstance(arg, dict):
        arg = arg.get(part)
    if not isinstance(arg, dict):
        return None
    loc = {str(k): v for k, v in arg.items() if k in LOCATOR_FIELDS}
    return loc or None


def failing_op_locator(loaded: LoadedWorkflow, i: int, j: int, part: str = "") -> dict[str, Any] | None:
    """The locator of op ``j`` of step ``i`` (0-based, expanded), or of its ``part``, as its file writes it."""
    written = loaded.origin(i).written
    try:
        return written_locator(written["do"][j], part)
    except (KeyError, IndexError, TypeError):
        return None


def uses(loaded: LoadedWorkflow, loc: dict[str, Any]) -> tuple[list[Place], list[Place]]:
    """(ops, checks) of every step the run loaded that name ``loc`` as written; each place once,
    however many times its file is used."""
    ops: dict[tuple[str, int, int, int, str, str], Place] = {}
    checks: dict[tuple[str, int, int, int, str, str], Place] = {}
    for i in range(len(loaded.workflow.steps)):
        origin = loaded.origin(i)
        raw = origin.written
        if origin.index < 0 or not isinstance(raw, dict):
            continue
        at: dict[str, Any] = {"file": origin.file, "step": origin.index, "digest": origin.digest}
        for k, j, path in _ops(raw):
            for part in ("", *PARTS):
                if written_locator(_at(raw, path), part) == loc:
                    place = Place(**at, line=loaded.source.line("steps", i, *path), op_index=j, fallback=k, part=part)
                    ops.setdefault(place.key, place)
        for phase in ("pre", "post"):
            for n, entry in enumerate(raw.get(phase) or []):
                if isinstance(entry, dict) and _names(entry.get("expect"), loc):
                    words = str(entry.get("check") or "").strip() or f"{phase} check {n + 1}"
                    place = Place(**at, line=loaded.source.line("steps", i, phase, n), check=f'{phase} check "{words}"')
                    checks.setdefault(place.key, place)
    return list(ops.values()), list(checks.values())


def _ops(raw: dict[str, Any]) -> Iterator[tuple[int, int, tuple[str | int, ...]]]:
    """(fallback index or -1, op index, document path under the step) of each op of a step."""
    for j, _ in enumerate(raw.get("do") or []):
        yield -1, j, ("do", j)
    for k, fb in enumerate(raw.get("fallback") or []):
        if isinstance(fb, dict):
            for j, _ in enumerate(fb.get("do") or []):
                yield k, j, ("fallback", k, "do", j)


def _at(raw: Any, path: tuple[str | int, ...]) -> Any:
    for part in path:
        raw = raw[part]
    return raw


def _names(expect: Any, loc: dict[str, Any]) -> bool:
    """Whether an ``expect`` (one assertion or a list, assertions nested in ``not``) looks for ``loc``."""
    if isinstance(expect, list):
        return any(_names(e, loc) for e in expect)
    if not isinstance(expect, dict):
        return False
    if {str(k): v for k, v in expect.items() if k in LOCATOR_FIELDS} == loc:
        return True
    return any(_names(v, loc) for v in expect.values() if isinstance(v, (dict, list)))
