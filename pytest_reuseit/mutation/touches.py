"""What a clean run touched, recorded through the engine's probe: the element each ``do`` op acted
on, what each DOM check read (and the text it found), the requests the page made, storage writes,
form submissions, and the page before and after each step's action (for suggested checks).

Mutants are made only from these, so a fault lands where a workflow looks, as Stryker's per-test
coverage runs a mutant only against the tests that reach it.

What is recorded depends on the workflow and the site, not on how fast the machine ran them: a
request belongs to the step during which the page made it (not the one during which its answer
came), and counts whether or not its answer came before the run ended (a fetch that a click's
navigation cut short is still one the page makes); an element is described as long as its op would
wait for it. On a busy machine the clean run takes longer, and makes the same mutants.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, Request, Response

from ..browser.aria import page_snapshot
from ..engine.ports import Locate
from ..workflow.checks import Check
from ..workflow.loader import LoadedWorkflow
from ..workflow.locators import Locator
from ..workflow.ops import Op

log = logging.getLogger(__name__)

# An element's address in its document (a CSS path): how a clean run names a target, and what a
# mutant's page-side matcher (hold.py) falls back on to find it again after a re-render.
CSS_PATH = r"""e => {
  const path = [];
  for (let n = e; n && n.nodeType === 1 && n !== document.documentElement; n = n.parentElement) {
    let part = n.localName;
    if (n.id) { path.unshift(part + '#' + CSS.escape(n.id)); break; }
    const same = n.parentElement ? [...n.parentElement.children].filter(c => c.localName === n.localName) : [];
    if (same.length > 1) part += ':nth-of-type(' + (same.indexOf(n) + 1) + ')';
    path.unshift(part);
  }
  return path.join(' > ');
}"""

# A short description of an element, computed in the page: enough to tell two targets apart
# (a CSS path), to know what an operator can do with it (tag, href, form) and to suggest a check.
FINGERPRINT = (
    r"""e => {
  const css = (CSS_PATH)(e);
  // textContent, as the DOM assertions read it (innerText would carry CSS text-transform).
  const text = (e.textContent || e.value || e.getAttribute('aria-label') || '').replace(/\s+/g, ' ').trim();
  return {tag: e.localName, css, href: e.getAttribute('href') || '',
          form: !!(e.form || e.closest('form')), type: e.getAttribute('type') || '', text: text.slice(0, 200)};
}"""
).replace("CSS_PATH", CSS_PATH)

# Pages write storage by property too (``localStorage[key] = value``), which no prototype method
# sees: each storage is put behind a proxy that turns those writes into ``setItem`` calls, so
# recording (and dropping) writes only has to replace ``setItem``.
STORAGE_PROXY = """for (const name of ['localStorage', 'sessionStorage']) {
    let real; try { real = window[name]; } catch (e) { continue; }
    const proxy = new Proxy(real, {
      get: (t, k) => { const v = t[k]; return typeof v === 'function' ? v.bind(t) : v; },
      set: (t, k, v) => { t.setItem(k, v); return true; },
    });
    try { Object.defineProperty(window, name, {get: () => proxy, configurable: true}); } catch (e) {}
  }"""

# Storage writes and form submissions reach the recorder through a binding.
_BINDING = "__reuseitTouched"
_RECORD_SCRIPT = """(() => {
  const tell = (kind, detail) => { try { window.BINDING(kind, detail); } catch (e) {} };
  const set = Storage.prototype.setItem;
  Storage.prototype.setItem = function (k, v) { tell('storage', String(k)); return set.call(this, k, v); };
  STORAGE_PROXY
  window.addEventListener('submit', ev => tell('submit', (ev.target && ev.target.action) || ''), true);
})();""".replace("BINDING", _BINDING).replace("STORAGE_PROXY", STORAGE_PROXY)

# Element checks whose locator a text fault can reach; url and title read the page itself.
ELEMENT_KEYS = ("visible", "hidden", "enabled", "disabled", "checked", "unchecked", "text", "value", "count")
_TEXT_CHARS = 4000


@dataclass
class OpTouch:
    step: int
    index: int
    op: str  # the op's kind: click, fill, ...
    locator: str  # as the workflow writes it (described)
    line: int
    element: dict[str, Any] = field(default_factory=dict)  # FINGERPRINT's answer; {} when unknown
    loc: dict[str, Any] = field(default_factory=dict)  # the LOC as the file writes it
    page: str = ""  # the page's address without its query: where the element is


@dataclass
class CheckTouch:
    step: int | None  # None: an outcome check
    phase: str
    index: int  # the check's index in its phase
    expect_index: int  # which mapping of the check's expect list
    key: str  # visible, text, count, url, title ...
    locator: str
    line: int
    expected: str = ""  # what the check compares with (equals/contains/matches), as written
    matcher: str = ""  # how it compares: equals, contains, matches; a count: equals, or min/max
    count: int | None = None  # a count check: how many elements the clean run showed
    text: str = ""  # what the element (or the title) showed once the step passed
    element: dict[str, Any] = field(default_factory=dict)
    loc: dict[str, Any] = field(default_factory=dict)  # the LOC as the file writes it
    page: str = ""


@dataclass
class RequestTouch:
    step: int | None
    method: str
    url: str
    resource: str  # document, xhr, fetch
    status: int  # 0: no answer came while the run watched (a navigation cut it short)
    json: bool


@dataclass
class StepState:
    step: int
    line: int
    action: str
    url_before: str = ""
    url_after: str = ""
    text_before: str = ""
    text_after: str = ""
    aria: str = ""  # the page as its accessibility tree saw it once the step passed


@dataclass
class RunTouches:
    """One clean run: its verdict and what it touched."""

    nodeid: str
    file: str
    variation: str
    status: str = ""
    failed_step: int | None = None
    duration: float = 0.0
    # Per step, in order: the seconds each of its ops and checks needed, and its longest wait
    # (waits.needs), and the fetch/XHR requests it made; what a mutant's run may wait there (waits.py).
    step_needs: list[dict[str, Any]] = field(default_factory=list)
    step_fetches: list[int] = field(default_factory=list)
    start_url: str = ""
    ops: list[OpTouch] = field(default_factory=list)
    checks: list[CheckTouch] = field(default_factory=list)
    requests: list[RequestTouch] = field(default_factory=list)
    storage: list[int | None] = field(default_factory=list)  # the steps that wrote storage
    submits: list[tuple[int | None, int | None]] = field(default_factory=list)  # (step, op index)
    steps: list[StepState] = field(default_factory=list)
    ignore: list[dict[str, Any]] = field(default_factory=list)  # the file's ignore rules (ignore.Rule's)

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunTouches:
        run = cls(**{k: v for k, v in data.items() if k not in ("ops", "checks", "requests", "steps", "submits")})
        run.ops = [OpTouch(**o) for o in data.get("ops", [])]
        run.checks = [CheckTouch(**c) for c in data.get("checks", [])]
        run.requests = [RequestTouch(**r) for r in data.get("requests", [])]
        run.steps = [StepState(**s) for s in data.get("steps", [])]
        run.submits = [(s[0], s[1]) for s in data.get("submits", [])]
        return run

    def step_state(self, step: int | None) -> StepState | None:
        return next((s for s in self.steps if s.step == step), None)


def save(run: RunTouches, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(run.to_json(), indent=1), encoding="utf-8")
    tmp.replace(path)  # a reader polling the folder never sees half a file


def load_all(folder: Path) -> list[RunTouches]:
    return [RunTouches.from_json(json.loads(p.read_text(encoding="utf-8"))) for p in sorted(folder.glob("*.json"))]


def _matcher(arg: Any) -> str:
    for name in ("equals", "contains", "matches"):
        value = getattr(arg, name, None)
        if isinstance(value, str):
            return value
    return ""


def _matcher_kind(arg: Any) -> str:
    """How a check compares: ``equals`` (exact), ``contains``, ``matches``; a count ``equals`` or
    ``min/max``; a url given as a bare string is ``contains``."""
    if isinstance(arg, str):
        return "contains"
    for name in ("equals", "contains", "matches"):
        if getattr(arg, name, None) is not None:
            return name
    if getattr(arg, "min", None) is not None or getattr(arg, "max", None) is not None:
        return "min/max"
    return ""


def aria_of(page: Page) -> str:
    """The page's ARIA snapshot (password fields hidden), bounded; empty when it cannot be read.
    What ``:hover`` rules show is in it wherever the pointer rests: it is compared with other
    sessions' (``--incremental``) and with mutant runs' (a request fault's visible effect)."""
    return page_snapshot(page, lambda text: text, hover_shown=True).aria


def _address(page: Page) -> str:
    """Where an element lives: the page's address without query or fragment (one element of one
    page reached by several workflows is one thing to break)."""
    u = urlsplit(page.url)
    return f"{u.scheme}://{u.netloc}{u.path}"


def _page_text(page: Page) -> str:
    try:
        return str(page.evaluate("() => document.body ? document.body.innerText : ''"))[:_TEXT_CHARS]
    except PlaywrightError:
        return ""


class Recorder:
    """The probe of a clean run. Never raises: recording must not change the run's verdict."""

    def __init__(self, loaded: LoadedWorkflow, run: RunTouches) -> None:
        self.loaded = loaded
        self.run = run
        self._step: int | None = None
        self._op: int | None = None
        self._seen_checks: set[tuple[int | None, str, int]] = set()
        self._locate: Locate | None = None  # the engine's, kept to read check targets at a step's end
        self._made: dict[Request, RequestTouch] = {}  # each request the page made, and its touch

    # ------------------------------------------------------------------ probe

    def start(self, page: Page) -> None:
        context = page.context
        try:
            context.expose_binding(_BINDING, self._touched)
            context.add_init_script(_RECORD_SCRIPT)
        except PlaywrightError as exc:
            log.info("cannot record storage and submissions: %s", exc)
        context.on("request", self._request)
        context.on("response", self._response)

    def before_op(self, page: Page, step: int, index: int, op: Op, locate: Locate) -> None:
        self._step, self._op = step, index
        if any(o.step == step and o.index == index for o in self.run.ops):
            return  # a redo: already recorded
        arg = op.arg
        touch = OpTouch(
            step=step,
            index=index,
            op=op.kind,
            locator=arg.plain().describe() if isinstance(arg, Locator) else str(arg)[:200],
            line=self.loaded.source.line("steps", step, "do", index),
        )
        if isinstance(arg, Locator):
            touch.loc = arg.plain().model_dump(exclude_none=True, mode="json")
            step_s = self.loaded.workflow.steps[step].action_timeout or self.loaded.workflow.settings.action_timeout
            # As long as the op itself would wait for it: an element a loaded machine draws late is
            # still described (and so merged with the same element of other runs), not left out.
            touch.element = self._fingerprint(locate(arg.plain()), (op.timeout or step_s) * 1000)
            touch.page = _address(page)
        self.run.ops.append(touch)

    def before_check(self, page: Page, step: int | None, phase: str, index: int, check: Check, locate: Locate) -> None:
        self._locate = locate
        if (step, phase, index) in self._seen_checks or check.expect is None:
            return
        self._seen_checks.add((step, phase, index))
        path: tuple[str | int, ...] = ("steps", step, phase, index) if step is not None else ("outcome", index)
        for n, exp in enumerate(check.expect):
            for key, arg in exp.items():
                if key not in (*ELEMENT_KEYS, "url", "title"):
                    continue
                self.run.checks.append(
                    CheckTouch(
                        step=step,
                        phase=phase,
                        index=index,
                        expect_index=n,
                        key=key,
                        locator=arg.plain().describe() if isinstance(arg, Locator) else key,
                        line=self.loaded.source.line(*path),
                        expected=_matcher(arg),
                        matcher=_matcher_kind(arg),
                        loc=arg.plain().model_dump(exclude_none=True, mode="json") if isinstance(arg, Locator) else {},
                    )
                )

    def action(self, page: Page, step: int, when: str) -> None:
        self._step = step
        state = self.run.step_state(step)
        if state is None:
            state = StepState(step, self.loaded.source.line("steps", step), self.loaded.workflow.steps[step].action)
            self.run.steps.append(state)
        if when == "before":
            state.url_before, state.text_before = page.url, _page_text(page)
        else:
            state.url_after, state.text_after = page.url, _page_text(page)

    def step_end(self, page: Page, step: int | None) -> None:
        """The checks passed: read what their elements show now (the text a fault will change)."""
        state = self.run.step_state(step) if step is not None else None
        if state is not None:
            state.aria = aria_of(page)  # what a request's fault that changed the page would change
        for touch in self.run.checks:
            if touch.step != step or touch.text or touch.element:
                continue
            if touch.key == "title":
                try:
                    touch.text = page.title()
                except PlaywrightError:
                    pass
            elif touch.key in ELEMENT_KEYS:
                self._read_check_target(page, touch)

    # ------------------------------------------------------------------ helpers

    def _read_check_target(self, page: Page, touch: CheckTouch) -> None:
        check = self._check_of(touch)
        if check is None or check.expect is None:
            return
        arg = dict(check.expect[touch.expect_index].items()).get(touch.key)
        if not isinstance(arg, Locator):
            return
        if self._locate is None:
            return
        try:
            loc = self._locate(arg.plain())
            target = loc.last if touch.key == "count" else loc.first
            if touch.key == "hidden" or target.count() == 0:
                return  # nothing shown to change: no wait for an element that is meant to be absent
            if touch.key == "count":
                touch.count = loc.count()
            touch.element = self._fingerprint(target, self._check_ms(touch, check))
            touch.text = str(touch.element.get("text", "")) if touch.element else ""
            touch.page = _address(page)
        except PlaywrightError:
            pass

    def _check_of(self, touch: CheckTouch) -> Check | None:
        wf = self.loaded.workflow
        if touch.step is None:
            checks = wf.outcome
        else:
            step = wf.steps[touch.step]
            checks = step.pre if touch.phase == "pre" else step.post
        return checks[touch.index] if touch.index < len(checks) else None

    def _check_ms(self, touch: CheckTouch, check: Check) -> float:
        """How long the check may wait, as the engine gives it (the check's, its step's, the file's)."""
        wf = self.loaded.workflow
        step_s = wf.steps[touch.step].check_timeout if touch.step is not None else None
        return (check.timeout or step_s or wf.settings.check_timeout) * 1000

    @staticmethod
    def _fingerprint(target: Any, timeout_ms: float) -> dict[str, Any]:
        try:
            found = target.first.evaluate(FINGERPRINT, timeout=timeout_ms)
            return dict(found) if isinstance(found, dict) else {}
        except PlaywrightError:
            return {}

    @property
    def _current(self) -> int:
        """The step a request or write belongs to: what the start page does belongs to step 1,
        the first that acts on it."""
        return self._step if self._step is not None else 0

    def _touched(self, source: Any, kind: str, detail: str) -> None:
        if kind == "storage" and self._current not in self.run.storage:
            self.run.storage.append(self._current)
        elif kind == "submit" and (self._step, self._op) not in self.run.submits:
            self.run.submits.append((self._step, self._op))

    def _request(self, request: Request) -> None:
        """A request belongs to the step during which the page made it, whenever its answer comes."""
        if request.resource_type not in ("document", "xhr", "fetch"):
            return
        if request.redirected_from is not None:
            # The browser follows a redirect itself: a route never sees the second request, so no
            # fault could be placed on it (the first one, a POST answered 302, is a target).
            return
        url = request.url
        if not self.run.start_url and request.resource_type == "document":
            self.run.start_url = url  # the start page: a fault there says nothing about a step
            return
        if urlsplit(url).scheme not in ("http", "https"):
            return
        touch = RequestTouch(self._current, request.method, url, request.resource_type, 0, False)
        self._made[request] = touch
        self.run.requests.append(touch)

    def _response(self, response: Response) -> None:
        touch = self._made.get(response.request)
        if touch is None:
            return
        try:
            kind = response.headers.get("content-type", "")
        except PlaywrightError:
            kind = ""
        touch.status, touch.json = response.status, "json" in kind
