"""``reuseit mutate``: the clean session, the mutants, the mutant session, the report.

Each session is ``python -m pytest`` in a subprocess with the user's paths and options (so ``-n``,
``--base-url``, conftest fixtures and hooks all apply) and ``-p pytest_reuseit.mutate_plugin``.
Its output goes to a log file; the terminal gets a progress line while it runs.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ReuseitError
from . import incremental, operators, outcome, plan, report, touches

# Options that would stop a mutant session at its first kill (a kill is a failing test).
_STOPPERS = ("-x", "--exitfirst", "--sw", "--stepwise", "--lf", "--last-failed", "--ff", "--failed-first")
# Options whose value follows them, dropped with it: a mutant's run fails on purpose, so its pytest
# results are no report of the suite (the command writes the mutants' own with --alluredir).
_DROPPED_WITH_VALUE = ("--maxfail", "--alluredir", "--junitxml", "--junit-xml")


class UsageError(ReuseitError):
    """A mutation run that cannot start: exit status 2 with one line."""


@dataclass
class MutateOptions:
    paths: list[str]
    pytest_args: list[str] = field(default_factory=list)
    operators: tuple[str, ...] = ()
    break_at: float | None = None
    report: Path = Path("reuseit-output/mutation.json")
    max_mutants: int = 0
    plan_only: bool = False  # stop after the clean runs: list the mutants, run none
    full_waits: bool = False  # mutant runs keep the workflows' timeouts (else see waits.py)
    incremental: bool = False  # keep the last report's verdicts where nothing changed (incremental.py)
    work: Path = Path("reuseit-output/mutation")
    root: Path = Path(".")
    thresholds: dict[str, int] = field(default_factory=lambda: {"high": 80, "low": 60})


@dataclass
class MutateResult:
    summary: outcome.Summary
    results: list[outcome.MutantResult]
    report: dict[str, Any]
    exit_code: int


Say = Callable[[str], None]
# (label, runs done, runs in all, seconds since the session started, whether the session ended)
Progress = Callable[[str, int, int, float, bool], None]


def progress_line(label: str, done: int, total: int, elapsed_s: float) -> str:
    return f"{label}: {done}/{total} done, {_elapsed(elapsed_s)}"


class LogProgress:
    """Progress for a log (CI, a file), where each line stays: a line at each tenth of the way, one
    at least every ``every_s`` while runs keep ending, and the last (877 mutants made as many lines)."""

    def __init__(self, say: Say, every_s: float = 30.0) -> None:
        self.say = say
        self.every_s = every_s
        self._shown: tuple[str, int, float] = ("", -1, 0.0)  # label, runs done, elapsed

    def __call__(self, label: str, done: int, total: int, elapsed_s: float, ended: bool) -> None:
        last_label, last_done, last_at = self._shown
        if label == last_label and done == last_done:
            return  # (the session's end, with no run ended since the line before)
        tenth, last_tenth = 10 * done // max(total, 1), 10 * last_done // max(total, 1)
        if ended or label != last_label or tenth > last_tenth or elapsed_s - last_at >= self.every_s:
            self._shown = (label, done, elapsed_s)
            self.say(progress_line(label, done, total, elapsed_s))


def _pytest_args(opts: MutateOptions) -> list[str]:
    args = []
    skip = False
    for a in opts.pytest_args:
        if skip:
            skip = False
            continue
        if a in _STOPPERS or a.startswith(_DROPPED_WITH_VALUE):
            skip = a in _DROPPED_WITH_VALUE  # the value is the next argument (not --opt=value)
            continue
        args.append(a)
    # No history: a run with a fault injected is no night of the suite to compare with its last
    # pass (and would prove edits of the fault).
    return [
        *opts.paths,
        *args,
        "-p",
        "pytest_reuseit.mutate_plugin",
        "-p",
        "no:cacheprovider",
        "-q",
        "--reuseit-history=",
    ]


def _run_pytest(
    args: list[str],
    log: Path,
    root: Path,
    count: Callable[[], int],
    total: Callable[[], int],
    label: str,
    progress: Progress,
) -> int:
    """One pytest session in a subprocess, reporting to ``progress`` as results arrive and when it
    ends; ``total`` is read each time (the clean session tells its own once it has collected)."""
    log.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    last_shown = -1
    with log.open("w", encoding="utf-8") as out:
        proc = subprocess.Popen([sys.executable, "-m", "pytest", *args], cwd=root, stdout=out, stderr=subprocess.STDOUT)
        try:
            while proc.poll() is None:
                # Wait on the process itself: a session that ends is seen at once, not up to 0.5 s later.
                try:
                    proc.wait(timeout=0.5)
                except subprocess.TimeoutExpired:
                    pass
                done = count()
                if done != last_shown:
                    last_shown = done
                    progress(label, done, total(), time.monotonic() - started, False)
        except KeyboardInterrupt:
            proc.terminate()
            proc.wait()
            raise
    progress(label, count(), total(), time.monotonic() - started, True)
    return proc.returncode


def _elapsed(seconds: float) -> str:
    m, s = divmod(int(seconds), 60)
    return f"{m}m{s:02d}s"


def _tail(log: Path, lines: int = 15) -> str:
    try:
        return "\n".join(log.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def _collected(count_file: Path) -> int:
    """How many workflow runs the clean session collected (0 until it has written it)."""
    try:
        return int(count_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 0


def run(opts: MutateOptions, say: Say = print, progress: Progress | None = None) -> MutateResult:
    """The whole command; ``say`` gets its lines, ``progress`` each session's (by default a line
    now and then through ``say``, as in a log)."""
    progress = progress or LogProgress(say)
    started = time.monotonic()
    work = opts.root / opts.work
    clean_dir, mutant_dir = work / "clean", work / "mutants"
    for folder in (clean_dir, mutant_dir):
        shutil.rmtree(folder, ignore_errors=True)  # a result of an earlier run would be read as this one's
    base = _pytest_args(opts)

    count_file = work / "clean-count.txt"
    count_file.unlink(missing_ok=True)
    plan_file = work / "plan.json"
    plan_file.unlink(missing_ok=True)
    # The clean session makes the mutants: operators a suite registers in its conftest count there.
    making = ["--reuseit-mutation-make", str(plan_file), "--reuseit-mutation-max", str(opts.max_mutants)]
    if opts.operators:
        making += ["--reuseit-mutation-operators", ",".join(opts.operators)]
    # The session writes how many workflow runs it collected (the plugin leaves Python tests out):
    # the progress line's total, without a collection of its own before it (1.5-2.5 s a command).
    code = _run_pytest(
        [*base, "--reuseit-mutation-record", str(clean_dir), "--reuseit-mutation-count", str(count_file), *making],
        work / "clean.log",
        opts.root,
        lambda: len(list(clean_dir.glob("*.json"))),
        lambda: _collected(count_file),
        "clean runs",
        progress,
    )
    total = _collected(count_file)
    if total == 0 and code in (0, 5):
        raise UsageError(f"no workflows selected by {' '.join(opts.paths) or '.'} (pytest collected no workflow runs)")
    say(f"clean runs: {total} workflow run(s)")
    runs = touches.load_all(clean_dir) if clean_dir.exists() else []
    if code not in (0, 1) and not runs:
        raise UsageError(f"the clean session did not run (pytest exit {code}):\n{_tail(work / 'clean.log', 4)}")
    clean = [r for r in runs if r.status in ("passed", "recovered", "healed")]
    not_clean = [{"nodeid": r.nodeid, "status": r.status} for r in runs if r not in clean]
    if not clean:
        why = ", ".join(sorted({r.status for r in runs})) or "no run finished"
        raise UsageError(
            f"no workflow passed clean ({why}): is the site up? Mutants of a failing workflow mean nothing; "
            f"see {work / 'clean.log'}"
        )
    if not plan_file.exists():
        raise UsageError(f"the clean session made no mutants (pytest exit {code}):\n{_tail(work / 'clean.log', 4)}")
    mutants = plan.load(plan_file)
    ignored = sum(1 for m in mutants if m.ignored)
    say(
        f"{len(mutants)} mutants from {len(clean)} clean run(s) ({len(not_clean)} not clean)"
        + (f", {ignored} ignored by a rule" if ignored else "")
    )
    if opts.plan_only:
        for name, count in Counter(m.operator for m in mutants).items():
            say(f"  {name}: {count}")
        mutants = []
    durations = {r.nodeid: r.duration for r in clean}
    # Nothing of a mutant's run is read but its verdict: no trace, report pictures or run folder
    # (7% of a mutation run's time). Given before the user's own options, which win.
    quiet = ["--reuseit-trace", "off", "--reuseit-screenshots", "off", "--reuseit-artifacts", "never"]
    base = [*base[: len(opts.paths)], *quiet, *base[len(opts.paths) :]]
    if not opts.full_waits:
        waits_file = work / "waits.json"
        # What each clean step needed and fetched; each mutant's caps follow from them and its operator.
        caps = {r.nodeid: {"needs": r.step_needs, "fetches": r.step_fetches} for r in clean}
        waits_file.write_text(json.dumps(caps), encoding="utf-8")
        base = [*base, "--reuseit-mutation-waits", str(waits_file)]
    clean_runs = {r.nodeid: r for r in clean}
    kept = _kept(opts, mutants, clean_runs, say) if opts.incremental else {}
    ran = _try_mutants(
        [m for m in mutants if m.id not in kept],
        durations,
        base,
        work,
        mutant_dir,
        opts.root,
        progress,
        capped=not opts.full_waits,
    )
    by_id = {r.mutant.id: r for r in ran}
    results = [kept.get(m.id) or by_id[m.id] for m in mutants]
    for r in results:
        r.basis = incremental.basis_of(r, clean_runs, opts.root)
    summary = outcome.summarise(results, time.monotonic() - started)
    thresholds = dict(opts.thresholds)
    if opts.break_at is not None:
        thresholds["break"] = int(opts.break_at)
    rep = report.build(results, summary, clean, opts.root, not_clean=not_clean, thresholds=thresholds)
    report.write(rep, opts.root / opts.report)
    broke = opts.break_at is not None and (summary.score is None or summary.score < opts.break_at)
    return MutateResult(summary, results, rep, 1 if broke else 0)


def _kept(
    opts: MutateOptions, mutants: list[plan.Mutant], clean_runs: dict[str, touches.RunTouches], say: Say
) -> dict[str, outcome.MutantResult]:
    """--incremental: the last report's verdicts of the mutants whose basis did not change (read
    before this run writes its own report over it)."""
    last = incremental.load(opts.root / opts.report)
    if last is None:
        exists = (opts.root / opts.report).exists()
        why = f"{opts.report} cannot be read as a mutation report" if exists else f"no earlier report at {opts.report}"
        say(f"incremental: {why}: every mutant runs")
        return {}
    kept = {}
    for m in mutants:
        found = incremental.reuse(m, clean_runs, opts.root, last)
        if found is not None:
            kept[m.id] = found
    to_run = sum(1 for m in mutants if m.id not in kept and not m.ignored)
    say(
        f"incremental: {len(kept)} of {len(mutants)} verdicts kept from {opts.report} (workflow, target and "
        f"pages unchanged); {to_run} mutant(s) to run"
    )
    return kept


def _try_mutants(
    mutants: list[plan.Mutant],
    durations: dict[str, float],
    base: list[str],
    work: Path,
    mutant_dir: Path,
    root: Path,
    progress: Progress,
    capped: bool = True,
) -> list[outcome.MutantResult]:
    """Round 1 tries every mutant against its first covering run; round 2 tries each survivor
    against every other file's run that touched its target, all at once (see plan.py), and each
    benign mutant that failed under the capped waits, and each run that failed before its fault
    was placed, again with the workflow's own (waits.py):
    two pytest sessions at most, and a mutant any workflow catches is killed."""
    tries: dict[str, list[outcome.MutantResult]] = {m.id: [] for m in mutants}
    pending = [m for m in mutants if not m.ignored]  # a rule ignores the others: listed, never run
    for round_ in (1, 2):
        if not pending:
            break
        results_dir = mutant_dir / f"round{round_}"
        round_plan = work / f"plan-round{round_}.json"
        plan.save(pending, round_plan)
        label = (
            "mutants" if round_ == 1 else "second tries (survivors against other workflows, failures with full waits)"
        )
        _run_pytest(
            [*base, "--reuseit-mutation-plan", str(round_plan), "--reuseit-mutation-results", str(results_dir)],
            work / f"mutants-round{round_}.log",
            root,
            lambda folder=results_dir: len(list(folder.glob("*.json"))),  # type: ignore[misc]
            lambda n=len(pending): n,  # type: ignore[misc]
            label,
            progress,
        )
        again: list[plan.Mutant] = []
        for m in pending:
            path = results_dir / f"{m.try_id}.json"
            verdict = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
            limit = max(60.0, 10 * durations.get(m.nodeid, 0.0) + 30.0)
            tried = outcome.judge(m, verdict, limit)
            tries[m.id].append(tried)
            if round_ == 1 and capped and tried.outcome == "killed":
                hangs = m.operator in operators.names() and operators.get(m.operator).hangs
                tried.doubtful = outcome.doubtful(m, tried.verdict, hangs)
            if round_ == 1 and tried.doubtful:
                # An op's wait ran out under the caps where the fault is not: the machine may have
                # been busier than in the clean run. The workflow's own waits and the other
                # covering runs tell (waits.py).
                again.append(m.with_full_waits())
            if round_ == 1 and (tried.doubtful or tried.outcome in ("survived", "healed around", "not applied")):
                again.extend(m.against(n) for n in range(1, len(m.covering)))
            if round_ == 1 and tried.outcome == "false alarm" and capped:
                again.append(m.with_full_waits())
            if round_ == 1 and tried.outcome == "not applied" and tried.status in ("failed", "broken") and capped:
                # The run failed before it reached the fault: a busier machine than in the clean
                # run can make a wait run out under the caps. The workflow's own waits tell.
                again.append(m.with_full_waits())
        pending = again
    return [outcome.judge(m, None, 0.0) if m.ignored else outcome.combine(tries[m.id]) for m in mutants]
