"""The pytest side of ``reuseit mutate``, loaded with ``-p pytest_reuseit.mutate_plugin``.

Two modes, one per pytest session the command starts:

- ``--reuseit-mutation-record DIR``: every workflow run is watched by a recorder; what it touched
  and its verdict go to ``DIR`` (one JSON file per run).
- ``--reuseit-mutation-plan FILE --reuseit-mutation-results DIR``: the collected runs are replaced
  by one item per mutant (``search[original]@m12``), each run with its fault injected; each
  verdict goes to ``DIR/<mutant id>.<attempt>.json``. The usual options (``-n``, ``--base-url``, ...) apply.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from .atomic import write_text_atomic
from .hookspecs import RunEnd
from .mutation import ignore, operators
from .mutation.inject import Injector
from .mutation.plan import Mutant, make
from .mutation.plan import load as load_plan
from .mutation.plan import save as save_plan
from .mutation.touches import Recorder, RunTouches, load_all
from .mutation.touches import save as save_touches
from .mutation.waits import capped, caps_for, needs
from .plugin import PROBE, WorkflowItem

_MUTANT = pytest.StashKey[Mutant]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("reuseit-mutate", "reuseit mutate (set by the command, not by hand)")
    group.addoption("--reuseit-mutation-record", metavar="DIR", help="record what each clean run touches into DIR")
    group.addoption(
        "--reuseit-mutation-count", metavar="FILE", help="write how many workflow runs were collected to FILE"
    )
    group.addoption(
        "--reuseit-mutation-make",
        metavar="FILE",
        help="after the clean runs, write their mutants to FILE (operators registered in this session count)",
    )
    group.addoption("--reuseit-mutation-operators", default="", metavar="NAMES", help="comma-separated operators")
    group.addoption("--reuseit-mutation-max", type=int, default=0, metavar="N", help="at most N mutants")
    group.addoption("--reuseit-mutation-plan", metavar="FILE", help="run the mutants listed in FILE")
    group.addoption("--reuseit-mutation-results", metavar="DIR", help="write each mutant's verdict into DIR")
    group.addoption(
        "--reuseit-mutation-waits",
        metavar="FILE",
        help="JSON {nodeid: {needs, fetches}} of the clean runs: cap each mutant run's action and check "
        "timeouts (mutation/waits.py)",
    )
    parser.addini(ignore.INI_KEY, ignore.INI_HELP, type="linelist", default=[])


def _ini_rules(config: pytest.Config) -> list[ignore.Rule]:
    try:
        rules = ignore.from_ini(list(config.getini(ignore.INI_KEY)))
        ignore.check_operators(rules, operators.names())
    except ignore.BadRule as exc:
        raise pytest.UsageError(f"reuseit mutate: {exc}") from None
    return rules


def _operator_names(config: pytest.Config) -> tuple[str, ...]:
    given = tuple(n.strip() for n in str(config.getoption("reuseit_mutation_operators") or "").split(",") if n.strip())
    return given or operators.names()


def pytest_configure(config: pytest.Config) -> None:
    # Conftests and plugins are loaded by now: a suite's own operators are registered.
    unknown = [n for n in _operator_names(config) if n not in operators.names()]
    if unknown:
        raise pytest.UsageError(
            f"reuseit mutate: unknown operator(s): {', '.join(unknown)}; operators: {', '.join(operators.names())}"
        )
    if config.getoption("reuseit_mutation_make"):
        _ini_rules(config)  # a rule that cannot be read stops the command before any run


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The controller makes the mutants once every clean run has written what it touched."""
    config = session.config
    target = config.getoption("reuseit_mutation_make")
    folder = config.getoption("reuseit_mutation_record")
    if not target or not folder or hasattr(config, "workerinput"):
        return
    runs = [r for r in load_all(Path(folder)) if r.status in ("passed", "recovered", "healed")]
    mutants = make(runs, _operator_names(config), config.getoption("reuseit_mutation_max"), _ini_rules(config))
    save_plan(mutants, Path(target))


def _file_name(nodeid: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid)[-80:]
    return f"{slug}-{hashlib.sha1(nodeid.encode()).hexdigest()[:8]}.json"


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("reuseit_mutation_record"):
        # Only workflow runs have anything to mutate: Python tests and invalid files are left out.
        others = [item for item in items if not isinstance(item, WorkflowItem)]
        if others:
            config.hook.pytest_deselected(items=others)
            items[:] = [item for item in items if isinstance(item, WorkflowItem)]
        for item in items:
            assert isinstance(item, WorkflowItem)
            run = RunTouches(item.nodeid, item.loaded.source.path, item.variation)
            rules = ignore.from_file(item.loaded)
            try:
                ignore.check_operators(rules, operators.names())
            except ignore.BadRule as exc:
                raise pytest.UsageError(f"reuseit mutate: {exc}") from None
            run.ignore = [r.to_json() for r in rules]
            item.stash[PROBE] = Recorder(item.loaded, run)
        count_file = config.getoption("reuseit_mutation_count")
        if count_file:
            # Each xdist worker collects the same runs and writes the same number, whole.
            write_text_atomic(count_file, str(len(items)))
        return
    plan = config.getoption("reuseit_mutation_plan")
    if not plan:
        return
    by_nodeid = {item.nodeid: item for item in items if isinstance(item, WorkflowItem)}
    waits_file = config.getoption("reuseit_mutation_waits")
    waits: dict[str, dict[str, Any]] = json.loads(Path(waits_file).read_text(encoding="utf-8")) if waits_file else {}
    mutated: list[pytest.Item] = []
    for mutant in load_plan(Path(plan)):
        original = by_nodeid.get(mutant.nodeid)
        if original is None:
            continue  # not selected this time (-k, a changed file): the command reports it as not run
        clean = waits.get(mutant.nodeid)
        operator = operators.get(mutant.operator)
        if clean is None or (mutant.full_waits and not operator.hangs):
            loaded = original.loaded
        else:
            caps = caps_for(clean["needs"], clean["fetches"], operator.slows_s)
            loaded = capped(original.loaded, caps, hangs=operator.hangs, element_waits=not mutant.full_waits)
        item = WorkflowItem.from_parent(
            original.parent,  # type: ignore[arg-type]
            name=f"{original.name}@{mutant.id}",
            loaded=loaded,
            variation=original.variation,
        )
        for mark in original.own_markers:
            item.add_marker(getattr(pytest.mark, mark.name)(*mark.args, **mark.kwargs))
        item.request_fixtures()
        item.stash[PROBE] = Injector(loaded, mutant)
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
        touches.step_needs = [needs(s) for s in run.steps]
        fetches = Counter(r.step for r in touches.requests if r.resource in ("xhr", "fetch"))
        touches.step_fetches = [fetches.get(i, 0) for i in range(len(run.steps))]
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
            # Whether the element its check read carried the fault (mutation/hold.py), and if not, why.
            "held": probe.held,
            "why": probe.why if not (probe.applied and probe.held) else "",
            "reads": probe.reads,
            "aria": probe.arias,
            "ended": time.time(),
        }
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f"{probe.mutant.try_id}.tmp"
        tmp.write_text(json.dumps(verdict), encoding="utf-8")
        tmp.replace(folder / f"{probe.mutant.try_id}.json")
