"""Exploration: the agent runs each task of the family several times, in parallel contexts.

Each run is recorded under ``.reuseit/runs/<synthesis>/<run id>/`` (``run.json`` plus one
screenshot per action) as soon as it ends, so an interrupted synthesis resumes where it stopped
and nothing is lost on a crash. The runs are asyncio tasks on one Playwright driver and one
browser (a context each) while the model calls wait in threads: one sync Playwright per worker
thread was measured first, and its per-thread driver start-up made 10 parallel runs cost 2.7x
one run (benchmarks/README.md).
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from playwright.async_api import Browser as AsyncBrowser
from playwright.async_api import Route as AsyncRoute
from playwright.async_api import async_playwright
from playwright.sync_api import Error as PlaywrightError

from ..atomic import write_text_atomic
from ..browser.observe import Observation, capture_async
from ..browser.session import BrowserConfig, NavigationFence, use_node_compile_cache
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
    opened_page: bool = False  # the action opened a pop-up or tab (compiles to `new_page: true`)


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
            lines.append(
                f"  {a.n}. {a.action} {a.locator or a.element} {a.value!r} -> {state}; agent said: {a.message}"
            )
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
        write_text_atomic(folder / "run.json", json.dumps(asdict(self), indent=1))


async def run_once(
    browser: AsyncBrowser,
    client: LlmClient,
    instance: TaskInstance,
    run_id: str,
    start_url: str,
    folder: Path,
    *,
    allowed: tuple[str, ...],
    max_actions: int,
    action_timeout: float,
    experience: str,
    ask: Callable[..., Awaitable[AgentAction]],
    opening: asyncio.Lock,
) -> RunRecord:
    """One exploration run in its own context: open the start page and let the agent do the whole task."""
    record = RunRecord(
        run_id=run_id,
        instance=instance.id,
        kind=instance.kind,
        task=instance.task,
        params=dict(instance.params),
        start_url=start_url,
    )
    usage = ModelUsage()
    started = time.monotonic()
    folder.mkdir(parents=True, exist_ok=True)

    def observer(answer: AgentAction, rec: ActionRecord, obs: Observation, page: object, seen: bytes | None) -> None:
        # The page as the agent saw it when it chose this action (the final state goes to final.jpg).
        n = len(record.actions) + 1
        shot = f"{n:02d}.jpg" if seen else ""
        if seen:
            (folder / shot).write_bytes(seen)
        record.actions.append(
            RecordedAction(
                n=n,
                action=answer.action,
                element=answer.element,
                value=answer.value,
                locator=rec.locator,
                ok=rec.ok,
                error=rec.error,
                message=rec.message,
                url=obs.url,
                title=obs.title,
                screenshot=shot,
                opened_page=rec.opened_page,
            )
        )

    navigation = NavigationFence(allowed)

    async def fence(route: AsyncRoute) -> None:
        # The runner's NavigationFence rule, for the async API.
        if navigation.blocks(route.request):
            await route.abort("aborted")  # as the runner's: Chromium stays on the page, no error page
        else:
            await route.fallback()

    context = None
    try:
        # Runs create their context and page one at a time: the browser starts their renderers one
        # after another anyway, and runs started together ask the model together and then all
        # use the browser at once after every answer (measured in benchmarks/README.md).
        async with opening:
            context = await browser.new_context()
            # Only the URLs the fence could block reach it (see NavigationFence.pattern).
            await context.route(navigation.pattern(), fence)
            page = await context.new_page()
        await page.goto(start_url, timeout=30_000)
        agent = ModelAgent(
            client,
            usage,
            reveal=lambda t: t,
            mask=lambda t: t,
            allowed_domains=allowed,
            max_actions=max_actions,
            action_timeout_ms=action_timeout * 1000,
            experience=experience,
            observer=observer,
            variant=run_id,
        )
        outcome = await agent.perform_async(page, instance.task, goal=instance.task, failure="", history=[], ask=ask)
        record.done, record.final_message = outcome.done, outcome.message
        try:
            (folder / "final.jpg").write_bytes(await capture_async(page, quality=60))
        except PlaywrightError:
            pass
    except BrokenRun as exc:
        record.error = str(exc)
    except PlaywrightError as exc:
        record.error = f"browser: {str(exc).splitlines()[0]}"
    finally:
        try:
            if context is not None:
                await context.close()
        except PlaywrightError:
            pass
    record.duration = time.monotonic() - started
    record.usage = asdict(usage)
    record.save(folder)
    return record


async def _explore_async(
    jobs: list[tuple[TaskInstance, str]],
    start_url: str,
    out: Path,
    client: LlmClient,
    *,
    allowed: tuple[str, ...],
    concurrency: int,
    browser: BrowserConfig,
    max_actions: int,
    action_timeout: float,
    experience: str,
    on_done: Callable[[RunRecord], None],
) -> None:
    """All runs as tasks on one Playwright driver and one browser; model calls wait in threads."""
    workers = max(1, min(concurrency, len(jobs)))
    calls = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="explore-model")
    loop = asyncio.get_running_loop()

    async def ask(fn: Callable[..., AgentAction], *args: object) -> AgentAction:
        return await loop.run_in_executor(calls, fn, *args)

    use_node_compile_cache()
    async with async_playwright() as pw:
        try:
            if browser.connect:
                shared = await pw.chromium.connect(browser.connect, timeout=30_000)
            else:
                shared = await pw.chromium.launch(
                    headless=not browser.headed, args=list(browser.args), executable_path=browser.executable()
                )
        except PlaywrightError as exc:
            raise BrokenRun(f"cannot start the browser for exploration: {str(exc).splitlines()[0]}") from None
        limit = asyncio.Semaphore(workers)
        opening = asyncio.Lock()

        async def one(inst: TaskInstance, run_id: str) -> None:
            async with limit:
                record = await run_once(
                    shared,
                    client,
                    inst,
                    run_id,
                    start_url,
                    out / run_id,
                    allowed=allowed,
                    max_actions=max_actions,
                    action_timeout=action_timeout,
                    experience=experience,
                    ask=ask,
                    opening=opening,
                )
            on_done(record)

        try:
            await asyncio.gather(*(one(inst, run_id) for inst, run_id in jobs))
        finally:
            await shared.close()
            calls.shutdown(wait=False)


def explore(
    instances: Iterable[TaskInstance],
    runs_per_task: int,
    start_url: str,
    out: Path,
    client: LlmClient,
    *,
    allowed: tuple[str, ...],
    concurrency: int,
    browser: BrowserConfig,
    max_actions: int = 15,
    action_timeout: float = 5,
    experience: str = "",
    progress: Callable[[RunRecord, bool], None] | None = None,
) -> list[RunRecord]:
    """All exploration runs; runs already recorded in ``out`` are reused (resume)."""
    jobs: list[tuple[TaskInstance, str]] = []
    records: list[RunRecord] = []
    for inst in instances:
        for n in range(1, runs_per_task + 1):
            run_id = f"{inst.id}-{n}"
            recorded = out / run_id / "run.json"
            if recorded.exists():
                record = RunRecord.load(recorded)
                if not record.error:  # an infrastructure error is worth another try
                    records.append(record)
                    if progress:
                        progress(record, True)
                    continue
            jobs.append((inst, run_id))
    if not jobs:
        return records
    failure: list[BaseException] = []

    def on_done(record: RunRecord) -> None:
        records.append(record)
        if progress:
            progress(record, False)

    def main() -> None:
        # Its own thread and event loop: the caller may run a loop or a sync Playwright already.
        try:
            asyncio.run(
                _explore_async(
                    jobs,
                    start_url,
                    out,
                    client,
                    allowed=allowed,
                    concurrency=concurrency,
                    browser=browser,
                    max_actions=max_actions,
                    action_timeout=action_timeout,
                    experience=experience,
                    on_done=on_done,
                )
            )
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            failure.append(exc)

    runner = threading.Thread(target=main, name="explore", daemon=True)
    runner.start()
    runner.join()
    if failure:
        raise failure[0]
    records.sort(key=lambda r: r.run_id)
    return records
