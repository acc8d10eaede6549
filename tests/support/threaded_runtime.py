"""A :class:`Runtime` in a thread of its own (``ThreadedRuntime``), for the tests of a Runtime that
starts its own browser: a remote one (``--reuseit-connect``, ``--reuseit-cdp``, a Selenium Grid), a
browser that dies mid-run. And the small workflows they run on it: ``workflow`` writes a file's
text (short timeouts, no retries), ``load`` parses it, ``PRESS_A`` is one step that presses the
button ``#fa`` and checks ``#out`` says A (tests/pages/recovery.html has them).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import yaml

from pytest_reuseit.api import default_settings
from pytest_reuseit.engine.result import RunResult
from pytest_reuseit.runtime import Runtime
from pytest_reuseit.workflow.loader import LoadedWorkflow, parse

FAST = {"retries": 0, "check_timeout": 3, "action_timeout": 3, "step_timeout": 10}


def workflow(steps: list[dict[str, Any]], *, start: str, settings: dict[str, Any] | None = None, **top: Any) -> str:
    doc = {
        "name": "broken",
        "task": "survive the infrastructure",
        "start_url": start,
        "settings": {**FAST, **(settings or {})},
        "steps": steps,
        **top,
    }
    return yaml.safe_dump(doc, sort_keys=False)


def load(text: str) -> LoadedWorkflow:
    return parse(text, "broken.reuseit.yaml")


PRESS_A = [
    {"action": "Press A", "do": [{"click": "#fa"}], "post": [{"expect": {"text": {"css": "#out", "equals": "A"}}}]}
]


class ThreadedRuntime:
    """A :class:`Runtime` that lives in a thread of its own.

    Playwright's sync API allows one instance per thread, and the main thread's belongs to the
    shared ``browser_session`` fixture; a Runtime starts its own, so every call to it (and to its
    browser) goes through this one worker thread.
    """

    def __init__(self, root: Path, **settings: Any) -> None:
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="reuseit-runtime")
        self.closed = False
        self.runtime = Runtime(default_settings(**{"artifacts": "never", "trace": "off", **settings}), root)

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        return self._pool.submit(fn, *args)

    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        return self.submit(fn, *args).result(timeout=120)

    def run(self, text: str, run_id: str) -> RunResult:
        return self.call(self.runtime.run, load(text), None, run_id)  # type: ignore[no-any-return]

    def close(self) -> None:
        """Closes the runtime, once (a test may close it early and again in its cleanup)."""
        if self.closed:
            return
        self.closed = True
        try:
            self.call(self.runtime.close)
        finally:
            self._pool.shutdown()
