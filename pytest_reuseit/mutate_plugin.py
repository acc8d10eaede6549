"""The pytest side of ``reuseit mutate``, loaded with ``-p pytest_reuseit.mutate_plugin``.

Two modes, one per pytest session the command starts:

- ``--reuseit-mutation-record DIR``: every workflow run is watched by a recorder; what it touched
  and its verdict go to ``DIR`` (one JSON file per run).
- ``--reuseit-mutation-plan FILE --reuseit-mutation-results DIR``: the collected runs are replaced
  by one item per mutant (``search[original]@m12``), each run with its fault injected; each
  verdict goes to ``DIR/<mutant id>.json``. The usual options (``-n``, ``--base-url``, ...) apply.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from .hookspecs import RunEnd
from .mutation.inject import Injector
from .mutation.plan import Mutant
from .mutation.plan import load as load_plan
from .mutation.touches import Recorder, RunTouches
from .mutation.touches import save as save_touches
from .plugin import PROBE, WorkflowItem

_MUTANT = pytest.StashKey[Mutant]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("reuseit-mutate", "reuseit mutate (set by the command, not by hand)")
    group.addoption("--reuseit-mutation-record", metavar="DIR", help="record what each clean run touches into DIR")
    group.addoption("--reuseit-mutation-plan", metavar="FILE", help="run the mutants listed in FILE")
    group.addoption("--reuseit-mutation-results", metavar="DIR", help="write each mutant's verdict into DIR")


def _file_name(nodeid: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid)[-80:]
    return f"{slug}-{hashlib.sha1(nodeid.encode()).hexdigest()[:8]}.json"


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("reuseit_mutation_record"):
        for item in items:
            if isinstance(item, WorkflowItem):
                run = RunTouches(item.nodeid, item.loaded.source.path, item.variation)
                item.stash[PROBE] = Recorder(item.loaded, run)
        return
    plan = config.getoption("reuseit_mutation_plan")
    if not plan:
        return
    by_nodeid = {item.nodeid: item for item in items if isinstance(item, WorkflowItem)}
    mutated: list[pytest.Item] = []
    for mutant in load_plan(Path(plan)):
        original = by_nodeid.get(mutant.nodeid)
        if original is None:
            continue  # not selected this time (-k, a changed file): the command reports it as not run
        item = WorkflowItem.from_parent(
            original.parent,  # type: ignore[arg-type]
            name=f"{original.name}@{mutant.id}",
            loaded=original.loaded,
            variation=original.variation,
        )
        for mark in original.own_markers:
            item.add_marker(getattr(pytest.mark, mark.name)(*mark.args, **mark.kwargs))
        item.request_fixtures()
        item.stash[PROBE] = Injector(original.loaded, mutant)
        item.stash[_MUTANT] = mutant
        mutated.append(item)
    items[:] = mutated


def pytest_reuseit_run_end(item: pytest.Item, result: RunEnd) -> None:
    probe = item.stash.get(PROBE, None)
    run = result.run
    if isinstance(probe, Recorder):
        folder = Path(item.config.getoption("reuseit_mutation_record"))
        touches = probe.run
        touches.status = run.label
        touches.failed_step = run.failed_step
        touches.duration = run.duration
        save_touches(touches, folder / _file_name(item.nodeid))
    elif isinstance(probe, Injector):
        folder = Path(item.config.getoption("reuseit_mutation_results"))
        verdict: dict[str, Any] = {
            "id": probe.mutant.id,
            "nodeid": item.nodeid,
            "status": run.label,
            "failed_step": run.failed_step,
            "failed_phase": run.failed_phase,
            "message": (run.message or "").splitlines()[0] if run.message else "",
            "category": run.analysis.category if run.analysis else "",
            "duration": run.duration,
            "applied": probe.applied,
            "ended": time.time(),
        }
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f"{probe.mutant.id}.tmp"
        tmp.write_text(json.dumps(verdict), encoding="utf-8")
        tmp.replace(folder / f"{probe.mutant.id}.json")
