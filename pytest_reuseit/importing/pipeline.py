"""``reuseit import``: sources → demonstrations → locators → workflow → derived checks → files.

Each source is read by its reader into a :class:`~.demo.Demonstration`; the element of each
step is read from the page (a trace's DOM, else the live page in a first run); the workflow is
composed and, unless asked not to, run ``runs`` times to derive the checks that held every time;
then it is written, never over an existing file without ``force``. The caller (the CLI) gives the
browser and the way to run a workflow, so this package stays below the runtime.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

from playwright.sync_api import Browser

from ..engine.result import RunResult
from ..errors import WorkflowFormatError
from ..workflow.loader import LoadedWorkflow
from ..workflow.placeholders import new_unique
from ..workflow.writer import Written, one_line, write
from . import files, limits
from .compose import TYPED, Composed, compose, file_name, origin_of, site_origin
from .demo import Demonstration, Target, UnreadableInput
from .derive import Deriver, Resolver, RunFn, add_derived
from .locate import person_check, person_selectors, read_element, snapshot_page
from .registry import find_sources as find_sources  # where the CLI found it before the registry
from .registry import read_source
from .selectors import is_person_form, to_loc

Say = Callable[[str], None]


@dataclass(frozen=True)
class ImportOptions:
    output: Path
    base_url: str = ""
    runs: int = 3
    derive: bool = True
    force: bool = False
    file_name: str = ""  # one source to this file name (reuseit record -o), else named after its title


@dataclass
class Imported:
    """What became of one source: ``written``, ``failed`` (written; it did not pass on the site),
    ``skipped`` (a failing test), ``unreadable`` or ``exists`` (nothing written)."""

    source: str
    status: str
    line: str
    path: Path | None = None
    composed: Composed | None = None
    runs: int = 0  # runs of the workflow this import made (resolve and derivation)
    # Requests the pages made by themselves to origins the runs may not open, aborted: per origin.
    aborted: dict[str, int] = field(default_factory=dict)


@dataclass
class Summary:
    results: list[Imported] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        if any(r.status in ("unreadable", "exists") for r in self.results):
            return 2
        return 1 if any(r.status == "failed" for r in self.results) else 0

    def total(self) -> str:
        done = [r.composed for r in self.results if r.composed is not None and r.status in ("written", "failed")]
        steps = sum(c.step_count for c in done)
        source = sum(c.source_checks for c in done)
        derived = sum(c.derived for c in done)
        dropped = sum(c.dropped for c in done)
        unexpressed = sum(len(c.unexpressed) for c in done)
        caveats = sum(len(c.caveats) for c in done)
        names = sorted({n for c in done for n in c.typed.secrets})
        uniques = sum(len(c.typed.uniques) + len(c.typed.once) for c in done)
        once = sum(len(c.typed.once) for c in done)
        line = (
            f"imported {len(done)} workflow{'' if len(done) == 1 else 's'}: {steps} steps, {source} checks from the "
            f"sources, {derived} derived ({dropped} dropped as unstable)"
        )
        if unexpressed:
            line += f", {unexpressed} call{'' if unexpressed == 1 else 's'}, step{'' if unexpressed == 1 else 's'} or assertion{'' if unexpressed == 1 else 's'} not imported (comments in the files)"
        if caveats:
            line += f", {caveats} imported with a difference from the source (comments in the files)"
        line += f", {len(names)} secret{'' if len(names) == 1 else 's'}"
        line += f" ({', '.join(names)})" if names else ""
        line += f", {uniques} unique value{'' if uniques == 1 else 's'}"
        if once:
            line += f" ({once} accepted once by the site, found by the runs)"
        runs = sum(r.runs for r in self.results)
        if runs:
            line += f"; {runs} runs of the new workflows against the site"
        line += aborted_words(_added(r.aborted for r in self.results), "; ")
        skipped = [r for r in self.results if r.status not in ("written", "failed")]
        if skipped:
            line += f"; {len(skipped)} not imported"
        return line


def _added(counts: Iterable[dict[str, int]]) -> dict[str, int]:
    total: Counter[str] = Counter()
    for one in counts:
        total.update(one)
    return dict(total)


def aborted_words(aborted: dict[str, int], lead: str) -> str:
    """The requests the pages made by themselves to other origins, aborted and never sent, by
    origin (the most first); "" when there were none."""
    if not aborted:
        return ""
    n = sum(aborted.values())
    by = ", ".join(f"{o} {k}" for o, k in sorted(aborted.items(), key=lambda item: (-item[1], item[0]))[:5])
    more = f" and {len(aborted) - 5} more origins" if len(aborted) > 5 else ""
    return (
        f"{lead}{n} request{'' if n == 1 else 's'} the pages made by themselves to other origins aborted, "
        f"never sent ({by}{more})"
    )


def visited_origins(demo: Demonstration, base_url: str) -> tuple[str, ...]:
    """The origins the import's own runs of ``demo`` may open: ``--base-url``'s, and those the
    source itself visited (its pages, and in a trace the files those pages loaded). A page that
    asks for anything else breaks the run, naming it: a hostile source reaches no other address."""
    urls = [base_url, demo.start_url, *(s.value for s in demo.steps if s.kind == "goto")]
    urls += [s.page_url for s in demo.steps if s.page_url] + list(demo.resources) + demo.visited
    return tuple(o for o in dict.fromkeys(map(origin_of, urls)) if o)


def _targets_from_snapshots(
    demo: Demonstration, browser: Browser
) -> tuple[list[list[str]], list[dict[str, str]], bool]:
    """Selectors (best first) and facts per step, read from the trace's DOM where it has one;
    whether every step with an element was read so."""
    selectors: list[list[str]] = []
    facts: list[dict[str, str]] = []
    complete = True
    seen: list[tuple[str, str]] = []  # the pages shown so far, latest last
    with snapshot_page(browser, demo.resources) as show:
        for step in demo.steps:
            if step.page_html:
                seen.append((step.page_html, step.page_url))
            if step.target is None:
                selectors.append([])
                facts.append({})
            else:
                page = show(step.page_html, step.page_url) if step.page_html else None
                found: str | None = None
                fact: dict[str, str] = {}
                if page is not None:
                    for sel in step.target.selectors:
                        found, fact = read_element(page, sel)
                        if fact:
                            break
                if not fact:
                    complete = False
                selectors.append(person_selectors(found, step.target.selectors))
                if step.to is not None and page is not None:
                    # A drag's drop target, by the locator a person writes when the page before the
                    # drag shows it (else the test's own selector).
                    step.to = Target(person_selectors(read_element(page, step.to.selectors[0])[0], step.to.selectors))
                facts.append(fact)
            # The checks asserted after the step, each on the page the trace kept for it; a check
            # on an element a step found by a person's locator gets that locator.
            known = person_locators(selectors)
            for i, page_of in enumerate(step.check_pages):
                if page_of is not None:
                    seen.append((page_of[1], page_of[2]))
                    step.checks[i] = _person_check(step.checks[i], page_of[0], seen, show, known)
    return selectors, facts, complete


def person_locators(selectors: list[list[str]]) -> list[str]:
    """The locators a person writes that the steps so far got, the latest first."""
    out = [sels[0] for sels in reversed(selectors) if sels and is_person_form(to_loc(sels[0]))]
    return list(dict.fromkeys(out))


# How many earlier pages a check's elements are looked for on, when its own page has none of
# them (a count of 0, an element asserted hidden): where they last were.
_PAGES_BACK = 4


def _person_check(
    check: dict[str, Any], selector: str, seen: list[tuple[str, str]], show: Any, known: list[str]
) -> dict[str, Any]:
    for html, url in reversed(seen[-_PAGES_BACK:]):
        shown = show(html, url)
        if shown is None:
            continue
        found = person_check(check, selector, shown, known)
        if found != check:
            return found
        try:
            if shown.locator(selector).count() > 0:
                return check  # its elements are here and no person's locator finds just them
        except Exception:
            return check
    return check


def into_frames(
    demo: Demonstration, selectors: list[list[str]], facts: list[dict[str, str]], frames: dict[str, str]
) -> None:
    """A recording's steps on a target that is a frame of the page (replay finds no page of that
    URL and looks among the frames): looked for inside that frame, their checks too; the switches
    to it, and back to the page it is in, go. ``frames``: target URL -> the <iframe>'s selector."""
    keep: list[int] = []
    page, inside, frame_loc = "main", "", {}
    for n, step in enumerate(demo.steps):
        if step.kind == "switch":
            if step.value in frames:
                inside = frames[step.value] + " >> internal:control=enter-frame >> "
                frame_loc = to_loc(frames[step.value])
                continue
            if inside and step.value == page:  # back from the frame to the page it is in
                inside = ""
                continue
            page, inside = step.value, ""
        elif inside:
            if step.target is not None:
                step.target.selectors = [inside + s for s in step.target.selectors]
                selectors[n] = list(step.target.selectors)
            if step.to is not None:
                step.to.selectors = [inside + s for s in step.to.selectors]
            framed = [_framed_check(c, frame_loc) for c in step.checks]
            step.unexpressed.extend(
                f"{words} inside the frame {_url_words(frames, inside)}" for c, words in framed if c is None
            )
            step.checks = [c for c, _ in framed if c is not None]
            step.check_pages = [None] * len(step.checks)
        keep.append(n)
    demo.steps[:] = [demo.steps[n] for n in keep]
    selectors[:] = [selectors[n] for n in keep]
    facts[:] = [facts[n] for n in keep]


def _url_words(frames: dict[str, str], inside: str) -> str:
    return next((url for url, sel in frames.items() if inside.startswith(sel)), "")


def _framed_check(check: dict[str, Any], frame: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """``check`` looked for inside ``frame``; (None, its words) when it is of no element (a URL, a
    title, a script: the frame's, which the format's checks of the page cannot say)."""
    ((key, arg),) = check.items()
    if key == "not" and isinstance(arg, dict) and len(arg) == 1:
        inner, words = _framed_check(arg, frame)
        return ({"not": inner} if inner is not None else None), words
    if not isinstance(arg, dict) or key in ("url", "title", "js"):
        return None, f"{key} {arg}"
    return {key: _in_frame(arg, frame)}, ""


def _in_frame(loc: dict[str, Any], frame: dict[str, Any]) -> dict[str, Any]:
    """``loc`` inside ``frame``: the outermost frame of its own frames, if it has any."""
    if isinstance(loc.get("frame"), dict):
        return {**loc, "frame": _in_frame(loc["frame"], frame)}
    return {**loc, "frame": frame}


def _first_failure(result: RunResult) -> str:
    for step in result.steps:
        if step.status in ("failed", "broken"):
            why = (step.error or result.message or "").splitlines()
            return f"step {step.index} ('{step.action}') {step.status}: {why[0] if why else ''}"
    return (result.message or result.status).splitlines()[0]


# How many typed values are tried as {unique}, one at a time, when a workflow passes once and
# then fails: each try costs --runs more runs.
MAX_ONCE_TRIES = 3


@dataclass
class _Derived:
    composed: Composed
    statuses: list[bool] = field(default_factory=list)  # per run: passed
    failure: str = ""
    failed_step: int = 0  # 1-based, of the first run that failed


def _one_line(text: str) -> str:
    return " ".join(text.split())[:300]


def _typed_before(composed: Composed, failed_step: int) -> list[str]:
    """The values typed in the workflow (not secrets, not already unique) up to its failing step,
    the last typed first: the one a site refusing a duplicate refused is the one just submitted."""
    values: list[str] = []
    for i, group in enumerate(composed.groups, 1):
        if failed_step and i > failed_step:
            break
        for step in group:
            if step.kind in TYPED and step.value in composed.typed.params.values() and step.value not in values:
                values.append(step.value)
    return values[::-1]


class Importer:
    def __init__(self, options: ImportOptions, browser: Callable[[], Browser], run: RunFn, say: Say = print) -> None:
        self.opt = options
        self.browser = browser
        self.run = run
        self.say = say
        self._origins: tuple[str, ...] = ()  # the origins the runs of the source being imported may open
        self._aborted: Counter[str] = Counter()  # the pages' own requests elsewhere, aborted: per origin

    def import_all(self, sources: list[Path]) -> Summary:
        summary = Summary()
        for source in sources:
            for result in self.import_source(source):
                summary.results.append(result)
                self.say(result.line)
        return summary

    def import_source(self, source: Path) -> list[Imported]:
        """What becomes of each test of one source (one line each), or the one line saying why
        none can be read; a test that cannot be imported never stops the others."""
        try:
            demos = read_source(source)
        except Exception as exc:  # noqa: BLE001 - sorted by _refused: one line, never a traceback
            return [self._refused(source, exc)]
        out = []
        for n, demo in enumerate(demos):
            result = self.import_one(source, demo)
            if n == 0 and demo.remarks:
                result.line += "".join(f"\n  {one_line(r)}" for r in demo.remarks)
            out.append(result)
        return out

    def import_one(self, source: Path, demo: Demonstration | None = None) -> Imported:
        """What becomes of one source (or one of its tests); whatever it holds, one line (never a
        traceback): a source that breaks a reader in a way nobody foresaw is refused like any
        unreadable one."""
        try:
            return self._import_one(source, demo if demo is not None else read_source(source)[0])
        except Exception as exc:  # noqa: BLE001 - sorted by _refused: one line, never a traceback
            return self._refused(source, exc, demo)

    @staticmethod
    def _refused(source: Path, exc: Exception, demo: Demonstration | None = None) -> Imported:
        named = demo.source if demo is not None and demo.source != str(source) else str(source)
        if isinstance(exc, UnreadableInput):
            text = one_line(str(exc))
            if named != str(source) and text.startswith(str(source)):
                text = named + text[len(str(source)) :]
            return Imported(named, "unreadable", f"cannot import {text}")
        if isinstance(exc, OSError):  # the source unreadable, or the output folder unwritable
            why = one_line(f"{exc.strerror or exc.__class__.__name__}: {exc.filename or source}")
            return Imported(named, "unreadable", f"cannot import {named}: {why}")
        # Anything else (a reader's bug, memory run out on a hostile source): this source's line,
        # and the next sources are still imported.
        why = one_line(f"{exc.__class__.__name__}: {exc}")[:200]
        return Imported(named, "unreadable", f"cannot import {named}: this release cannot read it ({why})")

    def _import_one(self, source: Path, demo: Demonstration) -> Imported:
        if demo.refused:
            raise UnreadableInput(f"{source}: {demo.refused}")
        limits.check_demonstration(source, demo)
        named = demo.source if demo.source.startswith(str(source)) else str(source)
        if demo.failed:
            return Imported(named, "skipped", f"skipped {named}: {demo.failed} (a failure is no demonstration)")
        if not demo.start_url:
            said = demo.unexpressed_count()
            why = f" ({said} command{'' if said == 1 else 's'} not imported)" if said else ""
            what = "it never opens a page" if demo.steps else "it does nothing the format can say"
            return Imported(named, "unreadable", f"cannot import {named}: {what}{why}")
        target = self.opt.output / (self.opt.file_name or file_name(demo.title))
        if target.exists() and not self.opt.force:
            return Imported(named, "exists", f"not imported {named}: {target} exists (--force replaces it)")
        return self._import(source, demo, target)

    def _import(self, source: Path, demo: Demonstration, target: Path) -> Imported:
        # The files it uploads, beside the workflow before anything runs it; taken away again when
        # the source is refused (nothing is written for it).
        created = files.copy(files.plan(source, demo, self.opt.output, force=self.opt.force))
        try:
            return self._import_copied(source, demo, target)
        except BaseException:
            files.remove(created)
            raise

    def _import_copied(self, source: Path, demo: Demonstration, target: Path) -> Imported:
        # A test of a project is named by the project and the test.
        source = Path(demo.source) if demo.source.startswith(str(source)) else source
        origin = site_origin(demo, self.opt.base_url)
        self._origins = visited_origins(demo, self.opt.base_url)
        self._aborted = Counter()
        selectors, facts, complete = self._targets(demo)
        runs = 0
        composed = compose(demo, selectors, facts, self.opt.base_url)
        if self.opt.derive and not complete:
            # The source's selectors alone: find each element on the live page (run 1 of runs + 1).
            resolver = Resolver(composed.groups, composed.first)
            result = self._run(composed, self._loaded(source, composed, target), resolver, origin)
            runs += 1
            self._site_up(source, result)
            for (i, j), (person, fact, _) in resolver.found.items():
                step = composed.groups[i][j]
                n = next(k for k, s in enumerate(demo.steps) if s is step)  # the same object: steps may be equal
                if step.target is not None:
                    if step.kind == "extract" and person and "text" in to_loc(person):
                        person = None  # a value read from an element found by that very text says nothing
                    selectors[n] = person_selectors(person, step.target.selectors)
                    facts[n] = fact
            for step, index, check in resolver.checks:
                step.checks[index] = check
            if resolver.frames:
                into_frames(demo, selectors, facts, resolver.frames)
            composed = compose(demo, selectors, facts, self.opt.base_url)
        failure = ""
        if self.opt.derive:
            composed, failure, derived_runs = self._derive(source, demo, composed, selectors, facts, target, origin)
            runs += derived_runs
        written = self._written(source, composed, target)  # the file as written, checked as the runner reads it
        write(target, written)
        aborted = dict(self._aborted)
        line = self._line(target, composed, runs) + aborted_words(aborted, ", ")
        if failure:
            line = f"{line}\n  does not pass on the site: {failure}"
        return Imported(str(source), "failed" if failure else "written", line, target, composed, runs, aborted)

    def _derive(
        self,
        source: Path,
        demo: Demonstration,
        composed: Composed,
        selectors: list[list[str]],
        facts: list[dict[str, str]],
        target: Path,
        origin: str,
    ) -> tuple[Composed, str, int]:
        """Run the workflow ``runs`` times and keep the checks that held in each; when it passed
        its first run and failed a later one, try again with each value it typed (the one typed
        last before the failing step first) as ``{unique}``: a value the site accepts once (a
        name it refuses the second time) is kept so when that passes every run.
        (the workflow, why it did not pass or "", the runs made)"""
        outcome = self._derive_runs(source, composed, target, origin)
        runs = len(outcome.statuses)
        if not outcome.failure:
            return outcome.composed, outcome.failure, runs
        # A first run that fails may have met a value the source's own run used (a record the
        # traced test made): each try then stops at its first failing run, so a workflow that
        # fails for another reason costs one more run per value tried, not --runs.
        first_failed = not outcome.statuses[0]
        once = list(composed.typed.once)
        for value in _typed_before(composed, outcome.failed_step)[:MAX_ONCE_TRIES]:
            tried = compose(demo, selectors, facts, self.opt.base_url, once=(*once, value))
            retry = self._derive_runs(source, tried, target, origin, stop_early=first_failed)
            runs += len(retry.statuses)
            if not retry.failure:
                passed = len(retry.statuses)
                before = "" if first_failed else "run 1 passed, "
                used = ", the source's own run had used it" if first_failed else ""
                retry.composed.once_found[value] = (
                    f"{before}{_one_line(outcome.failure)}{used}; then {passed} of {passed} passed"
                )
                return retry.composed, "", runs
        return outcome.composed, outcome.failure, runs

    def _derive_runs(
        self, source: Path, composed: Composed, target: Path, origin: str, stop_early: bool = False
    ) -> _Derived:
        """``runs`` runs of the workflow deriving its checks; ``stop_early``: none after one failed."""
        loaded = self._loaded(source, composed, target)  # the same workflow for every derivation run
        deriver = Deriver(composed, composed.typed.params, origin, list(composed.typed.secrets.values()))
        out = _Derived(composed)
        for n in range(self.opt.runs):
            unique = new_unique()
            deriver.start_run(unique)
            result = self._run(composed, loaded, deriver, origin, unique)
            if n == 0:
                self._site_up(source, result)
            ok = result.status in ("passed", "recovered", "healed")
            out.statuses.append(ok)
            if not ok and not out.failure:
                out.failure = f"run {n + 1} of {self.opt.runs}: {_first_failure(result)}"
                out.failed_step = next((s.index for s in result.steps if s.status in ("failed", "broken")), 0)
            if not ok and stop_early:
                break
        kept, composed.dropped = deriver.kept()
        composed.derived = add_derived(composed, kept)
        return out

    def _targets(self, demo: Demonstration) -> tuple[list[list[str]], list[dict[str, str]], bool]:
        if any(s.page_html for s in demo.steps):
            return _targets_from_snapshots(demo, self.browser())
        selectors = [list(s.target.selectors) if s.target else [] for s in demo.steps]
        complete = all(s.target is None and not s.check_sources for s in demo.steps)
        return selectors, [{} for _ in demo.steps], complete

    @classmethod
    def _loaded(cls, source: Path, composed: Composed, target: Path) -> LoadedWorkflow:
        return cls._written(source, composed, target).loaded

    @staticmethod
    def _written(source: Path, composed: Composed, target: Path) -> Written:
        try:
            return composed.written(target)
        except WorkflowFormatError as exc:  # a bug of ours: say it, write nothing
            why = " ".join(one_line(p) for p in exc.problems[:2])
            raise UnreadableInput(f"{source}: the workflow made from it cannot be written: {why}") from None

    def _run(self, composed: Composed, loaded: LoadedWorkflow, probe: Any, origin: str, unique: str = "") -> RunResult:
        # The secrets the demonstration typed, in this process's environment for the import's own
        # runs only (the file reads them from there as {secret.NAME}); as they were afterwards.
        with mock.patch.dict(os.environ, composed.typed.secrets):
            result = self.run(loaded, probe, unique or new_unique(), origin, self._origins)
        self._aborted.update(origin_of(url) or url for url in result.aborted_requests)
        return result

    @staticmethod
    def _site_up(source: Path, result: RunResult) -> None:
        if result.status == "broken":
            why = (result.message or "no verdict").splitlines()[0]
            what = "the site breaks the import's run" if why.startswith("navigated") else "the site cannot be reached"
            if "is not set" in why:  # the workflow reads the environment (a recording's ${env:NAME})
                what = "the workflow's run needs a value from the environment"
            raise UnreadableInput(f"{source}: {what} to derive checks ({why}); --no-derive writes what the source says")

    def _line(self, path: Path, c: Composed, runs: int) -> str:
        parts = [f"{c.step_count} steps", f"{c.source_checks} checks from the source"]
        if self.opt.derive:
            parts.append(f"{c.derived} derived ({c.dropped} dropped as unstable)")
        if c.unexpressed:
            parts.append(f"{len(c.unexpressed)} not imported (comments)")
        if c.caveats:
            parts.append(f"{len(c.caveats)} imported with a difference (comments)")
        if c.typed.secrets:
            parts.append(f"secrets to set: {', '.join(sorted(c.typed.secrets))}")
        if c.typed.uniques:
            parts.append(f"{len(c.typed.uniques)} unique value{'' if len(c.typed.uniques) == 1 else 's'}")
        for value, written in c.typed.once.items():
            found = c.once_found.get(value, "")
            parts.append(f"{value!r} accepted once by the site: written {written!r}" + (f" ({found})" if found else ""))
        if runs:
            parts.append(f"{runs} runs")
        return f"wrote {path}: {', '.join(parts)}"
