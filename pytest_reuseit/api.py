"""Python API: run a workflow file outside a pytest item.

    from pytest_reuseit.api import run_workflow
    result = run_workflow("workflows/demo/search.reuseit.yaml", variation="attribute")
    assert result.status == "passed", result.message

With ``page=`` the run uses that Playwright page (your own browser and context); without it a
browser is started for the call and closed afterwards.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from . import settings
from .engine.ports import Models
from .engine.result import RunResult
from .engine.runner import execute
from .runtime import Runtime
from .settings import ReuseitSettings
from .workflow.loader import load

# Where the Python API differs from a pytest run: it keeps every step's screenshots and, unless
# asked, runs without a model or a trace.
API_DEFAULTS: dict[str, Any] = {"screenshots": "steps", "trace": "off", "llm": "off"}


def default_settings(**overrides: Any) -> ReuseitSettings:
    """The API's settings: the plugin's defaults, ``API_DEFAULTS``, then ``overrides``."""
    return settings.defaults(**{**API_DEFAULTS, **overrides})


def run_workflow(
    path: str | Path,
    variation: str | None = None,
    *,
    page: Page | None = None,
    params: dict[str, str] | None = None,
    base_url: str = "",
    models: Models | None = None,
    **settings: Any,
) -> RunResult:
    """Run one variation of the workflow at ``path`` and return its result (never raises on failure).

    With ``page=``, the run uses that page as it is (no artifacts, no trace: the page's owner has them);
    ``models`` then replaces the ones the settings would give.
    """
    runtime = Runtime(
        default_settings(params=dict(params or {}), base_url=base_url.rstrip("/"), **settings), Path.cwd()
    )
    loaded = load(path, builtin_names=runtime.builtin_names())
    try:
        if page is not None:
            return execute(
                page,
                loaded,
                variation,
                builtins=runtime.builtins(),
                extra_params=dict(runtime.settings.params),
                options=runtime.run_options(),
                models=models if models is not None else runtime.models(loaded, variation),
            )
        return runtime.run(loaded, variation, f"{Path(path).name}-{variation or 'default'}")
    finally:
        runtime.close()
