"""What one workflow run produced: the engine writes it, reporters only read it.

Plain dataclasses so the result can be written as JSON (``to_dict``) next to the artifacts and
read back by the report command or by ``reuseit heal``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from ..browser.pages import DialogRecord, DownloadRecord

Status = Literal["passed", "recovered", "failed", "broken"]
Phase = Literal["start", "pre", "action", "post", "extract", "outcome"]

# The challenge analysis' categories (ReUseIt §4.2): the one list. The model's answer schema, the
# analyst's prompt, Allure's categories.json and docs/workflow-format.md all follow it.
Category = Literal[
    "popup_or_overlay",
    "wrong_element_or_value",
    "action_incomplete",
    "page_not_ready",
    "site_changed",
    "product_defect",
    "ambiguous_instruction",
    "infrastructure",
]
CATEGORIES: tuple[Category, ...] = get_args(Category)


@dataclass
class Screenshot:
    """A screenshot kept in memory until the reporters decide where it goes."""

    label: str
    data: bytes = field(repr=False)
    mime: str = "image/jpeg"
    path: str | None = None  # set once written to the artifacts folder
    # Why regions were painted over ("secret: ...", "mask: ..."); never a secret's value.
    masked: list[str] = field(default_factory=list)


@dataclass
class Verdict:
    """One check judged once. ``ok`` is None when nobody could judge it (model-only, no model)."""

    check: str
    phase: Phase
    ok: bool | None
    source: Literal["dom", "model", "dom+model", "none"]
    explanation: str = ""
    expected: str = ""
    actual: str = ""
    screenshot: Screenshot | None = None
    line: int = 0
    started: float = 0.0  # wall-clock seconds (time.time()): reports show when it happened
    ended: float = 0.0
    page: str = ""  # the page judged (which one, its title and url) when the run had several
    # A promoted check whose assertion failed while the model judged its words met: the assertion
    # is out of date, the page is not wrong. The check passes; the step counts as recovered.
    stale: bool = False


@dataclass
class ActionRecord:
    """One thing done to the page: an op, an agent action, or a fallback op."""

    description: str
    by: Literal["do", "agent", "fallback"]
    ok: bool
    error: str = ""
    locator: str = ""  # a Playwright locator that replays it (agent actions)
    message: str = ""  # the agent's own words
    started: float = 0.0
    ended: float = 0.0
    opened_page: bool = False  # the action opened a pop-up or tab, which became current (agent actions)


@dataclass
class Attempt:
    """One recovery attempt after a failed phase."""

    number: int
    phase: Phase
    fallback: str
    actions: list[ActionRecord] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    ok: bool = False
    note: str = ""
    screenshot: Screenshot | None = None
    started: float = 0.0
    ended: float = 0.0


@dataclass
class HealingSuggestion:
    """A ``do`` op that broke and the locator the agent used instead."""

    step: int
    op_index: int
    broken: str
    replacement: str
    line: int = 0


@dataclass
class ProvenEdit:
    """An edit of the workflow file that the failing run's comparison with its last pass proves,
    no model involved (engine/proven.py): ``reuseit heal`` shows it and, with ``--apply``, writes it.

    ``kind``: ``locator`` (the element an op used was renamed: ``old`` -> ``new``, LOC mappings as
    written, placeholders kept), ``fallback`` (a dialog new since the last pass covers the page:
    ``new`` is the fallback that dismisses it by its own button), or ``check`` (a check no longer
    holds: the possible regression, shown and never applied; ``old``/``new`` are what it expects
    and what the page shows)."""

    kind: Literal["locator", "fallback", "check"]
    file: str  # where the step is written: the workflow's file, or a file it uses
    step: int  # 1-based, among that file's steps
    line: int
    summary: str  # one line for a person: 'button "Add to cart" renamed "Add to basket"'
    cause: str  # what makes the same edit in two files one cause ("renamed|button|Add to cart|Add to basket")
    op_index: int = -1  # 0-based, for a locator edit
    old: Any = None
    new: Any = None
    digest: str = ""  # that file's fingerprint as the run loaded it (workflow/source.py)
    since: str = ""  # when the run last passed (ISO 8601)
    removed: list[str] = field(default_factory=list)  # the evidence: lines that left the page...
    added: list[str] = field(default_factory=list)  # ...and lines that appeared, since that pass
    # Every use (engine/uses.py): a rename edits each op that names the element the same way, in
    # the step's ``do`` (-1) or in fallback ``fallback`` of it; ``reached`` is False for the ones
    # the run never came to (a second click of the step, a later step, a file it uses).
    fallback: int = -1
    reached: bool = True
    base_url: str = ""  # the site the run used (``reuseit heal --verify`` runs against it)
    part: str = ""  # a locator edit of the op's own element (""), or of a drag's drop target ("to")


@dataclass
class StepResult:
    index: int  # 1-based, as users count steps
    action: str
    line: int
    status: Literal["passed", "recovered", "healed", "failed", "broken", "skipped"] = "skipped"
    pre: list[Verdict] = field(default_factory=list)
    actions: list[ActionRecord] = field(default_factory=list)
    post: list[Verdict] = field(default_factory=list)
    attempts: list[Attempt] = field(default_factory=list)
    extracted: dict[str, str] = field(default_factory=dict)
    before: Screenshot | None = None
    after: Screenshot | None = None
    failed_phase: Phase | None = None
    error: str = ""
    duration: float = 0.0
    started: float = 0.0
    ended: float = 0.0
    action_started: float = 0.0  # the action and its screenshots, between the pre and post checks
    action_ended: float = 0.0
    # Regions painted over in this step's screenshots (the agent's included), and why.
    masked: list[str] = field(default_factory=list)
    dialogs: list[DialogRecord] = field(default_factory=list)  # shown during the step, with the answer
    page: str = ""  # the current page when the step ended (set when the run opened more than one)
    # A step that came from a ``use``d workflow: the use chain (reporters nest it) and its file.
    group: str = ""
    group_id: str = ""  # the same file used twice makes two groups
    file: str = ""  # "" = the run's own file
    # The page once the step was over (a failed one: as the run gave up on it), as its
    # accessibility tree saw it (browser/aria.py: masked, bounded); "" when not taken. Nightly
    # monitoring keeps a passing run's and compares a later failure's with them.
    page_url: str = ""
    page_title: str = ""
    page_aria: str = ""


@dataclass
class Analysis:
    """The challenge analysis of an unrecoverable failure (ReUseIt §4.2)."""

    where: str
    why: str
    what: str
    guidance: list[str]
    category: Category
    source: Literal["observed", "model"] = "observed"


@dataclass
class ModelUsage:
    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0

    def add(self, other: ModelUsage) -> None:
        for f in dataclasses.fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))


@dataclass
class RunResult:
    workflow: str
    file: str
    line: int
    variation: str
    kind: str
    task: str
    params: dict[str, str]
    total_steps: int = 0
    status: Status = "passed"
    healed: bool = False
    typed_secret: bool = False
    steps: list[StepResult] = field(default_factory=list)
    outcome: list[Verdict] = field(default_factory=list)
    not_judged: list[Verdict] = field(default_factory=list)
    healing: list[HealingSuggestion] = field(default_factory=list)
    extracted: dict[str, str] = field(default_factory=dict)
    blocked_navigation: list[str] = field(default_factory=list)
    # Requests the page made by itself to an origin a fenced run may not open (the import's own
    # runs): aborted, never sent; the run went on without them.
    aborted_requests: list[str] = field(default_factory=list)
    analysis: Analysis | None = None
    message: str = ""
    failed_step: int | None = None
    failed_phase: Phase | None = None
    duration: float = 0.0
    start_url: str = ""
    final_url: str = ""
    final_title: str = ""
    # A failed run whose recovery the browser or the model cut short says so here (the verdict stays failed).
    infrastructure: str = ""
    # The machine whose browser ran it, when not this one (a Selenium Grid node's address).
    browser_host: str = ""
    started: float = 0.0  # wall clock, like every started/ended in the result
    ended: float = 0.0
    usage: ModelUsage = field(default_factory=ModelUsage)
    artifacts_dir: str | None = None
    trace: str | None = None
    trace_withheld: str = ""  # why no trace was kept although one was asked for
    masked: list[str] = field(default_factory=list)  # every step's and the outcome's, each once
    downloads: list[DownloadRecord] = field(default_factory=list)
    pages: list[str] = field(default_factory=list)  # every page of the run in open order (urls)
    unvisited_pages: list[str] = field(default_factory=list)  # opened, never switched to (urls)
    # The page once start_url opened, as StepResult.page_* (the page before step 1).
    start_page_url: str = ""
    start_page_title: str = ""
    start_page_aria: str = ""
    # A failed or broken run of a test that passed before: the failing step's page now against the
    # same step's when the run last passed (browser.aria.compare: "removed", "added", "url" and
    # "title" as [then, now]; "since": when it passed, ISO 8601). None: no such page to compare.
    changed: dict[str, Any] | None = None
    # That last pass's screenshot of the same step, when it kept one (its file may be gone since:
    # the picture is held here).
    last_pass_screenshot: Screenshot | None = None
    # What that comparison proves the file should say now (engine/proven.py); masked like the rest.
    proven: list[ProvenEdit] = field(default_factory=list)

    @property
    def recovered(self) -> bool:
        return self.status == "passed" and any(s.status in ("recovered", "healed") for s in self.steps)

    @property
    def label(self) -> str:
        """passed / recovered / healed / failed / broken: what the summary counts."""
        if self.status == "passed" and self.healed:
            return "healed"
        if self.status == "passed" and self.recovered:
            return "recovered"
        return self.status

    def screenshots(self) -> list[Screenshot]:
        shots: list[Screenshot] = []
        for step in self.steps:
            for shot in (step.before, step.after):
                if shot is not None:
                    shots.append(shot)
            for verdict in step.pre + step.post:
                if verdict.screenshot is not None:
                    shots.append(verdict.screenshot)
            for att in step.attempts:
                if att.screenshot is not None:
                    shots.append(att.screenshot)
                shots.extend(v.screenshot for v in att.verdicts if v.screenshot is not None)
        shots.extend(v.screenshot for v in self.outcome if v.screenshot is not None)
        # The same picture may be referenced twice (a check judged on the step's after-shot).
        unique: dict[int, Screenshot] = {}
        for s in shots:
            unique.setdefault(id(s), s)
        return list(unique.values())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form; screenshots appear by path only, never as bytes."""

        def clean(obj: Any) -> Any:
            if isinstance(obj, Screenshot):
                return {"label": obj.label, "path": obj.path, "masked": list(obj.masked)}
            if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
                return {f.name: clean(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
            if isinstance(obj, list):
                return [clean(x) for x in obj]
            if isinstance(obj, dict):
                return {k: clean(v) for k, v in obj.items()}
            return obj

        out = clean(self)
        out["label"] = self.label
        return out
