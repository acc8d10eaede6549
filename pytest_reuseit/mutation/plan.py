"""Mutants from clean runs: each operator on each target a clean run touched, one run each.

One thing (an element of a page, a request) is one mutant, however many steps, variations and
workflow files reach it: the same fault of the same site. It is tried against the first clean run
that used it; if that run does not fail, against the first run of the next file that used it, and
so on (``covering``), as Stryker tries a mutant's covering tests until one kills it. Variations
of one file are not tried in turn: they take the same steps, and multiplying runs for the same
answer would multiply the cost. Benign mutants go once per workflow file (each file's own pages
and locators meet the change).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import ignore, operators
from .ignore import Rule
from .operators import Kind, Target
from .touches import RunTouches


@dataclass(frozen=True)
class Mutant:
    id: str
    operator: str
    kind: Kind
    file: str
    nodeid: str  # the run it is tried against (this round's)
    target: Target
    # Every file's first run that touched it, with the target as that file has it (its step and
    # line), in order; the first is (nodeid, target).
    covering: tuple[tuple[str, str, Target], ...] = ()  # (file, nodeid, target)
    attempt: int = 0  # which covering run this try is against (its verdict file is <id>.<attempt>.json)
    full_waits: bool = False  # this try keeps the workflow's timeouts (see waits.py)
    ignored: str = ""  # why it is not run: a rule's reason and where it is (ignore.py)

    def against(self, n: int) -> Mutant:
        """The same mutant, tried against its ``n``-th covering run."""
        file, nodeid, target = self.covering[n]
        return Mutant(self.id, self.operator, self.kind, file, nodeid, target, self.covering, n)

    def with_full_waits(self) -> Mutant:
        """The same try, with the workflow's own timeouts."""
        return dataclasses.replace(self, full_waits=True)

    @property
    def try_id(self) -> str:
        return f"{self.id}.{self.attempt}"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "operator": self.operator,
            "kind": self.kind,
            "file": self.file,
            "nodeid": self.nodeid,
            "covering": [{"file": f, "nodeid": n, "target": t.to_json()} for f, n, t in self.covering],
            "attempt": self.attempt,
            "full_waits": self.full_waits,
            "ignored": self.ignored,
            "target": self.target.to_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Mutant:
        return cls(
            data["id"],
            data["operator"],
            data["kind"],
            data["file"],
            data["nodeid"],
            Target(**data["target"]),
            tuple((c["file"], c["nodeid"], Target(**c["target"])) for c in data.get("covering", ())),
            int(data.get("attempt", 0)),
            bool(data.get("full_waits", False)),
            str(data.get("ignored", "")),
        )


def make(
    runs: list[RunTouches], names: tuple[str, ...], max_mutants: int = 0, rules: list[Rule] | None = None
) -> list[Mutant]:
    """Mutants of the clean runs (those that passed), operator by operator in ``names``' order.

    With ``max_mutants``, every operator keeps its share, spread over the files, so a cap samples
    the kinds of fault evenly rather than cutting the last operators off. A mutant a rule ignores
    for one file is not tried against that file's runs (``rules``: for every file, plus each run's
    own, ignore.py); one ignored by every file that reaches it is listed as ignored, not run, and
    never counts against the cap."""
    per_operator: list[list[Mutant]] = []
    ignored: list[Mutant] = []
    for name in names:
        op = operators.get(name)
        found: dict[tuple[str, str], Mutant] = {}
        covering: dict[tuple[str, str], dict[str, tuple[str, str, Target]]] = {}  # key -> file -> first run
        why: dict[tuple[str, str], str] = {}  # key -> the first rule that ignored it
        for run in runs:
            run_rules = [*(rules or []), *(Rule.from_json(r) for r in run.ignore)]
            for target in op.targets(run):
                key = ("page", run.file) if op.kind == "benign" else ("", target.same_thing())
                reason = ignore.reason_for(run_rules, name, target)
                if reason:
                    why.setdefault(key, reason)
                    found.setdefault(key, Mutant("", name, op.kind, run.file, run.nodeid, target, ignored=reason))
                    continue
                covering.setdefault(key, {}).setdefault(run.file, (run.file, run.nodeid, target))
                if key not in found or found[key].ignored:
                    found[key] = Mutant("", name, op.kind, run.file, run.nodeid, target)
        runnable = []
        for key, m in found.items():
            if key in covering:
                runnable.append(
                    Mutant(m.id, m.operator, m.kind, m.file, m.nodeid, m.target, tuple(covering[key].values()))
                )
            else:
                ignored.append(m)
        per_operator.append(runnable)
    chosen = _sample(per_operator, max_mutants) if max_mutants else [m for ms in per_operator for m in ms]
    return [dataclasses.replace(m, id=f"m{n}") for n, m in enumerate([*chosen, *ignored], start=1)]


def _sample(groups: list[list[Mutant]], limit: int) -> list[Mutant]:
    """Round-robin over the operators, each group spread over its files (interleaved)."""
    spread = [_interleave_files(g) for g in groups]
    out: list[Mutant] = []
    depth = 0
    while len(out) < limit and any(depth < len(g) for g in spread):
        for g in spread:
            if depth < len(g) and len(out) < limit:
                out.append(g[depth])
        depth += 1
    order = {id(m): n for n, g in enumerate(groups) for m in g}
    return sorted(out, key=lambda m: order[id(m)])


def _interleave_files(group: list[Mutant]) -> list[Mutant]:
    """One mutant of each file in turn; the files in an order fixed by their names' hash, so that a
    cap samples every site and folder rather than the first ones alphabetically (and the same
    selection gives the same sample every time)."""
    by_file: dict[str, list[Mutant]] = {}
    for m in group:
        by_file.setdefault(m.file, []).append(m)
    lists = [by_file[f] for f in sorted(by_file, key=lambda f: hashlib.sha1(f.encode()).hexdigest())]
    out: list[Mutant] = []
    for depth in range(max((len(x) for x in lists), default=0)):
        out.extend(x[depth] for x in lists if depth < len(x))
    return out


def save(mutants: list[Mutant], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([m.to_json() for m in mutants], indent=1), encoding="utf-8")


def load(path: Path) -> list[Mutant]:
    return [Mutant.from_json(d) for d in json.loads(path.read_text(encoding="utf-8"))]
