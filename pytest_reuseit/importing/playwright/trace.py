"""Playwright traces (``trace.zip``) as demonstrations.

Two writers, one format: Playwright Test (``--trace on``) puts the test's own steps in
``test.trace`` beside the browser's ``N-trace.trace`` files; pytest-playwright (``--tracing on``)
writes the browser's ``trace.trace`` alone. The format is undocumented and versioned (the
``context-options`` event's ``version``); what changed between the versions read here, as
Playwright's own trace viewer upgrades them:

- 7: ``stepId`` ties a browser call to the test step that made it (before: none);
- 8: a call's words moved from ``apiName`` to ``title``;
- 9: snapshots name their phase (``before``/``after``) instead of ``beforeSnapshot`` names on the call;
- 10: a browser call's ``callId`` is its test step's (``stepId`` dropped).

A newer version is refused by name: its events may mean something else.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from .. import limits
from ..demo import Demonstration, DemoStep, Target, UnreadableInput, Upload
from ..files import base_name
from . import calls
from .expects import from_playwright
from .polls import poll_check
from .snapshots import FrameSnapshots

OLDEST_VERSION = 6
NEWEST_VERSION = 10

# Frame methods that are a user's action, and the step kind each becomes.
_ACTIONS = {
    "goto": "goto",
    "click": "click",
    "dblclick": "dblclick",
    "tap": "click",
    "fill": "fill",
    "type": "type",  # pressSequentially: key by key, as the page sees keys
    "press": "press",
    "check": "check",
    "uncheck": "uncheck",
    "selectOption": "select",
    "setInputFiles": "upload",
    "hover": "hover",
}
_PAGE_ACTIONS = {"goBack": "back", "goForward": "forward", "reload": "reload", "keyboardPress": "press"}


def is_trace(path: Path) -> bool:
    try:
        with zipfile.ZipFile(path) as z:
            return any(n.endswith(".trace") for n in z.namelist())
    except (zipfile.BadZipFile, OSError):
        return False


def in_folder(path: Path) -> bool:
    """A zip found in a folder: a trace, or a zip too damaged or too large to be opened (its line
    says so); a zip of anything else is no source."""
    if path.suffix != ".zip":
        return False
    with suppress(OSError), path.open("rb") as fh:
        return fh.read(2) == b"PK" and (not zipfile.is_zipfile(path) or _openable_trace(path))
    return False


def _openable_trace(path: Path) -> bool:
    try:
        limits.check_zip_directory(path)
    except UnreadableInput:
        return True  # a zip too large to be read: its line says so
    return is_trace(path)


def given(path: Path, head: bytes) -> bool:
    """A zip by what it holds, whatever its name; a ``.zip`` that is none is refused as no trace."""
    return head == b"PK" or path.suffix == ".zip"


def read_file(path: Path) -> list[Demonstration]:
    with path.open("rb") as f:
        if f.read(2) != b"PK":
            raise UnreadableInput(f"{path}: not a zip file: not a Playwright trace")
    return [read(path)]


def _events(z: zipfile.ZipFile, name: str, path: Path) -> Iterator[dict[str, Any]]:
    # Line by line from the member (its size checked against the limits from the directory); a
    # message about the member names the zip the user gave too.
    with z.open(name) as raw, io.TextIOWrapper(raw, encoding="utf-8", errors="replace", newline="\n") as text:
        for n, line in enumerate(text, 1):
            if not line.strip():
                continue
            try:
                event = limits.loads(line, f"{path}: {name} line {n}")
            except ValueError:
                raise UnreadableInput(f"{path}: {name} line {n} is not JSON: not a trace Playwright wrote") from None
            if isinstance(event, dict):
                event[_MEMBER] = name
                yield event


# Where an event was read (its member of the zip), kept on the event for the messages about it.
_MEMBER = "__member"
# The fields of a browser call that are text, as Playwright writes them: one of another type is
# refused (url 5 must not become a page called "5"), as a recording's field of the wrong type is.
_TEXT_PARAMS = ("selector", "url")
_ACTION_TEXT_PARAMS = ("value", "text", "key")


def _wrong(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 40 else text[:37] + '...'}"


def _check_call(path: Path, call: dict[str, Any]) -> None:
    """Refuse, in one line naming the zip, the member and the call, a call whose text field is not text."""
    params = call.get("params")
    method = str(call.get("method") or "?")
    where = f"{path}: {call.get(_MEMBER, '?')}: the {method} call {call.get('callId', '?')}"
    if params is None:
        return
    if not isinstance(params, dict):
        raise UnreadableInput(f"{where}: its params must be a mapping, got {_wrong(params)}")
    names = _TEXT_PARAMS + (_ACTION_TEXT_PARAMS if method in _ACTIONS or method in _PAGE_ACTIONS else ())
    for name in names:
        if name in params and not isinstance(params[name], str):
            raise UnreadableInput(f"{where}: its {name} must be a string, got {_wrong(params[name])}")


@dataclass
class _Events:
    """What the browser's trace files say, gathered in one pass."""

    path: Path
    calls: list[dict[str, Any]] = field(default_factory=list)  # before events and page events, in order
    afters: dict[str, dict[str, Any]] = field(default_factory=dict)
    snapshots: dict[str, tuple[FrameSnapshots, int, dict[str, Any]]] = field(default_factory=dict)  # "callId/phase"
    frames: dict[str, FrameSnapshots] = field(default_factory=dict)
    title: str = ""
    base_url: str = ""

    def add(self, e: dict[str, Any]) -> None:
        kind = e.get("type")
        if kind == "context-options":
            _check_version(self.path, e)
            title = e.get("title")
            if title is not None and not isinstance(title, str):
                raise UnreadableInput(
                    f"{self.path}: {e.get(_MEMBER, '?')}: the test's title must be a string, got {_wrong(title)}"
                )
            self.title = self.title or str(title or "")
            self.base_url = self.base_url or str((e.get("options") or {}).get("baseURL") or "")
        elif kind == "before" or (kind == "event" and e.get("method") == "page"):
            if kind == "before":
                _check_call(self.path, e)
            self.calls.append(e)  # a page event: a pop-up or tab the last action opened
        elif kind == "after":
            self.afters[str(e.get("callId"))] = e
        elif kind == "frame-snapshot":
            snap = e.get("snapshot") or {}
            if snap.get("isMainFrame", True):  # the main frame's DOM: where steps are found
                frame = self.frames.setdefault(str(snap.get("frameId")), FrameSnapshots())
                index = frame.add(snap.get("html"))
                phase = snap.get("phase") or str(snap.get("snapshotName") or "").split("@")[0]
                self.snapshots[f"{snap.get('callId')}/{phase}"] = (frame, index, snap)

    def asserted_on(self, call: dict[str, Any]) -> tuple[str, str, str] | None:
        """An assertion's selector with the DOM and URL before it, where the trace kept them: what
        finds the locator a person writes for the element it asserted on."""
        selector = (call.get("params") or {}).get("selector")
        shown = self.page_before(call)
        return (str(selector), *shown) if shown and selector else None

    def page_before(self, call: dict[str, Any]) -> tuple[str, str] | None:
        """The DOM before ``call`` as HTML, and its URL, when the trace kept it."""
        found = self.snapshots.get(f"{call.get('callId')}/before")
        if found is None:
            return None
        frame, index, snap = found
        return frame.render(index), str(snap.get("frameUrl") or "")


def read(path: Path) -> Demonstration:
    """The demonstration one ``trace.zip`` holds."""
    limits.check_zip_directory(path)
    try:
        z = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise UnreadableInput(f"{path}: not a zip file ({exc.__class__.__name__}): not a Playwright trace") from None
    with z:
        names = z.namelist()
        browser = sorted(n for n in names if n.endswith(".trace") and n != "test.trace")
        if not browser:
            raise UnreadableInput(f"{path}: a zip with no .trace inside: not a Playwright trace")
        limits.check_trace_members(path, z, [n for n in names if n.endswith((".trace", ".network"))])
        test = list(_events(z, "test.trace", path)) if "test.trace" in names else []
        events = _Events(path)
        for name in browser:
            for e in _events(z, name, path):
                events.add(e)
        resources: dict[str, tuple[str, bytes]] = {}
        kept = [0]  # bytes of resources kept so far
        for name in (n for n in names if n.endswith(".network")):
            for e in _events(z, name, path):
                if e.get("type") == "resource-snapshot":
                    _keep_resource(z, e.get("snapshot") or {}, resources, kept)
        demo = Demonstration(title=_title(events.title, path), source=str(path), resources=resources)
        demo.failed = _failure(test, events.calls, events.afters)
        if not demo.failed:
            _steps(demo, events, test)
        return demo


def _title(title: str, path: Path) -> str:
    """The test's title: Playwright Test's without its file and line ("todo.spec.ts:3 › New
    Todo › adds" -> "New Todo › adds"); else the folder pytest-playwright named after the test."""
    if title:
        parts = title.split(" › ")
        if len(parts) > 1 and re.fullmatch(r"\S+:\d+", parts[0]):
            parts = parts[1:]
        return " › ".join(parts)
    name = re.sub(r"-(chromium|firefox|webkit)$", "", path.parent.name)
    return name.replace("-", " ")


def _check_version(path: Path, event: dict[str, Any]) -> None:
    version = event.get("version")
    if not isinstance(version, int) or version < OLDEST_VERSION:
        raise UnreadableInput(
            f"{path}: trace format version {version!r} is older than this release reads "
            f"({OLDEST_VERSION} to {NEWEST_VERSION}): record it again with a recent Playwright"
        )
    if version > NEWEST_VERSION:
        made = event.get("playwrightVersion") or "a newer Playwright"
        raise UnreadableInput(
            f"{path}: trace format version {version} (written by Playwright {made}) is newer than this release "
            f"reads ({OLDEST_VERSION} to {NEWEST_VERSION}): upgrade pytest-reuseit"
        )


def _keep_resource(
    z: zipfile.ZipFile, snap: dict[str, Any], out: dict[str, tuple[str, bytes]], kept: list[int]
) -> None:
    """A page's own files (CSS, images), so its snapshot shows as it did: hidden stays hidden."""
    response = snap.get("response") or {}
    content = response.get("content") or {}
    member = content.get("_file") or (f"resources/{content['_sha1']}" if content.get("_sha1") else "")
    url = str((snap.get("request") or {}).get("url") or "")
    if not member or not url or url in out:
        return
    try:
        data = limits.read_member(z, member, limits.MAX_RESOURCE_BYTES)
    except KeyError:
        return
    if data is not None and kept[0] + len(data) <= limits.MAX_ALL_RESOURCES_BYTES:  # else shown without it
        kept[0] += len(data)
        out[url] = (str(content.get("mimeType") or "application/octet-stream"), data)


def _failure(test: list[dict[str, Any]], calls: list[dict[str, Any]], afters: dict[str, dict[str, Any]]) -> str:
    """Why the trace is of a failing test, or "": Playwright Test writes an ``error`` event; a
    trace without the test's own record (pytest-playwright) shows a browser call that failed."""
    for e in test:
        if e.get("type") == "error":
            return "the test failed: " + _first_line(str(e.get("message") or ""))
    if not test:
        for call in calls:
            err = (afters.get(str(call.get("callId"))) or {}).get("error")
            if err and call.get("class") in ("Frame", "Page", "ElementHandle"):
                message = err.get("message") if isinstance(err, dict) else str(err)
                return f"{call.get('method')} failed: {_first_line(str(message or ''))}"
    return ""


def _first_line(text: str) -> str:
    plain = re.sub(r"\x1b\[[0-9;]*m", "", text)
    return next((ln.strip() for ln in plain.splitlines() if ln.strip()), "")[:200]


def _steps(demo: Demonstration, events: _Events, test: list[dict[str, Any]]) -> None:
    browser_steps: set[str] = set()
    polls = _polls(test)
    last_eval = _last_evaluations(events.calls, polls)
    # The runner's own calls (the page fixture's newPage): made inside a fixture step of the test.
    fixtures = {str(e.get("callId")) for e in test if e.get("type") == "before" and e.get("method") == "fixture"}
    parent = {str(e.get("callId")): str(e.get("parentId")) for e in test if e.get("type") == "before"}
    pages = 0
    for call in events.calls:
        if call.get("type") == "event":
            pages += 1
            if pages > 1 and demo.steps:  # the first is the test's own page
                demo.steps[-1].new_page = True
            continue
        cls, method = str(call.get("class") or ""), str(call.get("method") or "")
        params = call.get("params") or {}
        step_id = str(call.get("stepId") or call.get("callId"))
        browser_steps.add(step_id)
        if cls == "Frame" and method == "expect":
            check, words = from_playwright(params)
            for one in check if isinstance(check, list) else [check]:
                demo.add_check(one, words, events.asserted_on(call))
        elif cls == "Frame" and method == "evaluateExpression" and step_id in polls:
            if last_eval.get(polls[step_id].id) == step_id:  # the evaluation that satisfied the matcher
                _add_poll(demo, call, events, polls[step_id])
        elif (waited := calls.wait_check(cls, method, params)) is not None:
            demo.add_check(*waited, events.asserted_on(call))
        else:
            step = _action_step(cls, method, params, events.base_url)
            if step is not None:
                shown = events.page_before(call)
                if shown is not None:
                    step.page_html, step.page_url = shown
                demo.steps.append(step)
            elif not calls.unimportant(cls, method) and parent.get(step_id) not in fixtures:
                demo.add_check(None, calls.not_imported(cls, method, params))
    _test_assertions(demo, test, browser_steps, polls, last_eval)


def _add_poll(demo: Demonstration, call: dict[str, Any], events: _Events, poll: _Poll) -> None:
    params = call.get("params") or {}
    after = events.afters.get(str(call.get("callId"))) or {}
    js, words = poll_check(
        str(params.get("expression") or ""),
        bool(params.get("isFunction")),
        (after.get("result") or {}).get("value"),
        poll.title,
        poll.expected,
    )
    demo.add_check({"js": js} if js else None, words)


def _test_assertions(
    demo: Demonstration,
    test: list[dict[str, Any]],
    browser_steps: set[str],
    polls: dict[str, _Poll],
    last_eval: dict[str, str],
) -> None:
    """The test's own assertions the browser never saw (``expect(value).toBe(...)``), and polls of
    something else than a page script: counted as not imported."""
    for e in test:
        cid = str(e.get("callId"))
        if e.get("type") != "before" or e.get("method") != "expect" or cid in browser_steps:
            continue
        if cid in polls and polls[cid].id == cid and cid not in last_eval:
            demo.add_check(None, f"{_words(e)} (a poll of a value the test computed, not of a page script)")
        elif e.get("parentId") not in polls and cid not in polls:
            demo.add_check(None, f"{_words(e)} (an assertion on a value the test computed, not on the page)")


def _words(e: dict[str, Any]) -> str:
    words = " ".join(str(x) for x in (e.get("title"), e.get("subtitle")) if x)
    expected = (e.get("params") or {}).get("expected")
    return f"{words} {expected}" if expected is not None else words


def _action_step(cls: str, method: str, params: dict[str, Any], base_url: str) -> DemoStep | None:
    """The step a browser call is when it is a user's action; None for any other call."""
    kind = _ACTIONS.get(method) if cls == "Frame" else _PAGE_ACTIONS.get(method) if cls == "Page" else None
    if kind is None:
        return calls.other_step(cls, method, params)
    # A click's right or middle button is the op's own (button:), and so is a point in the element
    # (position:, a canvas grid's cell); a key held, or another button, is said.
    if kind in ("click", "dblclick", "hover") and calls.unusual_pointer(
        params, buttons=("left", "right", "middle") if kind != "hover" else ("left",)
    ):
        return None  # said as not imported: a plain click would be another action
    options = _options(params) if kind == "select" else ()
    if options is None:
        return None  # said as not imported: by position, or deselecting all
    step = DemoStep(kind)
    if "selector" in params:
        step.target = Target([str(params["selector"])])
    if kind == "goto":
        step.value = urljoin(base_url or "", str(params.get("url") or ""))
    elif kind in ("click", "dblclick", "hover"):
        _pointer(step, method, params)
    elif kind in ("fill", "type"):
        step.value = str(params.get("value") if "value" in params else params.get("text") or "")
    elif kind == "press":
        step.value = str(params.get("key") or "")
    elif kind == "select":
        step.chose(options or ())
    elif kind == "upload":
        step.files = _files(params)
        if not step.files:
            return None  # a folder, or files streamed to a remote browser: said as not imported
        step.value = ", ".join(f.name for f in step.files)
    return step


def _pointer(step: DemoStep, method: str, params: dict[str, Any]) -> None:
    """A click's, double-click's or hover's own: two clicks, the point in the element, the button."""
    if method == "click" and int(params.get("clickCount") or 1) == 2:
        step.kind = "dblclick"
    step.position = calls.position(params)
    if method in ("click", "dblclick") and params.get("button") in ("right", "middle"):
        step.button = str(params["button"])  # a context menu, a middle click: kept (the op's button)


def _files(params: dict[str, Any]) -> tuple[Upload, ...]:
    """The files a setInputFiles call set: by their path where the test ran (``localPaths``), or
    with their bytes (``payloads``: a buffer the test gave, kept in the call as base64)."""
    local = [Upload(base_name(p), path=p) for p in params.get("localPaths") or [] if isinstance(p, str)]
    given = [
        Upload(str(p.get("name") or ""), base64=str(p.get("buffer") or ""))
        for p in params.get("payloads") or []
        if isinstance(p, dict)
    ]
    return tuple(local or given)


@dataclass(frozen=True)
class _Poll:
    id: str  # the poll step's id
    title: str  # 'Expect "poll not toEqual"'
    expected: str  # the expected value as the record words it


def _polls(test: list[dict[str, Any]]) -> dict[str, _Poll]:
    """``expect.poll`` steps and the calls inside them: step id -> the poll."""
    polls: dict[str, _Poll] = {}
    for e in test:
        if e.get("type") == "before" and e.get("method") == "expect" and "poll" in str(e.get("title") or ""):
            cid = str(e.get("callId"))
            expected = (e.get("params") or {}).get("expected")
            polls[cid] = _Poll(cid, str(e.get("title") or ""), "" if expected is None else str(expected))
    for e in test:
        if e.get("type") == "before" and str(e.get("parentId")) in polls and e.get("method") == "pw:api":
            polls[str(e.get("callId"))] = polls[str(e.get("parentId"))]
    return polls


def _last_evaluations(calls_: list[dict[str, Any]], polls: dict[str, _Poll]) -> dict[str, str]:
    """Per poll, the step id of its last page script evaluation (a poll repeats it until it holds)."""
    last: dict[str, str] = {}
    for call in calls_:
        step_id = str(call.get("stepId") or call.get("callId"))
        if call.get("class") == "Frame" and call.get("method") == "evaluateExpression" and step_id in polls:
            last[polls[step_id].id] = step_id
    return last


def _options(params: dict[str, Any]) -> tuple[str, ...] | None:
    """The options a selectOption chose, by label or value as the format chooses them; None when
    one was chosen by its position or an element handle, or none at all (nothing selected)."""
    chosen = []
    for option in params.get("options") or []:
        word = next((option[k] for k in ("valueOrLabel", "label", "value") if option.get(k) is not None), None)
        if word is None:
            return None
        chosen.append(str(word))
    return tuple(chosen) if chosen else None
