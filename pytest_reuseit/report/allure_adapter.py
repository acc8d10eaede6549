"""Allure output for workflow runs; every call is a no-op when allure-pytest is not active.

Kept as an adapter around the RunResult: it reads the result, never the engine.
"""

from __future__ import annotations

import logging
from typing import Any

from ..engine.result import RunResult
from ..workflow.loader import LoadedWorkflow

log = logging.getLogger(__name__)

try:  # allure-pytest is a dependency, but the plugin must work with it disabled (-p no:allure_pytest)
    import allure
except ImportError:  # pragma: no cover - exercised only without allure installed
    allure = None


def before_run(loaded: LoadedWorkflow, variation: str, overrides: dict[str, Any]) -> None:
    """Labels and parameters known before the run. The variation parameter makes each variation
    its own Allure history entry (allure-pytest derives history ids from parameters only)."""
    if allure is None:
        return
    wf = loaded.workflow
    var = next(v for v in wf.all_variations() if v.id == variation)
    allure.dynamic.parameter("variation", variation)
    allure.dynamic.title(f"{wf.name} [{variation}]")
    allure.dynamic.feature(wf.name)
    allure.dynamic.story(f"{variation} ({var.kind})")
    allure.dynamic.severity(wf.severity)
    for tag in wf.tags:
        allure.dynamic.tag(tag)


def after_run(result: RunResult) -> None:
    """Steps, attachments and analysis of the finished run."""
    if allure is None:
        return
