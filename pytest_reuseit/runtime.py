"""Per-process resources shared by every run: the browser, the built-in placeholders, the models.

The plugin, the ``reuseit`` command and the Python API all run workflows through
:meth:`Runtime.run`, so a run behaves the same wherever it is started from.
"""

from __future__ import annotations

import dataclasses
import logging
import shutil
from collections import ChainMap
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from playwright.sync_api import BrowserContext, Page
from playwright.sync_api import Error as PlaywrightError

from . import browser_context
from .authoring.judged_pages import DEFAULT_DIR as JUDGED_PAGES_DIR
from .authoring.judged_pages import PageRecorder
from .browser.grid import parse_capabilities
from .browser.session import BrowserConfig, BrowserSession, NavigationFence
from .browser.tracing import RunTrace
from .engine.analysis import observe
from .engine.context import LastPass, RunOptions
from .engine.ports import Models, Probe
from .engine.result import RunResult, Screenshot
from .engine.runner import execute, read_environment
from .errors import BrokenRun, PlaceholderError
from .experience import DEFAULT_DIR as EXPERIENCE_DIR
from .experience import ExperienceStore
from .llm.agent import ModelAgent
from .llm.analyst import ModelAnalyst
from .llm.client import LlmClient, LlmConfig, endpoint_configured, load_prices
from .llm.cost import session_ledger
from .llm.judge import ModelJudge, ModelReader
from .llm.long_text import LongTexts
from .report import artifacts, history
from .settings import ReuseitSettings
from .sites import LocalSites
from .workflow.loader import LoadedWorkflow, placeholder_names
from .workflow.placeholders import Values

log = logging.getLogger(__name__)


Placeholders = Sequence[Mapping[str, object]]


class Runtime:
    """``placeholders``: mappings of built-ins besides ``base_url``, first one wins. Left out, the
    runtime provides (and closes) the bundled sites itself; the plugin passes none and gives each
    run what the ``pytest_reuseit_placeholders`` hook returns."""

    def __init__(self, settings: ReuseitSettings, root: Path, placeholders: Placeholders | None = None) -> None:
        self.settings = settings
        self.root = root
        self._session: BrowserSession | None = None
        self._own_sites = LocalSites() if placeholders is None else None
        # session workflow -> (its result, its storage state): run once per process.
        self._sessions: dict[str, tuple[RunResult, dict[str, Any] | None]] = {}
        self.placeholders: Placeholders = [self._own_sites] if self._own_sites is not None else placeholders or ()
        self._llm: LlmClient | None = None
        self._thread: ThreadPoolExecutor | None = None
        self._thread_checked = False
        # Why the history could not be read, once it could not: no run of this process looks again.
        self.history_problem = ""
        # Whether runs take every step's page (RunOptions.step_pages): only when their records are
        # kept for the history (the plugin with --alluredir), else only a failing step's.
        self.step_pages = False

    # ---------------------------------------------------------------- lazily started parts

    @property
    def session(self) -> BrowserSession:
        if self._session is None:
            s = self.settings
            self._session = BrowserSession(
                BrowserConfig(
                    executable_path=s.browser_path or None,
                    headed=s.headed,
                    connect=s.connect or None,
                    cdp=s.cdp or None,
                    grid=s.grid or None,
                    grid_capabilities=parse_capabilities(s.grid_capabilities) if s.grid else {},
                    slow_mo=s.slow_mo,
                )
            )
        return self._session

    def run_options(self) -> RunOptions:
        s = self.settings
        return RunOptions(
            screenshots=s.screenshots,
            jpeg_quality=s.jpeg_quality,
            max_width=s.screenshot_width,
            page_text_chars=s.page_text,
            step_pages=self.step_pages,
        )

    def builtins(self, extra: Placeholders = ()) -> Mapping[str, object]:
        """``base_url`` (when given), then ``extra``, then the runtime's own placeholders; values
        are read only when a run uses them (ChainMap never copies)."""
        base = {"base_url": self.settings.base_url} if self.settings.base_url else {}
        return ChainMap(base, *extra, *self.placeholders)  # type: ignore[arg-type]

    def builtin_names(self, extra: Placeholders = ()) -> tuple[str, ...]:
        """The built-in names, for validating files before anything starts."""
        return tuple(self.builtins(extra))

    @property
    def llm_enabled(self) -> bool:
        """Whether runs get model parts: not with 'off', nor with 'auto' when no endpoint is configured."""
        mode = self.settings.llm
        return mode != "off" and (mode != "auto" or endpoint_configured())

    def llm_client(self) -> LlmClient:
        if self._llm is None:
            s = self.settings
            self._llm = LlmClient(
                LlmConfig(
                    model=s.model,
                    mode=s.llm,
                    cache_dir=str(self.root / s.cache),
                    timeout=s.llm_timeout,
                    budget=s.llm_budget,
                    max_cost=s.max_cost,
                    cost_ledger=str(ledger) if (ledger := session_ledger(self.root)) else "",
                    retries=s.llm_retries,
                    backoff=s.llm_backoff,
                    prices=load_prices(s.prices),
                )
            )
        return self._llm

    def models(
        self,
        loaded: LoadedWorkflow,
        variation: str | None = None,
        extra: Placeholders = (),
        texts: LongTexts | None = None,
    ) -> Models:
        """The model-backed parts for one run, sharing one usage counter; none when models are off.

        ``texts`` receives the full text of model answers too long for reports (see ``llm.long_text``).
        """
        if not self.llm_enabled:
            return Models()
        client = self.llm_client()
        model = loaded.workflow.model
        models = Models()
        usage = models.usage
        models.judge = ModelJudge(client, usage, model=model, detail=self.settings.image_detail, texts=texts)
        models.reader = ModelReader(client, usage, models.mask, model=model, texts=texts)
        models.agent = ModelAgent(
            client,
            usage,
            reveal=models.reveal,
            mask=models.mask,
            model=model,
            allowed_domains=self.allowed_domains(loaded, variation, extra),
            action_timeout_ms=loaded.workflow.settings.action_timeout * 1000,
            experience=self.experience.text(host) if (host := self.start_host(loaded, variation, extra)) else "",
            marks=self.settings.agent_marks,
            texts=texts,
        )
        models.analyst = ModelAnalyst(client, usage, model=model, texts=texts)
        # The pages the model judges checks on, for `reuseit promote` (bounded; see authoring/judged_pages.py).
        models.recorder = PageRecorder(
            self.root / JUDGED_PAGES_DIR,
            loaded.source.path,
            models.mask,
            holds_secret=lambda: bool(models.values and models.values.has_secrets),
        )
        return models

    # ---------------------------------------------------------------- the last pass

    @property
    def history_path(self) -> Path | None:
        """The nightly history file (``reuseit report`` appends to it), None when switched off."""
        return self.root / self.settings.history if self.settings.history else None

    def last_pass(self, test: str) -> LastPass | None:
        """What ``test``'s last passing run saw, from the history: each step's page and the
        screenshots it kept (read now: this run is about to replace that run's folder), and the
        pages of the pass before it (what churns between passes is no change). Read-only;
        a history that cannot be read is reported once and the runs go on without a baseline."""
        path = self.history_path
        if path is None or self.history_problem:
            return None
        try:
            found = history.last_pass(path, test)
        except Exception as exc:  # noqa: BLE001 - a comparison is extra: it never fails a run
            self.history_problem = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            log.warning("%s: runs are not compared with their last pass", self.history_problem)
            return None
        if found is None:
            return None
        shots: dict[int, Screenshot] = {}
        for index, step in found.steps.items():
            if step.screenshot:
                try:
                    data = Path(step.screenshot).read_bytes()
                except OSError:
                    continue  # not kept any more
                mime = "image/png" if step.screenshot.endswith(".png") else "image/jpeg"
                # Step 0 is the start page: step 1's picture before its action (report/records.py).
                which = f"step {index} after action" if index else "step 1 before action"
                shots[index] = Screenshot(f"the last pass ({found.when}): {which}", data, mime)
        earlier = found.earlier
        return LastPass(
            since=found.when,
            pages={i: s.page for i, s in found.steps.items()},
            screenshots=shots,
            earlier_since=earlier.when if earlier is not None else "",
            earlier_pages={i: s.page for i, s in earlier.steps.items()} if earlier is not None else {},
        )

    # ---------------------------------------------------------------- one run

    def start_host(self, loaded: LoadedWorkflow, variation: str | None, extra: Placeholders = ()) -> str:
        """Host of the variation's start_url ("" when a placeholder is missing: the run reports that)."""
        wf = loaded.workflow
        var = next((v for v in wf.all_variations() if v.id == variation), wf.all_variations()[0])
        try:
            params = {**wf.params, **var.params, **self.settings.params}
            url = Values(params, self.builtins(extra)).render(wf.start_url)
        except PlaceholderError:
            return ""
        return urlsplit(url).hostname or ""

    def allowed_domains(
        self, loaded: LoadedWorkflow, variation: str | None, extra: Placeholders = ()
    ) -> tuple[str, ...]:
        wf = loaded.workflow
        if wf.allowed_domains is not None:
            # An entry with a placeholder ('{base_url}', as the import writes the site's own) is
            # the host of what it renders to, as start_url is rendered.
            hosts = (self._host(loaded, variation, extra, d) if "{" in d else d for d in wf.allowed_domains)
            return tuple(h for h in hosts if h)
        host = self.start_host(loaded, variation, extra)
        return (host,) if host else ()

    def _host(self, loaded: LoadedWorkflow, variation: str | None, extra: Placeholders, entry: str) -> str:
        wf = loaded.workflow
        var = next((v for v in wf.all_variations() if v.id == variation), wf.all_variations()[0])
        try:
            text = Values({**wf.params, **var.params, **self.settings.params}, self.builtins(extra)).render(entry)
        except PlaceholderError:
            return ""
        return urlsplit(text).hostname or text if "://" in text else text

    @property
    def experience(self) -> ExperienceStore:
        return ExperienceStore(self.root / EXPERIENCE_DIR)

    def _browser_thread(self) -> ThreadPoolExecutor | None:
        """A thread of our own for Playwright when the caller's thread already runs another sync
        Playwright (pytest-playwright's fixtures, a user's own): Playwright allows one per thread."""
        if self._thread_checked:
            return self._thread
        self._thread_checked = True
        try:
            self.session.playwright  # noqa: B018 - starts Playwright here if this thread can host it
        except PlaywrightError as exc:
            if "asyncio loop" not in str(exc):
                raise
            log.info("another Playwright runs in this thread: workflows get a browser thread of their own")
            self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reuseit-browser")
        return self._thread

    def run(
        self,
        loaded: LoadedWorkflow,
        variation: str | None,
        run_id: str,
        *,
        placeholders: Placeholders = (),
        on_start: Callable[[Page], None] | None = None,
        probe: Probe | None = None,
        origins: tuple[str, ...] = (),
    ) -> RunResult:
        """Run one variation in a fresh browser context; keep artifacts as the settings say.

        ``placeholders`` come before the runtime's own; ``on_start`` gets the page before
        ``start_url`` is opened (the plugin's ``pytest_reuseit_run_start`` hook); ``probe`` watches
        the run from inside (mutation testing). ``origins`` fences the run tighter than its
        workflow's hosts (the import's own runs): a request to any other origin is aborted; a page's
        navigation there breaks the run, naming it, and a request the page made by itself is
        counted in ``aborted_requests`` and the run goes on.
        """
        thread = self._browser_thread()
        if thread is not None:
            return thread.submit(self._run, loaded, variation, run_id, placeholders, on_start, probe, origins).result()
        return self._run(loaded, variation, run_id, placeholders, on_start, probe, origins)

    def _run(
        self,
        loaded: LoadedWorkflow,
        variation: str | None,
        run_id: str,
        placeholders: Placeholders,
        on_start: Callable[[Page], None] | None,
        probe: Probe | None = None,
        origins: tuple[str, ...] = (),
    ) -> RunResult:
        return self._run_keeping(loaded, variation, run_id, placeholders, on_start, probe=probe, origins=origins)[0]

    def _values(self, loaded: LoadedWorkflow, variation: str | None, placeholders: Placeholders) -> Values:
        wf = loaded.workflow
        var = next((v for v in wf.all_variations() if v.id == variation), wf.all_variations()[0])
        return Values({**wf.params, **var.params, **self.settings.params}, self.builtins(placeholders))

    def _context_options(
        self, loaded: LoadedWorkflow, values: Values, placeholders: Placeholders
    ) -> browser_context.ContextOptions:
        """Playwright context options; BrokenRun (or PlaceholderError) when they cannot be built,
        among them a session workflow that did not pass."""
        state = self._session_state(loaded.session, placeholders) if loaded.session is not None else None
        devices = self.session.playwright.devices if loaded.workflow.browser.device else None
        return browser_context.build(loaded, values, devices, state)

    def _session_state(self, login: LoadedWorkflow, placeholders: Placeholders) -> dict[str, Any]:
        """The storage a ``session: {from: ...}`` workflow leaves: run once per process (so once
        per pytest session and xdist worker), kept in memory only (it holds login cookies)."""
        key = str(Path(login.folder, Path(login.source.path).name))
        if key not in self._sessions:
            result, state = self._run_keeping(
                login, None, f"session-{login.source.path}", placeholders, None, keep_state=True
            )
            self._sessions[key] = (result, state)
        result, state = self._sessions[key]
        if result.status != "passed" or state is None:
            why = (result.message or result.status).splitlines()[0]
            raise BrokenRun(
                f"the session workflow {login.source.path} did not pass ({result.label}: {why}); "
                "this run starts from its browser session, so it cannot be judged"
            )
        return state

    def not_started(
        self, loaded: LoadedWorkflow, variation: str | None, message: str, *, infrastructure: bool = False
    ) -> RunResult:
        """The result of a run that could not start (its context could not be built, or with
        ``infrastructure`` its browser could not be started or reached): broken."""
        wf = loaded.workflow
        var = next((v for v in wf.all_variations() if v.id == variation), wf.all_variations()[0])
        index = wf.variations.index(var) if var in wf.variations else None
        result = RunResult(
            workflow=wf.name,
            file=loaded.source.path,
            line=loaded.source.line("variations", index) if index is not None else 1,
            variation=var.id,
            kind=var.kind,
            task=wf.task,
            params={},
            total_steps=len(wf.steps),
            status="broken",
            message=message,
            failed_phase="start",
        )
        if infrastructure:
            result.infrastructure = message
        result.analysis = observe(result)
        return result

    def _run_keeping(
        self,
        loaded: LoadedWorkflow,
        variation: str | None,
        run_id: str,
        placeholders: Placeholders,
        on_start: Callable[[Page], None] | None,
        *,
        keep_state: bool = False,
        probe: Probe | None = None,
        origins: tuple[str, ...] = (),
    ) -> tuple[RunResult, dict[str, Any] | None]:
        """One run; with ``keep_state`` also the context's storage state when it passed."""
        s = self.settings
        wf = loaded.workflow
        folder = self.root / s.output / artifacts.slug(run_id)
        last_pass = self.last_pass(run_id)  # before its folder goes: it may hold the last pass's screenshots
        shutil.rmtree(folder, ignore_errors=True)  # a stale folder from an earlier run would mislead
        try:
            # Before any browser work, as the format promises: a run that needs a variable that
            # is not set is broken at once, without opening a context.
            values = self._values(loaded, variation, placeholders)
            read_environment(values, placeholder_names(wf, dict(s.params)))
            options = self._context_options(loaded, values, placeholders)
        except (PlaceholderError, BrokenRun) as exc:
            message = f"placeholder: {exc}" if isinstance(exc, PlaceholderError) else str(exc)
            result = self.not_started(loaded, variation, message)
            if s.artifacts != "never":  # broken: kept under "on-failure" and "always" alike
                artifacts.write(result, folder)
            return result, None
        fence = NavigationFence(self.allowed_domains(loaded, variation, placeholders), origins=origins)
        texts = LongTexts()
        context = self.session.new_context(options.kwargs, fence)
        trace = RunTrace(context, s.trace)
        state: dict[str, Any] | None = None
        try:
            page = context.new_page()
            page.set_default_timeout(wf.settings.action_timeout * 1000)
            page.set_default_navigation_timeout(wf.settings.navigation_timeout * 1000)
            if on_start is not None:
                on_start(page)
            models = self.models(loaded, variation, placeholders, texts=texts)
            result = execute(
                page,
                loaded,
                variation,
                builtins=self.builtins(placeholders),
                extra_params=dict(s.params),
                # Downloads are saved in the run's own folder, beside its artifacts.
                options=dataclasses.replace(
                    self.run_options(),
                    output_dir=str(folder),
                    on_first_retry=trace.on_first_retry,
                    probe=probe,
                    last_pass=last_pass,
                ),
                models=models,
                blocked=fence.blocked,
            )
            result.typed_secret = result.typed_secret or options.revealed_secret
            self._where_it_ran(result)
            result.aborted_requests = list(fence.aborted)
            if fence.origins and fence.blocked:
                _outside_origins(result, fence)
            bad = result.status in ("failed", "broken")
            if trace.recording:
                # "--reuseit-artifacts never" means nothing is written, the trace included.
                keep = s.artifacts != "never" and (s.trace == "on" or bad)
                result.trace = self._stop_trace(context, folder, keep=keep, result=result)
            elif bad and s.trace == "on-first-retry" and s.artifacts != "never" and result.failed_phase != "start":
                # (A run that never got past its start has nothing a trace would show.)
                result.trace_withheld = (
                    "it is recorded from a run's first retry and this run made none; "
                    "--reuseit-trace retain-on-failure records every run"
                )
            # After the trace: result.json says where it is, or why it was withheld.
            if keep_state and not bad:
                state = dict(context.storage_state())  # in memory only: it holds the login
            if s.artifacts == "always" or (s.artifacts == "on-failure" and bad):
                artifacts.write(result, folder)
            if s.artifacts != "never":
                # Reports name these files for the full text of what they show cut: keep them whenever
                # anything may be reported, passed runs included.
                texts.mask = models.mask
                texts.write(folder)
            return result, state
        finally:
            try:
                context.close()
            except PlaywrightError:
                pass  # the browser may be gone; the next run starts a fresh one

    def _where_it_ran(self, result: RunResult) -> None:
        """The Grid node that ran it; a run whose node went away under it is broken, whatever the
        steps made of the browser's silence (the site did nothing: the machine went away)."""
        result.browser_host = self.session.host
        lost = self.session.lost(failed=result.status in ("failed", "broken"))
        if lost:
            result.status = "broken"
            result.message = f"{lost}; this run cannot be judged, the next run gets a new Grid session"
            result.analysis = observe(result)

    @staticmethod
    def _stop_trace(context: BrowserContext, folder: Path, *, keep: bool, result: RunResult) -> str | None:
        """Stop tracing; save the trace when asked. A trace records typed values: never keep one holding a secret."""
        if keep and result.typed_secret:
            log.info("trace not kept for %s: the run typed a secret", folder.name)
            result.trace_withheld = (
                "a secret was typed in this run, and a trace records typed values and page snapshots"
            )
            keep = False
        try:
            if not keep:
                context.tracing.stop()
                return None
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / "trace.zip"
            context.tracing.stop(path=str(path))
            return str(path)
        except PlaywrightError as exc:  # the browser went away with the run: the result still counts
            log.warning("could not save the trace: %s", exc)
            return None

    def close(self) -> None:
        if self._thread is not None:
            # The browser belongs to that thread: close it there.
            self._thread.submit(self._close_session).result()
            self._thread.shutdown()
            self._thread = None
        self._close_session()
        if self._own_sites is not None:
            self._own_sites.close()

    def _close_session(self) -> None:
        if self._session is not None:
            self._session.close()
            self._session = None


def _outside_origins(result: RunResult, fence: NavigationFence) -> None:
    """A run fenced to ``origins`` whose page navigated to another: broken (no verdict on a site
    that went elsewhere), naming where. (A request the page made by itself was only aborted.)"""
    others = ", ".join(dict.fromkeys(fence.blocked[:3]))
    result.status = "broken"
    result.message = (
        f"navigated to {others}, outside the origins this run may open ({', '.join(fence.origins)}); "
        f"the navigation was aborted. {result.message or ''}"
    ).strip()
