"""The agent: performs a step's action (or a fallback in words) one grounded action at a time.

Each turn it sees the step's action, why help is needed, what it already did in this step
(HxAgent's short-term memory) and a compact observation of the page with element ids (LCoW).
Every action is recorded with the element it used and a stable Playwright locator that would
replay it, which is what healing suggestions are made of.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from playwright.async_api import Page as AsyncPage
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from ..browser import widgets
from ..browser.masking import track_secret
from ..browser.observe import (
    NAVIGATION_S,
    Observation,
    acted,
    capture,
    capture_async,
    capture_marked,
    data_url,
    navigation_s,
    observe,
    observe_async,
)
from ..browser.op_context import OpFailed
from ..browser.ops import loaded_after
from ..browser.pages import DialogPolicy, Pages, history_step
from ..browser.session import first_line, host_allowed, web_address
from ..engine.ports import AgentOutcome
from ..engine.result import ActionRecord, ModelUsage
from ..workflow.op_args import PageUrl
from .client import LlmClient
from .long_text import LongTexts
from .prompts import AGENT_SYSTEM, data_block
from .schemas import PAGE_ACTIONS, AgentAction

log = logging.getLogger(__name__)


class ModelAgent:
    """Implements the engine's Agent port."""

    def __init__(
        self,
        client: LlmClient,
        usage: ModelUsage,
        *,
        reveal: Callable[[str], str],
        mask: Callable[[str], str],
        allowed_domains: tuple[str, ...],
        model: str | None = None,
        max_actions: int = 6,
        screenshot: bool = True,
        action_timeout_ms: float = 5000,
        experience: str = "",
        observer: Callable[[AgentAction, ActionRecord, Observation, Any, bytes | None], None] | None = None,
        variant: str = "",
        marks: bool = False,
        texts: LongTexts | None = None,
    ) -> None:
        self.client = client
        self.usage = usage
        self.reveal = reveal
        self.mask = mask
        self.allowed = allowed_domains
        self.model = model
        self.max_actions = max_actions
        self.screenshot = screenshot
        self.timeout = action_timeout_ms
        self.experience = experience
        # Exploration runs record every action with what the agent saw (synthesis input).
        self.observer = observer
        # Exploration runs of one task must not replay each other's answers from the cache.
        self.variant = variant
        # Draw the element ids on the screenshot (set-of-marks); costs a call per element.
        self.marks = marks
        self.texts = texts

    def messages(
        self, instruction: str, goal: str, failure: str, done: list[str], obs: Observation, shot: bytes | None
    ) -> list[dict[str, object]]:
        parts: list[dict[str, object]] = [
            {
                "type": "text",
                "text": (
                    f"Workflow task: {goal}\nStep action to carry out now: {instruction}\n"
                    + (f"Why help is needed: {failure}\n" if failure else "")
                    + (f"Rules learnt on this site:\n{self.experience}\n" if self.experience else "")
                    + "Already done in this step:\n"
                    + ("\n".join(f"- {d}" for d in done) if done else "- nothing yet")
                ),
            },
            {"type": "text", "text": f"Page: {obs.title} ({obs.url})\n{data_block('observation', obs.text)}"},
        ]
        if shot is not None:
            parts.append({"type": "image_url", "image_url": {"url": data_url(shot), "detail": "auto"}})
        return [{"role": "system", "content": AGENT_SYSTEM}, {"role": "user", "content": parts}]

    def _ask(
        self, instruction: str, goal: str, failure: str, done: list[str], obs: Observation, shot: bytes | None
    ) -> AgentAction:
        answer = self.client.ask(
            "agent_action",
            self.messages(instruction, goal, failure, done, obs, shot),
            self.usage,
            model=self.model,
            variant=self.variant,
            texts=self.texts,
        )
        assert isinstance(answer, AgentAction)
        return answer

    @staticmethod
    def _history(history: list[ActionRecord]) -> list[str]:
        return [f"{r.by}: {r.description} ({'ok' if r.ok else 'failed: ' + r.error})" for r in history]

    def perform(
        self, page: Page, instruction: str, *, goal: str, failure: str, history: list[ActionRecord]
    ) -> AgentOutcome:
        done = self._history(history)
        records: list[ActionRecord] = []
        # The run's pages, when a run is following them: the agent then acts on the current page,
        # follows pop-ups it opens, and can switch pages and answer dialogs.
        pages = Pages.of(page)
        dialogs_seen = len(pages.dialogs) if pages else 0
        try:
            for _ in range(self.max_actions):
                page = pages.page if pages else page
                obs = observe(page, mask=self.mask)
                if pages is not None:
                    obs = _with_pages(obs, pages, dialogs_seen, self.mask)
                shot = (capture_marked(page, obs) if self.marks else capture(page)) if self.screenshot else None
                answer = self._ask(instruction, goal, failure, done, obs, shot)
                if answer.action in ("done", "fail"):
                    return self._finish(answer, records)
                if answer.action in PAGE_ACTIONS:
                    record = self._page_action(answer, pages, page, obs)
                else:
                    record, call = self._plan(answer, obs, page.url, navigation_s(page))
                    if call is not None:
                        self._act(page, call, record, pages)
                acted(page)  # the next look waits for what the action set off
                self._recorded(answer, record, obs, page, shot, records, done)
            return AgentOutcome(False, records, f"no 'done' within {self.max_actions} actions")
        finally:
            if pages is not None:
                pages.dialog = pages.default_dialog  # the agent's dialog answers end with its turn

    def _act(self, page: Page, call: _Call, record: ActionRecord, pages: Pages | None) -> None:
        opened = len(page.context.pages)
        try:
            target = self._target(page, call)
            if call.method == "fill" and self.mask(str(call.args[0])) != call.args[0]:  # it types a secret
                # By its stable locator: the element ids change with every observation.
                track_secret(page.locator(record.locator) if record.locator else target, record.description)
            if call.target == "element" and call.method in _WIDGET_OPS:
                # A custom dropdown, a drawn switch, a slider, a date picker: the ops' own way.
                value = str(call.args[0]) if call.args else ""
                widgets.on_element(page, f"aria-ref={call.ref}", _WIDGET_OPS[call.method], value, self.timeout)
            else:
                getattr(target, call.method)(*call.args, **call.kwargs)
            record.ok = True
        except OpFailed as exc:
            record.error = self.mask(exc.reason)
            return
        except (PlaywrightError, PlaywrightTimeout) as exc:
            # A click whose page is slow to answer went through once the page answered (within
            # the run's navigation budget): its timeout was for the element.
            if not loaded_after(page, exc):
                record.error = self.mask(first_line(str(exc)))
                return
            record.ok = True
        if pages is not None and call.method == "click":
            try:
                page.wait_for_timeout(150)  # a pop-up's page event follows the click closely
            except PlaywrightError:
                return  # the click closed this page (a pop-up's Save): the holder is back on its opener
            if len(page.context.pages) > opened and pages.order[-1] is not page:
                pages.set_current(pages.order[-1])
                record.opened_page = True
                record.description += " (opened a new page)"

    def _page_action(self, a: AgentAction, pages: Pages | None, page: Page, obs: Observation) -> ActionRecord:
        """The page, history, file and dialog actions (PAGE_ACTIONS: the ops of the same names)."""
        value = a.value.strip()
        record = ActionRecord(
            description=f"{a.action} {self.mask(value)!r}".replace(" ''", ""),
            by="agent",
            ok=False,
            message=self.mask(a.message),
        )
        try:
            if a.action in _HISTORY:
                error = self._history_step(a.action, page)
                if error:
                    record.error = error
                    return record
            elif pages is None:
                record.error = f"'{a.action}' is not available here (one page only)"
                return record
            elif a.action == "switch_page":
                pages.switch(_page_target(value))
            elif a.action == "close_page":
                if len(pages.open_pages()) < 2:
                    record.error = "this is the only open page"
                    return record
                pages.close_current()
            elif a.action == "dialog":
                accept, _, text = value.partition(":")
                pages.dialog = DialogPolicy(accept.strip().lower() == "accept", self.reveal(text.strip()) or None)
            elif a.action == "upload":
                return self._upload(a, pages, page, obs, record)
        except LookupError as exc:
            record.error = str(exc)
            return record
        except (PlaywrightError, PlaywrightTimeout) as exc:
            record.error = self.mask(first_line(str(exc)))
            return record
        record.ok = True
        return record

    def _history_step(self, action: str, page: Page) -> str:
        """``back`` / ``forward`` / ``reload`` as the ops of the same names do them: the page waits
        the run's navigation budget, and a browser reached over CDP (a Grid node, ``--reuseit-cdp``),
        which keeps Chromium's back/forward cache, does not stall on a restored page's missing load
        event. Returns why it could not be done ("" when it was)."""
        return history_step(page, _HISTORY[action], navigation_s(page) * 1000, self.timeout)

    def _upload(self, a: AgentAction, pages: Pages, page: Page, obs: Observation, record: ActionRecord) -> ActionRecord:
        target = a.element.strip()
        if target not in obs.refs:
            record.error = f"element id {target} is not in the observation"
            return record
        folder = Path(pages.folder).resolve()
        path = (folder / self.reveal(a.value.strip())).resolve()
        if folder not in path.parents or not path.is_file():
            record.error = "the file must be an existing file inside the workflow's folder"
            return record
        record.locator = obs.stable_locator(target)
        record.description = f"upload {record.locator} {self.mask(a.value.strip())!r}"
        try:
            page.locator(f"aria-ref={target}").set_input_files(str(path), timeout=self.timeout)
            record.ok = True
        except (PlaywrightError, PlaywrightTimeout) as exc:
            record.error = self.mask(first_line(str(exc)))
        return record

    async def perform_async(
        self,
        page: AsyncPage,
        instruction: str,
        *,
        goal: str,
        failure: str,
        history: list[ActionRecord],
        ask: Callable[..., Awaitable[AgentAction]],
    ) -> AgentOutcome:
        """:meth:`perform` on Playwright's async API; ``ask`` runs :meth:`_ask` off the event loop."""
        done = self._history(history)
        records: list[ActionRecord] = []
        for _ in range(self.max_actions):
            if page.is_closed() and page.context.pages:
                page = page.context.pages[-1]  # the pop-up it was in closed itself: back on the newest page
            obs = await observe_async(page, mask=self.mask)
            shot = await capture_async(page) if self.screenshot else None
            answer = await ask(self._ask, instruction, goal, failure, done, obs, shot)
            if answer.action in ("done", "fail"):
                return self._finish(answer, records)
            # Exploration has no run budget: Playwright's own, as navigation_timeout's default.
            record, call = self._plan(answer, obs, page.url, NAVIGATION_S)
            if call is not None:
                opened = len(page.context.pages)
                try:
                    target = self._target(page, call)
                    await getattr(target, call.method)(*call.args, **call.kwargs)
                    record.ok = True
                except (PlaywrightError, PlaywrightTimeout) as exc:
                    record.error = self.mask(first_line(str(exc)))
                if record.ok and call.method == "click" and not page.is_closed():
                    try:
                        await page.wait_for_timeout(150)  # a pop-up's page event follows the click closely
                    except PlaywrightError:
                        pass
                    if len(page.context.pages) > opened:
                        # Follow the pop-up or tab, as `new_page: true` does; synthesis compiles it so.
                        record.opened_page = True
                        record.description += " (opened a new page)"
                        self._recorded(answer, record, obs, page, shot, records, done)
                        page = page.context.pages[-1]
                        continue
            self._recorded(answer, record, obs, page, shot, records, done)
        return AgentOutcome(False, records, f"no 'done' within {self.max_actions} actions")

    def _finish(self, answer: AgentAction, records: list[ActionRecord]) -> AgentOutcome:
        if answer.action == "done":
            return AgentOutcome(True, records, self.mask(answer.message))
        return AgentOutcome(False, records, self.mask(answer.message) or "the agent gave up")

    def _recorded(
        self,
        answer: AgentAction,
        record: ActionRecord,
        obs: Observation,
        page: Any,
        shot: bytes | None,
        records: list[ActionRecord],
        done: list[str],
    ) -> None:
        records.append(record)
        if self.observer is not None:
            # The screenshot the agent decided on: recording it costs nothing more.
            self.observer(answer, record, obs, page, shot)
        done.append(f"agent: {record.description} ({'ok' if record.ok else 'failed: ' + record.error})")

    @staticmethod
    def _target(page: Any, call: _Call) -> Any:
        if call.target == "element":
            return page.locator(f"aria-ref={call.ref}")
        return {"page": page, "keyboard": page.keyboard, "mouse": page.mouse}[call.target]

    def _plan(
        self, a: AgentAction, obs: Observation, url: str, navigation_s: float
    ) -> tuple[ActionRecord, _Call | None]:
        """What one answer means for the page, as a call to make (None when it cannot be made:
        the record then says why, and the next turn sees it). Shared by the sync and async agent.
        ``navigation_s`` is how long a page the agent opens may take to answer (the run's budget)."""
        target = a.element.strip()
        locator_text = obs.stable_locator(target) if target else ""
        what = f"{a.action} {locator_text or ''} {self.mask(a.value)!r}".replace(" ''", "").strip()
        record = ActionRecord(
            description=what, by="agent", ok=False, locator=locator_text, message=self.mask(a.message)
        )
        if target and target not in obs.refs and a.action in _ON_ELEMENT:
            record.error = f"element id {target} is not in the observation"
            return record, None
        try:
            call = self._call_for(a, target, url, navigation_s)
        except ValueError as exc:
            record.error = f"bad value {a.value!r} for {a.action}: {exc}"
            return record, None
        if isinstance(call, str):
            record.error = call
            return record, None
        return record, call

    def _call_for(self, a: AgentAction, target: str, url: str, navigation_s: float) -> _Call | str:
        """The Playwright call an answer asks for, or why it cannot be made. A page the agent opens
        or goes back to waits the run's navigation budget, as an op's would: an element's wait
        (the action timeout) is no measure of how long a server takes to answer."""
        t = self.timeout
        if target and a.action in _ON_ELEMENT:
            value = self.reveal(a.value) if a.action == "fill" else a.value
            args = (value,) if a.action in ("fill", "select", "press") else ()
            return _Call("element", _ON_ELEMENT[a.action], args, {"timeout": t}, target)
        if a.action == "press":
            return _Call("keyboard", "press", (a.value,), {})
        if a.action == "scroll":
            return _Call("mouse", "wheel", (0, int(float(a.value or 600))), {})
        if a.action == "goto":
            dest = urljoin(url, a.value)
            if not web_address(dest):
                return f"{dest} is not a web address (http:// or https:// only)"
            if not host_allowed(dest, self.allowed):
                return f"{dest} is outside allowed_domains"
            return _Call("page", "goto", (dest,), {"timeout": navigation_s * 1000})
        if a.action == "back":
            # Only the async agent plans it (the run's agent does it in _page_action): exploration's
            # browsers are launched by Playwright, without the back/forward cache that stalls this.
            return _Call("page", "go_back", (), {"timeout": navigation_s * 1000})
        if a.action == "wait":
            return _Call("page", "wait_for_timeout", (min(int(float(a.value or 1000)), 10_000),), {})
        return f"'{a.action}' needs an element id"


# The history actions and the Playwright methods that do them (through pages.history_step).
_HISTORY = {"back": "go_back", "forward": "go_forward", "reload": "reload"}

# The agent's actions done on an element of the observation, and the Playwright method each calls.
_ON_ELEMENT = {
    "click": "click",
    "hover": "hover",
    "fill": "fill",
    "select": "select_option",
    "check": "check",
    "uncheck": "uncheck",
    "press": "press",
}
# The element methods done as the widget ops do them (browser.widgets), by the op's name.
_WIDGET_OPS = {"select_option": "select", "fill": "fill", "check": "check", "uncheck": "uncheck"}


@dataclass(frozen=True)
class _Call:
    """A Playwright call: on the element ``ref``, or on the page, its keyboard or its mouse."""

    target: str
    method: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    ref: str = ""


def _page_target(value: str) -> Any:
    """The agent's switch_page value as the holder takes it: main, last, an index or URL text."""
    if value in ("main", "last"):
        return value
    if value.isdigit():
        return int(value)
    return PageUrl(url=value)


def _with_pages(obs: Observation, pages: Pages, dialogs_seen: int, mask: Callable[[str], str]) -> Observation:
    """The observation with the open pages (which one is current) and the dialogs shown in this turn."""
    lines = []
    open_pages = pages.open_pages()
    if len(open_pages) > 1:
        lines.append("Open pages (switch_page takes the index):")
        for p in open_pages:
            mark = " (current)" if p is pages.page else ""
            lines.append(f"  {pages.index(p)}: {mask(p.url)}{mark}")
    for d in pages.dialogs[dialogs_seen:]:
        lines.append(f"Dialog shown: {d.type} {mask(d.message)!r} ({d.answer})")
    if not lines:
        return obs
    return replace(obs, text="\n".join(lines) + "\n" + obs.text)
