"""Mutation operators: one fault each, made from what a clean run touched, injected from the
browser side (routes, init scripts, a DOM change just before the op or check that reads the
element), never by editing the site.

Operators are registered here by name, as ops are in ``workflow/ops.py``: a suite adds its own
with :func:`register`. A *breaking* operator makes a fault a user would call a regression (a run
against it should fail); a *benign* one makes a change a user would not (a run should still pass).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator as PwLocator
from playwright.sync_api import Page, Route

from . import hold
from .touches import STORAGE_PROXY, CheckTouch, OpTouch, RunTouches

log = logging.getLogger(__name__)

Kind = Literal["breaking", "benign"]


@dataclass(frozen=True)
class Target:
    """Where a fault goes: an op (``step``, ``index``), a check (``step``, ``phase``, ``index``,
    ``expect_index``, ``key``), a request, the storage, or the whole page (benign faults)."""

    what: Literal["op", "check", "request", "storage", "page"]
    step: int | None
    line: int
    locator: str = ""  # what the workflow names it by (a LOC, "POST /api/todos", "localStorage")
    index: int = 0
    phase: str = ""
    expect_index: int = 0
    key: str = ""
    detail: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    def same_thing(self) -> str:
        """What two targets share when they are one thing (one element reached by two steps)."""
        # Without the port: each pytest process (each xdist worker) may serve a local site on its own.
        css = self.detail.get("css")
        if css:
            page = urlsplit(str(self.detail.get("page", "")))
            return f"element {page.hostname}{page.path} {css}"
        if self.what == "request":  # ids in the path are one endpoint (see _route)
            host = urlsplit(f"//{self.detail.get('host', '')}").hostname
            return f"request {host} {re.sub(r'[0-9]+', 'N', self.locator)}"
        return f"{self.what} {self.step} {self.phase} {self.index} {self.expect_index} {self.key} {self.locator}"

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(frozen=True)
class Operator:
    """``targets`` picks what it can change in a clean run; ``start`` runs when the mutant's run
    opens its page (routes, init scripts) and calls its last argument when the fault takes effect
    (a route that answered; a script installed); ``on_op`` just before the target op, with the element;
    ``on_check`` just before the target check, with its element (None for url and title).
    ``slows_s``: how much later, at most, the fault makes each fetch answer; a mutant's capped
    waits allow that much per fetch its step made (waits.py)."""

    name: str
    kind: Kind
    description: str
    targets: Callable[[RunTouches], list[Target]]
    start: Callable[[Page, Target, Callable[[], None]], None] | None = None
    on_op: Callable[[PwLocator, Target, float], None] | None = None
    on_check: Callable[[Page, PwLocator | None, Target, float], None] | None = None
    slows_s: float = 0.0
    # Its check fault is placed through hold.py: after the check, the run tells whether the
    # element the check read carried it (a run that read it without the fault is not applied).
    holds: bool = False
    # Its fault leaves a request unanswered for good: a page that waits for it waits out its whole
    # navigation budget (30 s by default) for an answer that cannot come, so the mutant's run gets
    # a navigation budget from its clean run's needs too (waits.py, HANG_MIN_S at least).
    hangs: bool = False


_OPERATORS: dict[str, Operator] = {}


def register(operator: Operator) -> Operator:
    """Add an operator (a suite's own, from a conftest or plugin); names are unique."""
    if operator.name in _OPERATORS:
        raise ValueError(f"a mutation operator named {operator.name!r} is already registered")
    _OPERATORS[operator.name] = operator
    return operator


def unregister(name: str) -> None:
    _OPERATORS.pop(name, None)


def get(name: str) -> Operator:
    return _OPERATORS[name]


def names() -> tuple[str, ...]:
    return tuple(_OPERATORS)


# --------------------------------------------------------------------------- targets


_CLICKS = ("click", "dblclick", "check", "uncheck", "download")
_INPUTS = ("fill", "type", "change", "press", "select")
_DRAGS = ("drag",)
_TEXT_KEYS = ("text", "value", "title")


def _op_target(t: OpTouch) -> Target:
    return Target(
        "op", t.step, t.line, t.locator, index=t.index, key=t.op, detail={**t.element, "loc": t.loc, "page": t.page}
    )


def _check_target(t: CheckTouch, **detail: Any) -> Target:
    return Target(
        "check",
        t.step,
        t.line,
        t.locator,
        index=t.index,
        phase=t.phase,
        expect_index=t.expect_index,
        key=t.key,
        detail={
            **t.element,
            "text": t.text,
            "expected": t.expected,
            "matcher": t.matcher,
            "count": t.count,
            "loc": t.loc,
            "page": t.page,
            **detail,
        },
    )


def _ops(run: RunTouches, kinds: tuple[str, ...] | None = None) -> list[Target]:
    return [_op_target(o) for o in run.ops if o.element and (kinds is None or o.op in kinds)]


def _removable(run: RunTouches) -> list[Target]:
    """Every element an op acted on, and every element a check wants present."""
    checks = [_check_target(c) for c in run.checks if c.key in ("visible", "enabled", "checked", "text", "value")]
    return _ops(run) + [c for c in checks if c.detail.get("css")]


def _links(run: RunTouches) -> list[Target]:
    """Links that lead somewhere by their address: one whose click a script handles (href "#",
    "javascript:") does the same wherever its address points, so changing it breaks nothing."""
    out = []
    for t in _ops(run, ("click",)):
        href = str(t.detail.get("href", ""))
        if t.detail.get("tag") == "a" and href and href != "#" and not href.startswith("javascript:"):
            out.append(t)
    return out


def _submits(run: RunTouches) -> list[Target]:
    out = []
    for step, index in run.submits:
        op = next((o for o in run.ops if o.step == step and o.index == index), None)
        if op is not None:
            out.append(Target("op", op.step, op.line, op.locator, index=op.index, key=op.op, detail={"form": True}))
    return out


def _numbers(run: RunTouches) -> list[Target]:
    """A count with an element to add one more of; a text with a number: the one the check expects
    where it names one (a check that reads part of a text is about that part), else the first."""
    out = []
    for c in run.checks:
        if c.key == "count" and c.element:
            out.append(_check_target(c))
        elif c.key in _TEXT_KEYS and re.search(r"\d", c.text):
            wanted = [n for n in re.findall(r"\d+", c.expected) if n in c.text]
            out.append(_check_target(c, word=wanted[0] if wanted else ""))
    return out


_WORD = re.compile(r"[A-Za-z]{3,}")


def _words(run: RunTouches) -> list[Target]:
    out = []
    for c in run.checks:
        if c.key not in _TEXT_KEYS or not c.text:
            continue
        wanted = [w for w in _WORD.findall(c.expected) if w in c.text]
        found = wanted or sorted(_WORD.findall(c.text), key=len, reverse=True)
        if found:
            out.append(_check_target(c, word=found[0]))
    return out


def _requests(json_only: bool = False) -> Callable[[RunTouches], list[Target]]:
    def targets(run: RunTouches) -> list[Target]:
        start = urlsplit(run.start_url)
        out = []
        for r in run.requests:
            u = urlsplit(r.url)
            if u.netloc != start.netloc or (json_only and not r.json) or r.status >= 400:
                continue
            if u.path == start.path:
                continue  # the start page itself: a fault there breaks the run before any step
            out.append(
                Target(
                    "request",
                    r.step,
                    0,
                    f"{r.method} {u.path}",
                    key=r.resource,
                    detail={"method": r.method, "host": u.netloc, "path": u.path},
                )
            )
        return out

    return targets


def _storage(run: RunTouches) -> list[Target]:
    return [Target("storage", run.storage[0], 0, "localStorage/sessionStorage")] if run.storage else []


def _page(run: RunTouches) -> list[Target]:
    return [Target("page", None, 1, "the whole page")]


# --------------------------------------------------------------------------- faults in the page

_CLICK_EVENTS = ["click", "dblclick", "mousedown", "mouseup", "pointerdown", "pointerup", "touchstart", "touchend"]
_INPUT_EVENTS = ["keydown", "keypress", "keyup", "beforeinput", "input", "change"]
# A drag starts on the element dragged: HTML5 drag and drop with dragstart (cancelled, no drag
# happens), the sortable lists built on the pointer with pointerdown/mousedown/touchstart.
_DRAG_EVENTS = ["dragstart", "pointerdown", "mousedown", "touchstart"]
_TITLE = """([mode, word]) => {
  const s = document.title;
  if (mode === 'number') { const m = s.match(/\\d+/); if (m) document.title = s.replace(m[0], String(Number(m[0]) + 1)); }
  else if (s.includes(word)) document.title = s.replace(word, word.split('').reverse().join(''));
}"""
_NO_STORAGE = "(() => { Storage.prototype.setItem = function () {}; " + STORAGE_PROXY + " })();"


def _held_op(fault: str, **extra: Any) -> Callable[[PwLocator, Target, float], None]:
    """An element fault placed on the op's element and kept there (hold.py): the page drawing
    the element again before the op acts gets it again."""

    def apply(loc: PwLocator, target: Target, timeout_ms: float) -> None:
        hold.place(loc, hold.spec(fault, target.detail.get("loc") or {}, **extra), timeout_ms)

    return apply


def _text_fault(mode: str) -> Callable[[Page, PwLocator | None, Target, float], None]:
    def apply(page: Page, loc: PwLocator | None, target: Target, timeout_ms: float) -> None:
        word = str(target.detail.get("word", ""))
        loc_spec = target.detail.get("loc") or {}
        if target.key == "title" or loc is None:
            page.evaluate(_TITLE, [mode, word])
        elif target.key == "count":
            hold.place(loc, hold.spec("count", loc_spec), timeout_ms, last=True)
        else:
            hold.place(loc, hold.spec("text", loc_spec, mode=mode, word=word), timeout_ms)

    return apply


def _remove_checked(page: Page, loc: PwLocator | None, target: Target, timeout_ms: float) -> None:
    if loc is not None:
        hold.place(loc, hold.spec("remove", target.detail.get("loc") or {}), timeout_ms)


def _route(answer: Literal["500", "empty", "never"]) -> Callable[[Page, Target, Callable[[], None]], None]:
    def start(page: Page, target: Target, hit: Callable[[], None]) -> None:
        # The host without its port: a site started per pytest session listens on a new port.
        host = urlsplit(f"//{target.detail['host']}").hostname
        path, method = target.detail["path"], target.detail["method"]

        # A number in the path is an id (/book/124/change/): the site may give the same row another
        # id in the mutant's run (seeded afresh, created again), so any number stands for it.
        wanted = re.compile("".join(r"\d+" if part.isdigit() else re.escape(part) for part in re.split(r"(\d+)", path)))

        def matches(url: str) -> bool:
            u = urlsplit(url)
            return u.hostname == host and wanted.fullmatch(u.path) is not None

        def handle(route: Route) -> None:
            if route.request.method != method:
                route.fallback()
                return
            hit()
            if answer == "500":
                route.fulfill(status=500, content_type="text/plain", body="Internal Server Error")
            elif answer == "empty":
                route.fulfill(status=200, content_type="application/json", body="[]")
            # "never": the request is left unanswered

        page.context.route(matches, handle)

    return start


def _init_script(script: str) -> Callable[[Page, Target, Callable[[], None]], None]:
    def start(page: Page, target: Target, hit: Callable[[], None]) -> None:
        page.context.add_init_script(script)
        hit()

    return start


# --------------------------------------------------------------------------- benign changes

_ON_READY = "(() => {{ const run = () => {{ {body} }}; if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', run); else run(); }})();"
_BANNER = _ON_READY.format(
    body="""
  if (window !== window.top || document.getElementById('reuseit-banner')) return;
  const bar = document.createElement('div');
  bar.id = 'reuseit-banner';
  bar.setAttribute('role', 'region');
  bar.setAttribute('aria-label', 'Cookie notice');
  // A notice, not a modal: the page beneath it still takes clicks (only its own button does
  // not), as a cookie bar that does not block the page. Pictures and text show it.
  bar.style.cssText = 'position:fixed;left:0;right:0;bottom:0;z-index:2147483000;padding:8px 16px;background:#222;color:#fff;font:14px sans-serif;display:flex;gap:12px;align-items:center;pointer-events:none';
  bar.textContent = 'This site uses cookies to remember your preferences. ';
  const ok = document.createElement('button');
  ok.textContent = 'Dismiss';
  ok.style.pointerEvents = 'auto';
  ok.addEventListener('click', () => bar.remove());
  bar.appendChild(ok);
  document.body.appendChild(bar);
"""
)
_LAYOUT = _ON_READY.format(
    body="const s = document.createElement('style'); s.textContent = 'body { margin-top: 48px !important; padding-left: 12px !important; }'; document.head.appendChild(s);"
)
_COLOURS = _ON_READY.format(
    body="const s = document.createElement('style'); s.textContent = 'html { filter: hue-rotate(150deg) saturate(1.4) !important; }'; document.head.appendChild(s);"
)
# Wraps the body's content in one more element (a layout refactor); not where moving nodes would
# reload a frame or drop the focus the page gave on load.
_WRAPPER = _ON_READY.format(
    body="""
  const b = document.body;
  if (!b || b.querySelector('iframe') || (document.activeElement && document.activeElement !== b)) return;
  const w = document.createElement('div');
  w.className = 'reuseit-wrapper';
  while (b.firstChild) w.appendChild(b.firstChild);
  b.appendChild(w);
"""
)
# Two sibling elements swapped, where neither holds anything a workflow touched (their CSS paths
# are given), no frame and no focus.
_REORDER = """(touched => {{ const run = () => {{
  const hit = el => touched.some(css => {{ try {{ const t = document.querySelector(css); return t && (el.contains(t) || t.contains(el)); }} catch (e) {{ return true; }} }});
  const free = el => !['SCRIPT', 'STYLE', 'LINK', 'TEMPLATE'].includes(el.tagName) && !el.querySelector('iframe') && !el.contains(document.activeElement) && !hit(el);
  for (const parent of document.body ? document.body.querySelectorAll('*') : []) {{
    const kids = [...parent.children].filter(free);
    if (kids.length >= 2 && !hit(parent.parentElement || parent)) {{ parent.insertBefore(kids[1], kids[0]); return; }}
  }}
}}; if (document.readyState === 'complete') run(); else window.addEventListener('load', run); }})({touched});"""
# Every fetch and XMLHttpRequest answered 300 to 800 ms later (the page's own scripts wait).
_SLOW = """(() => {
  const later = () => new Promise(r => setTimeout(r, 300 + Math.random() * 500));
  const f = window.fetch;
  if (f) window.fetch = (...a) => later().then(() => f.apply(window, a));
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...a) { later().then(() => send.apply(this, a)); };
})();"""


def _reorder(page: Page, target: Target, hit: Callable[[], None]) -> None:
    touched = target.detail.get("touched", [])
    page.context.add_init_script(_REORDER.format(touched=json.dumps(touched)))
    hit()


def _page_touched(run: RunTouches) -> list[Target]:
    css = sorted({str(o.element["css"]) for o in run.ops if o.element.get("css")})
    css += sorted({str(c.element["css"]) for c in run.checks if c.element.get("css")})
    return [Target("page", None, 1, "the whole page", detail={"touched": css})]


# --------------------------------------------------------------------------- the built-in operators

for _op in (
    Operator(
        "element_removed",
        "breaking",
        "the element is not on the page",
        _removable,
        on_op=_held_op("remove"),
        on_check=_remove_checked,
        holds=True,
    ),
    Operator(
        "not_clickable",
        "breaking",
        "the element shows but cannot be clicked (something invisible takes its clicks)",
        lambda run: _ops(run, _CLICKS),
        on_op=_held_op("pointer"),
    ),
    Operator(
        "click_ignored",
        "breaking",
        "a click on the element does nothing (its handler and default action never run)",
        lambda run: _ops(run, _CLICKS),
        on_op=_held_op("swallow", events=_CLICK_EVENTS),
    ),
    Operator(
        "input_ignored",
        "breaking",
        "typing or choosing in the element does nothing (its key and input handlers never run)",
        lambda run: _ops(run, _INPUTS),
        on_op=_held_op("swallow", events=_INPUT_EVENTS),
    ),
    Operator(
        "drag_ignored",
        "breaking",
        "dragging the element does nothing (its drag never starts)",
        lambda run: _ops(run, _DRAGS),
        on_op=_held_op("swallow", events=_DRAG_EVENTS),
    ),
    Operator(
        "link_elsewhere",
        "breaking",
        "the link leads to another page",
        _links,
        on_op=_held_op("elsewhere"),
    ),
    Operator(
        "submit_dropped",
        "breaking",
        "the form is not submitted",
        _submits,
        on_op=_held_op("nosubmit"),
    ),
    Operator(
        "number_off_by_one",
        "breaking",
        "a number in the checked text (or the number of elements) is one more",
        _numbers,
        on_check=_text_fault("number"),
        holds=True,
    ),
    Operator(
        "word_replaced",
        "breaking",
        "a word in the checked text is replaced",
        _words,
        on_check=_text_fault("word"),
        holds=True,
    ),
    Operator("request_500", "breaking", "the request answers HTTP 500", _requests(), start=_route("500")),
    Operator(
        "request_empty",
        "breaking",
        "the request answers an empty JSON list",
        _requests(json_only=True),
        start=_route("empty"),
    ),
    Operator("request_never", "breaking", "the request never answers", _requests(), start=_route("never"), hangs=True),
    Operator(
        "storage_dropped",
        "breaking",
        "writes to localStorage and sessionStorage are lost",
        _storage,
        start=_init_script(_NO_STORAGE),
    ),
    Operator(
        "banner",
        "benign",
        "a dismissible cookie notice over the bottom of the page (the page beneath still takes clicks)",
        _page,
        start=_init_script(_BANNER),
    ),
    Operator("layout_shift", "benign", "the layout moves down and right", _page, start=_init_script(_LAYOUT)),
    Operator("colours", "benign", "the colours change", _page, start=_init_script(_COLOURS)),
    Operator(
        "wrapper_added",
        "benign",
        "the page's content is wrapped in one more element",
        _page,
        start=_init_script(_WRAPPER),
    ),
    Operator(
        "reorder_unrelated",
        "benign",
        "two sibling elements the workflow does not touch swap places",
        _page_touched,
        start=_reorder,
    ),
    Operator(
        "slow_responses",
        "benign",
        "every fetch and XMLHttpRequest answers 300-800 ms later",
        _page,
        start=_init_script(_SLOW),
        slows_s=0.8,
    ),
):
    register(_op)


def apply_safely(what: str, fn: Callable[[], None]) -> bool:
    """Run one injection; a fault that cannot be placed (the element never came) is logged, not
    raised: the run goes on and its verdict says what the page did."""
    try:
        fn()
        return True
    except PlaywrightError as exc:
        log.info("mutation %s could not be applied: %s", what, str(exc).splitlines()[0])
        return False
