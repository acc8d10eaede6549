"""Mutants from clean runs: each operator on each target a clean run touched, one run each.

One thing (an element, a request) reached by several steps or variations of a file is one mutant,
placed where it is first used and run against the first clean run that used it: a mutant is
killed when one run fails, and running every covering variation would multiply the cost for the
same answer on most sites. Benign mutants go once per workflow file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import operators
from .operators import Kind, Target
from .touches import RunTouches


@dataclass(frozen=True)
class Mutant:
    id: str
    operator: str
    kind: Kind
    file: str
    nodeid: str  # the run it is tried against
    target: Target

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "operator": self.operator,
            "kind": self.kind,
            "file": self.file,
            "nodeid": self.nodeid,
            "target": self.target.to_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Mutant:
        return cls(data["id"], data["operator"], data["kind"], data["file"], data["nodeid"], Target(**data["target"]))


def make(runs: list[RunTouches], names: tuple[str, ...], max_mutants: int = 0) -> list[Mutant]:
    """Mutants of the clean runs (those that passed), operator by operator in ``names``' order.

    With ``max_mutants``, every operator keeps its share, spread over the files, so a cap samples
    the kinds of fault evenly rather than cutting the last operators off."""
    per_operator: list[list[Mutant]] = []
    for name in names:
        op = operators.get(name)
        seen: set[tuple[str, str]] = set()
        found: list[Mutant] = []
        for run in runs:
            for target in op.targets(run):
                key = (run.file, "page" if op.kind == "benign" else target.same_thing())
                if key in seen:
                    continue
                seen.add(key)
                found.append(Mutant("", name, op.kind, run.file, run.nodeid, target))
        per_operator.append(found)
    chosen = _sample(per_operator, max_mutants) if max_mutants else [m for ms in per_operator for m in ms]
    return [Mutant(f"m{n}", m.operator, m.kind, m.file, m.nodeid, m.target) for n, m in enumerate(chosen, start=1)]


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
    by_file: dict[str, list[Mutant]] = {}
    for m in group:
        by_file.setdefault(m.file, []).append(m)
    lists = list(by_file.values())
    out: list[Mutant] = []
    for depth in range(max((len(x) for x in lists), default=0)):
        out.extend(x[depth] for x in lists if depth < len(x))
    return out


def save(mutants: list[Mutant], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([m.to_json() for m in mutants], indent=1), encoding="utf-8")


def load(path: Path) -> list[Mutant]:
    return [Mutant.from_json(d) for d in json.loads(path.read_text(encoding="utf-8"))]
