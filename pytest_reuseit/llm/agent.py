"""The agent: performs a step's action (or a fallback in words) one grounded action at a time.

Each turn it sees the step's action, why help is needed, what it already did in this step
(HxAgent's short-term memory) and a compact observation of the page with element ids (LCoW).
Every action is recorded with the element it used and a stable Playwright locator that would
replay it, which is what healing suggestions are made of.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from urllib.parse import urljoin

from playwright.sync_api import Error as PlaywrightError, Page, TimeoutError as PlaywrightTimeout

from ..browser.observe import Observation, capture, data_url, observe
from ..browser.session import first_line, host_allowed
from ..engine.ports import AgentOutcome
from ..engine.result import ActionRecord, ModelUsage
from .client import LlmClient
from .prompts import AGENT_SYSTEM
from .schemas import AgentAction

log = logging.getLogger(__name__)


class ModelAgent:
    """Implements the engine's Agent port."""

    def __init__(
        self, client: LlmClient, usage: ModelUsage, *, reveal: Callable[[str], str], mask: Callable[[str], str],
        allowed_domains: tuple[str, ...], model: str | None = None, max_actions: int = 6, screenshot: bool = True,
        action_timeout_ms: float = 5000, experience: str = "",
        observer: Callable[[AgentAction, ActionRecord, Observation, Page, bytes | None], None] | None = None,
        variant: str = "",
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

    def messages(self, instruction: str, goal: str, failure: str, done: list[str], obs: Observation,
                 shot: bytes | None) -> list[dict[str, object]]:
        parts: list[dict[str, object]] = [
            {"type": "text", "text": (
                f"Workflow task: {goal}\nStep action to carry out now: {instruction}\n"
                + (f"Why help is needed: {failure}\n" if failure else "")
                + (f"Rules learnt on this site:\n{self.experience}\n" if self.experience else "")
                + "Already done in this step:\n" + ("\n".join(f"- {d}" for d in done) if done else "- nothing yet")
            )},
            {"type": "text", "text": f"Page: {obs.title} ({obs.url})\n<observation>\n{obs.text}\n</observation>"},
        ]
        if shot is not None:
            parts.append({"type": "image_url", "image_url": {"url": data_url(shot), "detail": "auto"}})
        return [{"role": "system", "content": AGENT_SYSTEM}, {"role": "user", "content": parts}]

    def perform(self, page: Page, instruction: str, *, goal: str, failure: str, history: list[ActionRecord]) -> AgentOutcome:
        done = [f"{r.by}: {r.description} ({'ok' if r.ok else 'failed: ' + r.error})" for r in history]
        records: list[ActionRecord] = []
        for _ in range(self.max_actions):
            obs = observe(page, mask=self.mask)
            shot = capture(page) if self.screenshot else None
            answer = self.client.ask("agent_action", self.messages(instruction, goal, failure, done, obs, shot),
                                     self.usage, model=self.model, variant=self.variant)
            assert isinstance(answer, AgentAction)
            if answer.action == "done":
                return AgentOutcome(True, records, self.mask(answer.message))
            if answer.action == "fail":
                return AgentOutcome(False, records, self.mask(answer.message) or "the agent gave up")
            record = self._act(page, answer, obs)
            records.append(record)
            if self.observer is not None:
                # The screenshot the agent decided on: recording it costs nothing more.
                self.observer(answer, record, obs, page, shot)
            done.append(f"agent: {record.description} ({'ok' if record.ok else 'failed: ' + record.error})")
        return AgentOutcome(False, records, f"no 'done' within {self.max_actions} actions")

    def _act(self, page: Page, a: AgentAction, obs: Observation) -> ActionRecord:
        """Carry out one answer; never raises for a page problem (the next turn sees it)."""
        target = a.element.strip()
        locator_text = obs.stable_locator(target) if target else ""
        shown_value = self.mask(a.value)
        what = f"{a.action} {locator_text or ''} {shown_value!r}".replace(" ''", "").strip()
        record = ActionRecord(description=what, by="agent", ok=False, locator=locator_text, message=self.mask(a.message))
        if target and target not in obs.refs and a.action in ("click", "fill", "select", "hover"):
            record.error = f"element id {target} is not in the observation"
            return record
        loc = page.locator(f"aria-ref={target}") if target else None
        t = self.timeout
        try:
            if a.action == "click" and loc is not None:
                loc.click(timeout=t)
            elif a.action == "hover" and loc is not None:
                loc.hover(timeout=t)
            elif a.action == "fill" and loc is not None:
                loc.fill(self.reveal(a.value), timeout=t)
            elif a.action == "select" and loc is not None:
                loc.select_option(a.value, timeout=t)
            elif a.action == "press":
                (loc.press(a.value, timeout=t) if loc is not None else page.keyboard.press(a.value))
            elif a.action == "scroll":
                page.mouse.wheel(0, int(float(a.value or 600)))
            elif a.action == "goto":
                url = urljoin(page.url, a.value)
                if not host_allowed(url, self.allowed):
                    record.error = f"{url} is outside allowed_domains"
                    return record
                page.goto(url, timeout=t * 3)
            elif a.action == "back":
                page.go_back(timeout=t)
            elif a.action == "wait":
                page.wait_for_timeout(min(int(float(a.value or 1000)), 10_000))
            else:
                record.error = f"'{a.action}' needs an element id"
                return record
        except (PlaywrightError, PlaywrightTimeout, ValueError) as exc:
            record.error = self.mask(first_line(str(exc)))
            return record
        record.ok = True
        return record
