"""Checks derived from what each step changed, kept only when they held in every run.

The new workflow is run ``runs`` times through the engine (the caller's ``RunFn``: the CLI runs
it as pytest would, in a fresh browser context each time). A probe looks at the page as the
nightly history does (``browser.aria.page_snapshot``: the accessibility tree, the URL, the title)
before each step's action and after its checks held. In the first run, what the step changed
becomes candidate checks: an element that appeared (``visible``), a named one that left
(``hidden``), a box that became checked, the URL, the title. Every run, the first included,
judges every candidate on its page right then; a candidate that failed in any run is dropped, and
one with numbers in it is tried again with the numbers as a pattern (a count of rows, an id in a
URL), kept in that form when that held every time.

When the source's selectors are not yet the ones a person writes (a Chrome recording, a codegen
file), a first run (``resolve``) asks Playwright's locator generator on the live page before each
step, trying the source's selectors in order: the import then costs ``runs + 1`` runs of each test.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from ..browser.aria import PageSnapshot, aria_line_check, diff_lines, page_snapshot
from ..browser.assertions import check_expect
from ..engine.ports import Locate
from ..engine.result import RunResult
from ..workflow.checks import Expect
from ..workflow.loader import LoadedWorkflow
from ..workflow.ops import Op
from ..workflow.placeholders import Values
from .compose import Composed, flow, relative
from .demo import DemoStep
from .locate import frame_selector, person_check, read_element, recorded_name
from .selectors import is_person_form, to_loc
from .values import distinctive

log = logging.getLogger(__name__)

# (the workflow, the probe, the value {unique} takes in this run, the site's origin, the origins
# the run may open: the source's and --base-url's) -> its result
RunFn = Callable[[LoadedWorkflow, Any, str, str, tuple[str, ...]], RunResult]
# Candidates per step: enough to say what the step did, few enough to read and to run.
MAX_PER_STEP = 4
# The key of the start page's candidates (pre checks of step 1), and how many: its headings.
START = -1
MAX_START = 3
# A candidate is judged on a page whose checks have just held: it is there or it is not.
JUDGE_MS = 400
# ...and once more this much later: a state the page passed through (a toolbar gone while an app
# re-renders, a spinner shown while it runs) is no check a later run can count on.
SETTLE_MS = 300


class Resolver:
    """The probe of the resolve run: before each step, the locator Playwright's generator gives
    for its element (the first of the source's selectors that finds exactly one), and what the
    element is; once a step's checks held, a person's locator for each element a check of the
    source found by its own selector (``DemoStep.check_sources``). Never raises."""

    def __init__(self, groups: list[list[DemoStep]], first: DemoStep | None = None) -> None:
        self.groups = groups
        self.first = first
        # (file step, op) -> (the generator's selector, the element's facts, the source selector that found it)
        self.found: dict[tuple[int, int], tuple[str | None, dict[str, str], str]] = {}
        # Checks found by a person's locator: (the demonstration step, the check's index, the check).
        self.checks: list[tuple[DemoStep, int, dict[str, Any]]] = []
        # A recording's target URL that is a frame of the page (not a pop-up) -> the <iframe>'s selector.
        self.frames: dict[str, str] = {}

    def start(self, page: Page) -> None:
        pass

    def _checks_of(self, page: Page, steps: list[DemoStep]) -> None:
        """A person's locator for each check of ``steps`` found by the source's own selector, on the
        page they held on: a check on the element a step acted on gets that step's locator when it
        finds the same element (the latest step first), else one found on the page."""
        known = [
            person
            for _, (person, _, _) in sorted(self.found.items(), reverse=True)
            if person and is_person_form(to_loc(person))
        ]
        for demo_step in steps:
            for n, check in enumerate(demo_step.checks):
                own = check_selector(check)
                sources = demo_step.check_sources.get(n) or ([own] if own else [])
                if not sources or any(s is demo_step and i == n for s, i, _ in self.checks):
                    continue
                selector, alternatives = sources[0], sources[1:]
                try:
                    located = person_check(check, selector, page, known, alternatives)
                except (PlaywrightError, ValueError, LookupError) as exc:  # the check stays as the source wrote it
                    log.debug("resolve: no person's locator for check %s: %s", check, exc)
                    continue
                if located != check:
                    self.checks.append((demo_step, n, located))

    def before_op(self, page: Page, step: int, index: int, op: Op, locate: Locate) -> None:
        if (step, index) in self.found or step >= len(self.groups) or index >= len(self.groups[step]):
            return
        demo_step = self.groups[step][index]
        if demo_step.kind == "switch" and demo_step.value.startswith(("http://", "https://")):
            # replay looks for a page of that URL, then for a frame of it (an out-of-process iframe
            # is a target of its own): a frame of this page by that URL is where the steps are.
            frame = frame_selector(page, demo_step.value)
            if frame is not None:
                self.frames[demo_step.value] = frame
            return
        target = demo_step.target
        if target is None:
            return
        # The recording's selectors in its order (replay races them: any that finds the element);
        # a name the recorder computed is the person's locator when it finds that same element.
        for selector in target.selectors:
            person, facts = read_element(page, selector)
            if facts:
                named = None if _says(person, target.names) else recorded_name(page, selector, target.names)
                if named is not None:
                    person = named
                    facts = {**facts, "label": json.loads(named[named.rindex("[name=") + 6 : -2])}
                self.found[(step, index)] = (person, facts, selector)
                return

    def before_check(self, *args: Any) -> None:
        pass

    def action(self, page: Page, step: int, when: str) -> None:
        if step == 0 and when == "before":  # the start page's checks held: step 1's pre checks
            self._checks_of(page, [self.first] if self.first is not None else [])

    def step_end(self, page: Page, step: int | None) -> None:
        if step is not None and step < len(self.groups):
            self._checks_of(page, self.groups[step])


def _says(person: str | None, names: list[str]) -> bool:
    """Whether the generator's locator already finds the element by a name the recorder computed."""
    loc = to_loc(person) if person else {}
    return any(loc.get(k) in names for k in ("name", "label", "placeholder", "text", "title", "alt"))


def check_selector(check: dict[str, Any]) -> str | None:
    """The source's selector a check finds its element(s) by, when it is one (CSS, XPath)."""
    ((key, arg),) = check.items()
    if key == "not" and isinstance(arg, dict) and len(arg) == 1:
        return check_selector(arg)
    if isinstance(arg, dict) and isinstance(arg.get("selector"), str) and "or" not in arg:
        return str(arg["selector"])
    return None


@dataclass
class Candidate:
    check: dict[str, Any]
    step: int
    held: int = 0
    # The same check with its numbers as a pattern, tried when the exact one fails.
    general: dict[str, Any] | None = None
    general_held: int = 0


@dataclass
class Deriver:
    """The probe of the derivation runs. Never raises: a look must not change a run's verdict."""

    composed: Composed
    render_params: Mapping[str, str]
    origin: str
    secrets: list[str]
    candidates: dict[int, list[Candidate]] = field(default_factory=dict)
    runs: int = 0
    unique: str = ""
    _before: dict[int, PageSnapshot] = field(default_factory=dict)

    def start_run(self, unique: str) -> None:
        self.runs += 1
        self.unique = unique
        self._before = {}

    def start(self, page: Page) -> None:
        pass

    def before_op(self, *args: Any) -> None:
        pass

    def before_check(self, *args: Any) -> None:
        pass

    def action(self, page: Page, step: int, when: str) -> None:
        if when != "before":
            return
        self._before[step] = self._look(page)
        if step == 0:
            # The start page, as it opened: its headings say the page is the one the steps need
            # (TodoMVC's, with the side panel a request fills), checked before step 1.
            if self.runs == 1:
                self.candidates[START] = self._start_candidates(self._before[0], page)
            self._judge(page, START)

    def step_end(self, page: Page, step: int | None) -> None:
        if step is None or step not in self._before:
            return
        if self.runs == 1:
            self.candidates[step] = self._new_candidates(step, self._before[step], self._look(page), page)
        self._judge(page, step, settle=True)

    def _judge(self, page: Page, step: int, *, settle: bool = False) -> None:
        """Each candidate of ``step`` on the page as it is; with ``settle``, again a moment later,
        and it held in this run only if it held both times."""
        try:
            values = Values(params={**self.render_params, "unique": self.unique}, builtins={"base_url": self.origin})
            held = [
                (c, self._holds(page, c.check, values), c.general is not None and self._holds(page, c.general, values))
                for c in self.candidates.get(step, [])
            ]
            if settle and any(exact or general for _, exact, general in held):
                page.wait_for_timeout(SETTLE_MS)
                held = [
                    (
                        c,
                        exact and self._holds(page, c.check, values),
                        general and c.general is not None and self._holds(page, c.general, values),
                    )
                    for c, exact, general in held
                ]
            for c, exact, general in held:
                c.held += int(bool(exact))
                c.general_held += int(bool(general))
        except PlaywrightError as exc:  # the page went away: these candidates did not hold here
            log.debug("derive: no look at step %s: %s", step + 1, exc)

    def _start_candidates(self, start: PageSnapshot, page: Page) -> list[Candidate]:
        found: list[dict[str, Any]] = []
        for line in start.aria.splitlines():
            loc = aria_line_check(line)
            if loc is not None and loc.get("role") == "heading" and _count(page, loc) == 1:
                found.append({"visible": {**{k: self._written(v) for k, v in loc.items()}, "exact": True}})
        existing = {repr(c.get("expect")) for c in self._file_checks(0, "pre")}
        return [Candidate(c, START) for c in found if repr(c) not in existing][:MAX_START]

    def _look(self, page: Page) -> PageSnapshot:
        return page_snapshot(page, self._mask)

    def _mask(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, "***")
        return text

    def _holds(self, page: Page, check: dict[str, Any], values: Values) -> int:
        try:
            exp = Expect.model_validate(check)
            return int(all(v.ok for v in check_expect(page, exp, values.render, JUDGE_MS)))
        except Exception as exc:  # a candidate that cannot even be judged did not hold
            log.debug("derive: candidate %s not judged: %s", check, exc)
            return 0

    def _written(self, text: str) -> str:
        out = self.composed.typed.in_text(text)
        if self.unique:
            out = out.replace(self.unique, "{unique}")
        return out

    def _new_candidates(self, step: int, before: PageSnapshot, after: PageSnapshot, page: Page) -> list[Candidate]:
        found: list[dict[str, Any]] = []
        if after.url and after.url != before.url:
            found.append({"url": {"equals": self._written_url(after.url)}})
        if after.title and after.title != before.title:
            found.append({"title": {"equals": self._written(after.title)}})
        removed, added = diff_lines(before.aria, after.aria)
        named = [c for c in map(aria_line_check, added) if c is not None]
        checked = [c for c in (_checked_line(line) for line in added) if c is not None]
        still = {(c.get("role"), c.get("name")) for c in named}
        gone = [
            c
            for c in map(aria_line_check, removed)
            if c is not None and "role" in c and (c.get("role"), c.get("name")) not in still
        ]
        boxes = {(c["role"], c["name"]) for c in checked}
        by_role = [c for c in named if "role" in c and (c["role"], c.get("name")) not in boxes]
        # What the step typed, shown on the page (a todo in the list), says most of what it did.
        typed = [v for v in self.composed.typed.params.values() if distinctive(v)]
        if self.unique:
            typed.append(self.unique)
        echoed = [c for c in named if "role" not in c and any(v in c["text"] for v in typed)]
        by_text = [c for c in named if "role" not in c and c not in echoed]
        order = (
            ("checked", checked),
            ("visible", echoed),
            ("visible", by_role),
            ("visible", by_text),
            ("hidden", gone),
        )
        for key, locs in order:
            for loc in locs:
                written = {k: self._written(v) if isinstance(v, str) else v for k, v in loc.items()}
                # Whole names and texts: "All" must not also find "Clear all".
                loc_written = {**written, "exact": True}
                if key == "visible" and _count(page, loc) > 1:
                    loc_written["nth"] = 0  # the same name twice (a link in a message and in the list): the first
                found.append({key: loc_written})
        seen: set[str] = set()
        out: list[Candidate] = []
        existing = {repr(c.get("expect")) for c in self._file_checks(step)}
        for check in found:
            text = repr(check)
            if text in seen or any(s in text for s in self.secrets if s):
                continue
            seen.add(text)
            if repr(check) in existing:
                continue
            out.append(Candidate(check, step, general=_general(check)))
            if len(out) >= MAX_PER_STEP:
                break
        return out

    def _written_url(self, url: str) -> str:
        rel = relative(url, self.origin, *self.composed.origins)
        if rel.startswith("{base_url}"):
            return "{base_url}" + self._written(rel[len("{base_url}") :])
        return self._written(url)

    def _file_checks(self, step: int, phase: str = "post") -> list[dict[str, Any]]:
        steps = self.composed.doc.get("steps") or []
        return list(steps[step].get(phase) or []) if step < len(steps) else []

    def kept(self) -> tuple[dict[int, list[tuple[dict[str, Any], str]]], int]:
        """Per step, the checks that held in every run with their comment; and how many were dropped."""
        out: dict[int, list[tuple[dict[str, Any], str]]] = {}
        dropped = 0
        for step, cands in sorted(self.candidates.items()):
            for c in cands:
                if c.held == self.runs:
                    where = "on the start page" if step == START else "after this step"
                    out.setdefault(step, []).append((c.check, f"derived: {where} in {c.held} of {self.runs} runs"))
                elif c.general is not None and c.general_held == self.runs:
                    out.setdefault(step, []).append(
                        (
                            c.general,
                            f"derived: after this step in {self.runs} of {self.runs} runs, its numbers differing",
                        )
                    )
                else:
                    dropped += 1
        return out, dropped


def _count(page: Page, loc: dict[str, Any]) -> int:
    """How many elements a candidate's locator finds on the page as it is (its text literal)."""
    try:
        if "role" in loc:
            return page.get_by_role(loc["role"], name=loc.get("name"), exact=True).count()
        return page.get_by_text(str(loc.get("text", "")), exact=True).count()
    except PlaywrightError:
        return 0


_CHECKED = re.compile(r'^- (checkbox|radio|switch|menuitemcheckbox) "((?:[^"\\]|\\.)+)".*\[checked\]')


def _checked_line(line: str) -> dict[str, Any] | None:
    m = _CHECKED.match(line)
    return {"role": m.group(1), "name": m.group(2)} if m else None


_NUMBER = re.compile(r"\d+")


def _general(check: dict[str, Any]) -> dict[str, Any] | None:
    """The check with each number in its text as ``\\d+`` (a ``matches`` pattern); None when it has none."""
    ((key, arg),) = check.items()
    if key in ("url", "title"):
        text = arg.get("equals", "")
        if not _NUMBER.search(text):
            return None
        return {key: {"matches": "^" + _pattern(text) + "$"}}
    if key == "visible" and "text" in arg and _NUMBER.search(arg["text"]):
        # Playwright's text selector with a regular expression: the text with any numbers.
        return {key: {"selector": "text=/^" + _pattern(arg["text"]).replace("/", "\\/") + "$/"}}
    return None


def _pattern(text: str) -> str:
    """``text`` as a regular expression with its numbers as ``\\d+``; placeholders left whole."""
    parts = re.split(r"(\{[A-Za-z_][\w.]*\})", text)
    return "".join(p if p.startswith("{") and p.endswith("}") else _NUMBER.sub(r"\\d+", re.escape(p)) for p in parts)


def add_derived(composed: Composed, kept: Mapping[int, list[tuple[dict[str, Any], str]]]) -> int:
    """Write the kept checks into the document, each with its comment; how many."""
    steps = composed.doc["steps"]
    n = 0
    for step, checks in kept.items():
        item = steps[0 if step == START else step]
        phase = "pre" if step == START else "post"
        post = item.get(phase)
        if post is None:
            post = CommentedSeq()
            keys = list(item.keys())
            after = "action" if phase == "pre" else "do"
            at = keys.index(after) + 1 if after in keys else len(keys)
            item.insert(at, phase, post)
        for check, comment in checks:
            entry = CommentedMap(expect=flow(check))
            entry.yaml_add_eol_comment(comment, "expect")
            post.append(entry)
            n += 1
    return n
