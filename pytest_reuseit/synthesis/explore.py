"""Exploration: the agent runs each task of the family several times, in parallel browsers.

Each run is recorded under ``.reuseit/runs/<synthesis>/<run id>/`` (``run.json`` plus one
screenshot per action) as soon as it ends, so an interrupted synthesis resumes where it stopped
and nothing is lost on a crash. Playwright's sync API is bound to the thread that started it, so
every worker thread owns its own Playwright and browser (a context per run).
"""

from __future__ import annotations

import json
import logging
import os
import queue
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from playwright.sync_api import Error as PlaywrightError, Page

from ..browser.observe import Observation, capture
from ..browser.server import BrowserServer
from ..browser.session import BrowserConfig, BrowserSession, NavigationFence
from ..engine.result import ActionRecord, ModelUsage
from ..errors import BrokenRun
from ..llm.agent import ModelAgent
from ..llm.client import LlmClient
from ..llm.schemas import AgentAction

log = logging.getLogger(__name__)


@dataclass
class TaskInstance:
    """One task of the family: the original or a variation, with its parameter values."""

    id: str  # "original", "attribute", ...
    kind: str
    task: str
    params: dict[str, str]


@dataclass
class RecordedAction:
    n: int
    action: str
    element: str
    value: str
    locator: str
    ok: bool
    error: str
    message: str
    url: str
    title: str
    screenshot: str  # file name in the run folder


@dataclass
class RunRecord:
    run_id: str  # "<instance>-<n>"
    instance: str
    kind: str
    task: str
    params: dict[str, str]
    start_url: str
    actions: list[RecordedAction] = field(default_factory=list)
    done: bool = False  # the agent said done (its own claim; the judge decides success)
    final_message: str = ""
    error: str = ""  # infrastructure problem, if any
    success: bool | None = None  # the judge's verdict
    rationale: str = ""
    duration: float = 0.0
    usage: dict[str, float] = field(default_factory=dict)

    def log_text(self) -> str:
        """The run's messages as the synthesis prompts read them (numbered actions)."""
        lines = [f"RUN {self.run_id} ({'SUCCESS' if self.success else 'FAILED'}): task: {self.task}"]
        for a in self.actions:
            state = "ok" if a.ok else f"FAILED: {a.error}"
            lines.append(f"  {a.n}. {a.action} {a.locator or a.element} {a.value!r} -> {state}; agent said: {a.message}")
        lines.append(f"  final: {'done' if self.done else 'gave up'}: {self.final_message}")
        if self.error:
            lines.append(f"  error: {self.error}")
        if self.rationale:
            lines.append(f"  judge: {self.rationale}")
        return "\n".join(lines)

    @staticmethod
    def load(path: Path) -> RunRecord:
        data = json.loads(path.read_text(encoding="utf-8"))
        data["actions"] = [RecordedAction(**a) for a in data["actions"]]
        return RunRecord(**data)

    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".run-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(asdict(self), fh, indent=1)
        os.replace(tmp, folder / "run.json")


def run_once(
    session: BrowserSession, client: LlmClient, instance: TaskInstance, run_id: str, start_url: str,
    folder: Path, *, allowed: tuple[str, ...], max_actions: int, experience: str = "",
) -> RunRecord:
    """One exploration run: open the start page and let the agent do the whole task."""
    record = RunRecord(run_id=run_id, instance=instance.id, kind=instance.kind, task=instance.task,
                       params=dict(instance.params), start_url=start_url)
    usage = ModelUsage()
    started = time.monotonic()
    folder.mkdir(parents=True, exist_ok=True)

    def observer(answer: AgentAction, rec: ActionRecord, obs: Observation, page: Page, seen: bytes | None) -> None:
        # The page as the agent saw it when it chose this action (the final state goes to final.jpg).
        n = len(record.actions) + 1
        shot = f"{n:02d}.jpg" if seen else ""
        if seen:
            (folder / shot).write_bytes(seen)
        record.actions.append(RecordedAction(
            n=n, action=answer.action, element=answer.element, value=answer.value, locator=rec.locator, ok=rec.ok,
            error=rec.error, message=rec.message, url=page.url, title=obs.title, screenshot=shot,
        ))

    fence = NavigationFence(allowed)
    context = session.new_context({}, fence)
    try:
        page = context.new_page()
        page.goto(start_url, timeout=30_000)
        agent = ModelAgent(client, usage, reveal=lambda t: t, mask=lambda t: t, allowed_domains=allowed,
                           max_actions=max_actions, experience=experience, observer=observer, variant=run_id)
        outcome = agent.perform(page, instance.task, goal=instance.task, failure="", history=[])
        record.done, record.final_message = outcome.done, outcome.message
        try:
            (folder / "final.jpg").write_bytes(capture(page, quality=60))
        except PlaywrightError:
            pass
    except BrokenRun as exc:
        record.error = str(exc)
    except PlaywrightError as exc:
        record.error = f"browser: {str(exc).splitlines()[0]}"
    finally:
        try:
            context.close()
        except PlaywrightError:
            pass
    record.duration = time.monotonic() - started
    record.usage = asdict(usage)
    record.save(folder)
    return record


def explore(
    instances: Iterable[TaskInstance], runs_per_task: int, start_url: str, out: Path, client: LlmClient, *,
    allowed: tuple[str, ...], concurrency: int, browser: BrowserConfig, max_actions: int = 15,
    experience: str = "", progress: Callable[[RunRecord, bool], None] | None = None,
) -> list[RunRecord]:
    """All exploration runs; runs already recorded in ``out`` are reused (resume)."""
    jobs: list[tuple[TaskInstance, str]] = []
    records: list[RunRecord] = []
    for inst in instances:
        for n in range(1, runs_per_task + 1):
            run_id = f"{inst.id}-{n}"
            done = out / run_id / "run.json"
            if done.exists():
                record = RunRecord.load(done)
                if not record.error:  # an infrastructure error is worth another try
                    records.append(record)
                    if progress:
                        progress(record, True)
                    continue
            jobs.append((inst, run_id))
    if not jobs:
        return records
    todo: queue.Queue[tuple[TaskInstance, str]] = queue.Queue()
    for job in jobs:
        todo.put(job)
    done_q: queue.Queue[RunRecord | BaseException] = queue.Queue()

    def worker() -> None:
        # Each worker owns one Playwright + browser for all the runs it takes, and closes it itself.
        session = BrowserSession(browser)
        try:
            while True:
                try:
                    inst, run_id = todo.get_nowait()
                except queue.Empty:
                    return
                try:
                    done_q.put(run_once(session, client, inst, run_id, start_url, out / run_id,
                                        allowed=allowed, max_actions=max_actions, experience=experience))
                except BaseException as exc:  # noqa: BLE001 - reported to the main thread
                    done_q.put(exc)
        finally:
            session.close()

    workers = max(1, min(concurrency, len(jobs)))
    server = None
    if workers > 1 and not browser.connect:
        # One shared Chromium for all workers: launching one per worker thread cost most of the
        # parallel wall time on small machines (benchmarks/bench_explore.py).
        server = BrowserServer(browser.executable_path, browser.args)
        browser = replace(browser, connect=server.endpoint)
    threads = [threading.Thread(target=worker, name=f"explore-{n}", daemon=True) for n in range(workers)]
    try:
        for t in threads:
            t.start()
        for _ in jobs:
            item = done_q.get()
            if isinstance(item, BaseException):
                raise item
            records.append(item)
            if progress:
                progress(item, False)
        for t in threads:
            t.join()
    finally:
        if server is not None:
            server.stop()
    records.sort(key=lambda r: r.run_id)
    return records


def record_dict(record: RunRecord) -> dict[str, Any]:
    return asdict(record)
