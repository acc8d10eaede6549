"""The pytest adapter: options, collection of workflow files, one item per variation, reports.

It delegates everything else: loading to ``workflow.loader``, running to ``Runtime.run`` (which
calls the engine), text to ``report.text``, Allure to ``report.allure``.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import logging
import shlex
import tempfile
from collections.abc import Callable, Generator, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from _pytest.fixtures import TopRequest

from . import hookspecs, project, pytest_summary
from . import settings as settings_mod
from .engine.ports import Probe
from .engine.result import RunResult
from .errors import BrokenRun, ReuseitError, WorkflowBroken, WorkflowFailed, WorkflowFormatError
from .experience import learn_from_result
from .llm.client import load_prices
from .pytest_marks import allure_marks, fixture_placeholders, mark_from_spec
from .pytest_order import WORKER_KEY, DurationLog, cached_durations, slowest_first
from .report import allure_adapter, records, run_context, text
from .runtime import Placeholders, Runtime
from .sites import LocalSites
from .workflow import ops
from .workflow.loader import LoadedWorkflow, load

log = logging.getLogger(__name__)

RUNTIME = pytest.StashKey[Runtime]()
RESULT = pytest.StashKey[RunResult]()
SITES = pytest.StashKey[LocalSites]()
OPS = pytest.StashKey["SessionOps"]()
# Where a worker finds the controller's rootdir in its workerinput (see _root).
ROOT_KEY = "reuseit_root"
# Set on an item by a plugin that watches its run from inside (reuseit mutate's pytest side).
PROBE = pytest.StashKey[Probe]()


class SessionOps:
    """What ``pytest_reuseit_ops`` receives: ``register`` adds an op for this pytest session.

    The op registry is per process; ops a session registered are removed when it ends, so a
    second session in the same process (pytester, IDE runners) starts from the built-in ops.
    """

    def __init__(self) -> None:
        self.added: list[str] = []

    def register(
        self, name: str, args: Any, description: str, handler: ops.Handler | None = None, **options: Any
    ) -> ops.OpSpec:
        """Same arguments as :func:`pytest_reuseit.workflow.ops.register`."""
        try:
            entry = ops.register(name, args, description, handler, **options)
        except ValueError as exc:
            raise pytest.UsageError(f"pytest_reuseit_ops: {exc}") from None
        self.added.append(name)
        return entry

    def names(self) -> tuple[str, ...]:
        return ops.names()

    def close(self) -> None:
        for name in reversed(self.added):
            ops.unregister(name)
        self.added.clear()


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_reuseit_placeholders(config: pytest.Config) -> Mapping[str, str] | None:
    """The project's own built-ins, given the way a suite gives its own: {demo_url} and {miniwob_url}
    (their server starts when a run first reads one)."""
    return config.stash.get(SITES, None)


def placeholders_for(node: pytest.Item | pytest.Collector) -> Placeholders:
    """What every ``pytest_reuseit_placeholders`` implementation visible from ``node`` returns."""
    found: list[Mapping[str, object]] = []
    for mapping in node.ihook.pytest_reuseit_placeholders(config=node.config):
        if mapping is None:
            continue
        if not isinstance(mapping, Mapping):
            raise ReuseitError(
                f"pytest_reuseit_placeholders must return a mapping of names to values, not {type(mapping).__name__}"
            )
        found.append(mapping)
    return found


def pytest_addoption(parser: pytest.Parser) -> None:
    settings_mod.add_options(parser)


@pytest.hookimpl(wrapper=True)
def pytest_cmdline_main(config: pytest.Config) -> Generator[None, int | pytest.ExitCode, int | pytest.ExitCode]:
    # Before pytest-xdist turns `-n N` without `--dist` into `--dist load`. `load` hands each worker
    # its first items in chunks of up to a quarter of the session, so a file's variations (each a
    # whole browser run, some seconds long) land on one worker, which then finishes seconds after
    # the others: the example workflows measured 38.0 s with `load`, 34.4 s with `worksteal`
    # (60 s serially). `worksteal` splits the items evenly and lets an idle worker take half of a
    # busy one's queue. A `--dist` given on the command line is kept.
    if getattr(config.option, "numprocesses", None) and getattr(config.option, "dist", None) == "no":
        config.option.dist = "worksteal"
    return (yield)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "reuseit: a guarded workflow run by pytest-reuseit")
    try:
        resolved = settings_mod.resolve(config)
        if resolved.prices:
            load_prices(resolved.prices)  # a broken price table is a usage error, found before any run
    except ReuseitError as exc:
        raise pytest.UsageError(f"pytest-reuseit: {exc}") from None
    root = _root(config)
    if resolved.history:
        resolved = dataclasses.replace(resolved, history=str(_history_file(config, root, resolved.history)))
    if not config.option.collectonly:
        _check_output_folder(root / resolved.output, resolved.output)
    config.stash[SITES] = LocalSites()
    registry = SessionOps()
    config.stash[OPS] = registry
    config.hook.pytest_reuseit_ops(registry=registry)
    # No placeholders of its own: each run gets what the pytest_reuseit_placeholders hook returns.
    runtime = config.stash[RUNTIME] = Runtime(resolved, root, placeholders=())
    # The run records for the history (see _write_record) hold every step's page: taken only then.
    runtime.step_pages = bool(getattr(config.option, "allure_report_dir", None))
    if not hasattr(config, "workerinput") and getattr(config, "cache", None) is not None:
        config.pluginmanager.register(DurationLog(config), "reuseit-durations")


def _root(config: pytest.Config) -> Path:
    """The folder the plugin's relative paths start from (output, cache, workflow paths given to
    the fixture): the rootdir, the controller's under xdist, which its workers get with their
    workerinput. A worker's own can differ: pytest takes an existing folder named by an option it
    does not know yet for a test path when it looks for the rootdir, and with no ini file an output
    folder outside the tests, made by the controller before the workers start, moves theirs. A
    worker on another machine (``--tx ssh=...``) has no such folder and keeps its own."""
    given = getattr(config, "workerinput", {}).get(ROOT_KEY)
    return Path(given) if given and Path(given).is_dir() else Path(str(config.rootpath))


def _history_file(config: pytest.Config, root: Path, value: str) -> Path:
    """The nightly history the runs read, where ``reuseit report`` run in the same folder writes it
    (project.history_file). With an ini file both start from its folder, the rootdir. With none,
    pytest's rootdir follows the test paths given (``pytest workflows`` makes it workflows/), so
    the runs start from the project found as the command finds it."""
    base = root if config.inipath is not None else project.find(config.invocation_params.dir).root
    return base / value


def _check_output_folder(folder: Path, given: str) -> None:
    """Every run writes its files under the output folder (the session its usage): one that cannot
    be written is a usage error now, not a traceback in every test."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        reason = "a file is in the way" if folder.is_file() else exc.strerror or str(exc)
        raise pytest.UsageError(
            f"pytest-reuseit: the output folder {given} (--reuseit-output, reuseit_output) cannot be written: {reason}"
        ) from None


def pytest_unconfigure(config: pytest.Config) -> None:
    runtime = config.stash.get(RUNTIME, None)
    if runtime is not None:
        runtime.close()
    sites = config.stash.get(SITES, None)
    if sites is not None:
        sites.close()
    registry = config.stash.get(OPS, None)
    if registry is not None:
        registry.close()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    runtime = parent.config.stash.get(RUNTIME, None)
    patterns = runtime.settings.files if runtime else settings_mod.DEFAULT_FILES
    if any(fnmatch.fnmatch(file_path.name, p) for p in patterns):
        return WorkflowFile.from_parent(parent, path=file_path)
    return None


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist's controller hands each worker its rootdir (see _root) and the durations its cache
    holds: a worker reading its own cache could read another one."""
    node.workerinput[ROOT_KEY] = str(node.config.rootpath)
    runtime = node.config.stash.get(RUNTIME, None)
    if runtime is not None and runtime.settings.order == "slowest-first" and not _other_order(node.config):
        node.workerinput[WORKER_KEY] = cached_durations(node.config)


def _other_order(config: pytest.Config) -> bool:
    """An order the user asked for wins over longest-first: failed first (``--ff``), new first
    (``--nf``), pytest-randomly's shuffle (it also runs last among the reorderings)."""
    if getattr(config.option, "failedfirst", False) or getattr(config.option, "newfirst", False):
        return True
    return config.pluginmanager.has_plugin("randomly") and bool(getattr(config.option, "randomly_reorganize", False))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under xdist (in each worker, which must all collect the same order), the workflow runs that
    took longest last time go first (pytest_order.py). The controller decides: it sends durations
    only when that order is wanted (pytest_configure_node)."""
    worker = getattr(config, "workerinput", {})
    durations = worker.get(WORKER_KEY)
    if durations:
        workers = int(worker.get("workercount", 1))
        parts = workers if getattr(config.option, "dist", "") == "worksteal" else 1
        slowest_first(items, durations, lambda item: isinstance(item, WorkflowItem), parts)


def _display_path(config: pytest.Config, path: Path) -> str:
    try:
        return str(path.relative_to(config.rootpath))
    except ValueError:
        return str(path)


def _stem(path: Path) -> str:
    name = path.name
    for suffix in (".reuseit.yaml", ".reuseit.yml", ".yaml", ".yml"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


class WorkflowFile(pytest.File):
    """One workflow file; yields one item per variation, or one failing item if it is invalid."""

    def collect(self) -> Iterator[pytest.Item]:
        runtime = self.config.stash[RUNTIME]
        try:
            # Messages name the file as the user would: relative to the rootdir when possible.
            names = runtime.builtin_names(placeholders_for(self))
            loaded = load(self.path, display=_display_path(self.config, self.path), builtin_names=names)
        except WorkflowFormatError as exc:
            # A plain collection error would stop the whole session: fail this file only.
            yield InvalidWorkflowItem.from_parent(self, name=_stem(self.path), error=exc)
            return
        wf = loaded.workflow
        for tag in wf.tags:
            self.config.addinivalue_line("markers", f"{tag}: workflow tag")
        items = []
        for var in wf.all_variations():
            item = WorkflowItem.from_parent(self, name=f"{_stem(self.path)}[{var.id}]", loaded=loaded, variation=var.id)
            item.add_marker("reuseit")
            for tag in wf.tags:
                item.add_marker(tag)
            for mark in allure_marks(wf):
                item.add_marker(mark)
            for spec in (*wf.marks, *var.marks):
                item.add_marker(mark_from_spec(spec))
            item.request_fixtures()
            items.append(item)
        yield from items


class WorkflowItem(pytest.Item):
    """One variation of one workflow, run in its own browser context."""

    def __init__(self, *, loaded: LoadedWorkflow, variation: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.loaded = loaded
        self.variation = variation
        var = next(v for v in loaded.workflow.all_variations() if v.id == variation)
        self.line = (
            loaded.source.line("variations", loaded.workflow.variations.index(var)) if loaded.workflow.variations else 1
        )

    # ------------------------------------------------------------ fixtures (as pytest.Function does)

    def request_fixtures(self) -> None:
        """Resolve ``usefixtures`` (and autouse fixtures) the way pytest does for a test function."""
        names = self.loaded.workflow.usefixtures
        if names:
            self.add_marker(pytest.mark.usefixtures(*names))
        # pytest has no public API for fixtures on non-Python items; these are the attributes
        # pytest.Function sets up (tavern's YamlItem does the same).
        self._fixtureinfo = self.session._fixturemanager.getfixtureinfo(node=self, func=None, cls=None)
        self.fixturenames = self._fixtureinfo.names_closure
        self.funcargs: dict[str, object] = {}
        self._request = TopRequest(self, _ispytest=True)  # type: ignore[arg-type]

    def missing_fixtures(self) -> list[str]:
        known = self._fixtureinfo.name2fixturedefs
        return [name for name in self.fixturenames if name not in known and name != "request"]

    def setup(self) -> None:
        missing = self.missing_fixtures()
        if missing:
            # As pytest errors a Python test that asks for an unknown fixture: this item errors at
            # setup, and the rest of the session runs (a collection error would stop it all).
            pytest.fail(self._unknown_fixture_message(missing), pytrace=False)
        self._request._fillfixtures()

    def _unknown_fixture_message(self, missing: list[str]) -> str:
        shown = _display_path(self.config, self.path)
        # A name may come with a used or session file: each is named where it was written.
        by_where: dict[str, list[str]] = {}
        for name in missing:
            by_where.setdefault(self.loaded.fixture_where(name), []).append(name)
        lines = []
        for where, names in by_where.items():
            carried = "" if where.rsplit(":", 1)[0] == self.loaded.source.path else ", which uses that file"
            lines.append(
                f"{where}: usefixtures: fixture {', '.join(repr(n) for n in names)} not found (not defined in a "
                f"conftest.py or plugin visible from {shown}{carried})"
            )
        return "\n".join(
            [
                *lines,
                f"  available fixtures: {', '.join(_visible_fixtures(self))}",
                f"  use 'pytest --fixtures {shown}' for help on them",
            ]
        )

    def fixture_values(self) -> dict[str, object]:
        return {name: self.funcargs[name] for name in self.loaded.workflow.usefixtures}

    def runtest(self) -> None:
        runtime = self.config.stash[RUNTIME]
        allure_adapter.before_run(self.loaded, self.variation, runtime.settings.params)
        try:
            result = runtime.run(
                self.loaded,
                self.variation,
                self.nodeid,
                placeholders=[fixture_placeholders(self.fixture_values()), *placeholders_for(self)],
                on_start=lambda page: self.ihook.pytest_reuseit_run_start(item=self, page=page),
                probe=self.stash.get(PROBE, None),
            )
        except BrokenRun as exc:
            # No browser for this run (none installed, a Grid with no node left, a node that died
            # while the session was made): broken as any run is, with its record, so the night
            # counts it and a night that lost its browser host is told as one (an unhealthy night).
            result = runtime.not_started(self.loaded, self.variation, str(exc), infrastructure=True)
        self.stash[RESULT] = result
        allure_adapter.after_run(result, runtime.settings.attach_max)
        self.ihook.pytest_reuseit_run_end(item=self, result=hookspecs.RunEnd(result))
        if runtime.settings.learn and result.label in ("recovered", "healed"):
            # Opt-in: new rules change the agent's prompt, so a recorded cache would stop matching.
            for rule in learn_from_result(result, runtime.experience):
                log.info("learnt for %s: %s", result.start_url, rule)
        # The exception message is one line starting with [category]: Allure shows it as the
        # status message and categories.json groups by it. repr_failure prints the full story.
        if result.status == "failed":
            raise WorkflowFailed(allure_adapter.status_message(result), result)
        if result.status == "broken":
            raise WorkflowBroken(allure_adapter.status_message(result), result)
        if runtime.settings.strict:
            reasons = []
            if result.label in ("recovered", "healed"):
                reasons.append(
                    f"the run was {result.label} (--reuseit-strict): " + "; ".join(text.recovered_text(result))
                )
            if result.not_judged:
                reasons.append("checks were not judged (no model): " + "; ".join(v.check for v in result.not_judged))
            if reasons:
                raise WorkflowFailed(f"workflow '{result.workflow}' [{result.variation}] " + "\n".join(reasons), result)
        if result.not_judged and runtime.settings.llm != "off":
            # Nothing unjudged passes silently: no model was configured (an explicit --reuseit-llm off
            # passes them, counted in the summary).
            pytest.skip(unjudged_reason(len(result.not_judged)))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | Any:
        exc = excinfo.value
        if isinstance(exc, ReuseitError):
            result = getattr(exc, "result", None)
            if isinstance(result, RunResult) and result.status in ("failed", "broken"):
                return f"{exc}\n{text.failure_text(result)}"
            return str(exc)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.line - 1, f"{self.loaded.workflow.name} [{self.variation}]"


def _write_record(config: pytest.Config, result: RunResult, nodeid: str, *, skipped: bool) -> None:
    """The run's record for the nightly history, beside Allure's results (each xdist worker writes
    its own runs'): ``reuseit report`` reads them back. A record that cannot be written is a
    warning: the run's verdict stands."""
    results_dir = getattr(config.option, "allure_report_dir", None)
    if not results_dir:
        return
    try:
        Path(results_dir).mkdir(parents=True, exist_ok=True)
        record = records.record_of(result, nodeid)
        if skipped:
            record["status"] = "skipped"
            record["proven"] = []  # an expected failure (a known defect) proposes nothing
        records.write(results_dir, record)
    except OSError as exc:
        log.warning("could not write the run record of %s into %s: %s", nodeid, results_dir, exc)


def _heal_command(config: pytest.Config) -> str:
    """The command that writes this session's proven edits: its healing.json is in the session's
    output folder (``reuseit heal`` looks in the default one by itself)."""
    runtime = config.stash.get(RUNTIME, None)
    output = runtime.settings.output if runtime is not None else settings_mod.default("output")
    if output == settings_mod.default("output"):
        return "reuseit heal --apply"
    return f"reuseit heal --from {shlex.quote(str(Path(output) / 'healing.json'))} --apply"


def _visible_fixtures(item: pytest.Item) -> list[str]:
    """The fixture names a test at ``item`` can ask for, as pytest lists them for a missing one.
    pytest has no public API for it: its fixture manager's tables (their shape changed in pytest 9)."""
    fm = item.session._fixturemanager
    if hasattr(fm, "_get_all_fixture_defs_for_node"):  # pytest 9
        names = {d.argname for d in fm._get_all_fixture_defs_for_node(item)}
    else:  # pytest 8
        names = {n for n in getattr(fm, "_arg2fixturedefs", {}) if fm.getfixturedefs(n, item)}
    return sorted(n for n in names if not n.startswith("_"))


def unjudged_reason(count: int) -> str:
    return (
        f"not judged: {count} check(s) in words need a model and none is configured; set OPENAI_BASE_URL "
        "and OPENAI_API_KEY to judge them, give them an expect (a DOM assertion), or pass --reuseit-llm off "
        "to accept them unjudged"
    )


class InvalidWorkflowItem(pytest.Item):
    """Stands for a file that could not be loaded: fails with the loader's message."""

    def __init__(self, *, error: WorkflowFormatError, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.error = error

    def runtest(self) -> None:
        raise self.error

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | Any:
        if isinstance(excinfo.value, WorkflowFormatError):
            return "invalid workflow file:\n" + str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"invalid workflow {self.path.name}"


# --------------------------------------------------------------------------- reports and summary


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    result = item.stash.get(RESULT, None)
    if call.when == "call" and isinstance(item, InvalidWorkflowItem):
        report.reuseit_invalid = item.error.problems[0] if item.error.problems else str(item.error)
    if call.when == "call" and result is not None:
        # tryfirst: this runs after allure-pytest's own wrapper has set the test's status.
        allure_adapter.finish(result)
        # Here, not in runtest: only now is it known whether pytest skipped the run (checks not
        # judged) or expected its failure (xfail, a known defect): neither is news for the night.
        _write_record(item.config, result, item.nodeid, skipped=bool(report.skipped))
        # A plain dict survives xdist's report serialisation, so the controller can summarise.
        report.reuseit = {
            "label": "not judged" if report.skipped else result.label,
            "workflow": result.workflow,
            "variation": result.variation,
            "file": result.file,
            "line": result.line,
            "category": result.analysis.category if result.analysis else "",
            "why": result.analysis.why if result.analysis else result.message,
            "infrastructure": result.infrastructure,
            "recovered": text.recovered_text(result),
            "not_judged": [f"step check: {v.check}" for v in result.not_judged],
            "healing": [
                {
                    "file": result.file,
                    "line": h.line,
                    "step": h.step,
                    "op_index": h.op_index,
                    "broken": h.broken,
                    "replacement": h.replacement,
                }
                for h in result.healing
            ]
            # An expected failure (xfail: a known defect) proposes nothing.
            + ([] if report.skipped else [records.proven_entry(e) for e in result.proven]),
            "usage": {
                "calls": result.usage.calls,
                "cache_hits": result.usage.cache_hits,
                "tokens": result.usage.prompt_tokens + result.usage.completion_tokens,
                "cost": result.usage.cost,
            },
        }


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Run context for Allure (environment, executor, categories), written once by the controller."""
    if hasattr(session.config, "workerinput"):
        return
    results_dir = getattr(session.config.option, "allure_report_dir", None)
    runtime = session.config.stash.get(RUNTIME, None)
    if not results_dir or runtime is None:
        return
    run_context.write(Path(results_dir), runtime)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    reports = [
        rep for key in ("passed", "failed", "error", "skipped", "") for rep in terminalreporter.stats.get(key, [])
    ]
    runs = [
        (rep.nodeid, rep.reuseit)
        for rep in reports
        if getattr(rep, "reuseit", None) and getattr(rep, "when", "") == "call"
    ]
    invalid = [(rep.nodeid, rep.reuseit_invalid) for rep in reports if getattr(rep, "reuseit_invalid", None)]
    if not runs and not invalid:
        return
    runtime = config.stash.get(RUNTIME, None)
    # A session of `reuseit mutate` runs injected faults: what its runs propose (or its empty
    # list) must not replace the healing file of the user's own last session.
    mutating = config.pluginmanager.has_plugin("pytest_reuseit.mutate_plugin")
    if runs and runtime is not None and not hasattr(config, "workerinput") and not mutating:
        out = runtime.root / runtime.settings.output
        run_context.write_usage(out / "usage.json", runs)
        run_context.write_healing(out / "healing.json", runs)
    write: Callable[..., None] = terminalreporter.write_line
    terminalreporter.section("reuseit summary")
    problem = pytest_summary.history_problem(runtime) if runs and runtime is not None else ""
    if problem:
        write(f"WARNING {problem}: runs were not compared with their last pass")
    for line in pytest_summary.summary_lines(runs, verbose=config.option.verbose > 0) if runs else ():
        write(line)
    for line in pytest_summary.proven_lines(runs, _heal_command(config)):
        write(line)
    if invalid:  # files that could not be loaded are no workflow runs, but they are not forgotten either
        write(f"{len(invalid)} invalid workflow file(s):")
        for nodeid, problem in invalid:
            write(f"INVALID {nodeid.split('::')[0]}: {problem}")


# --------------------------------------------------------------------------- Python API fixture


@pytest.fixture
def reuseit_run(request: pytest.FixtureRequest) -> Callable[..., RunResult]:
    """Run a workflow file from a Python test: ``reuseit_run("workflows/x.reuseit.yaml", "attribute")``.

    Returns the RunResult; it does not raise on failure, so the test decides what to assert.
    """
    runtime = request.config.stash[RUNTIME]

    def run(path: str | Path, variation: str | None = None) -> RunResult:
        p = Path(path)
        if not p.is_absolute():
            p = runtime.root / p
        extra = placeholders_for(request.node)
        loaded = load(p, builtin_names=runtime.builtin_names(extra))
        return runtime.run(
            loaded, variation, f"{request.node.nodeid}-{p.name}-{variation or 'default'}", placeholders=extra
        )

    return run
