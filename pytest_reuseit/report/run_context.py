"""Session-level files: Allure's environment/executor/categories, and the model usage JSON."""

from __future__ import annotations

import json
import os
import platform
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .. import __version__
from ..llm.client import endpoint_host
from . import allure_files


def browser_version(runtime: Any) -> str:
    s = runtime.settings
    if s.connect or s.cdp:
        return f"remote ({urlsplit(s.connect or s.cdp).hostname})"
    exe = runtime.session.config.executable()  # the Chromium the runs launch (the session starts nothing yet)
    if not exe:
        return "Playwright's Chromium"
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return exe
    lines = [ln for ln in out.splitlines() if "hromium" in ln or "hrome" in ln]
    return lines[-1].strip() if lines else exe


def executor() -> dict[str, str] | None:
    """Who ran the tests, when it was a CI (shown on the report's overview)."""
    env = os.environ
    if env.get("GITHUB_ACTIONS"):
        url = f"{env.get('GITHUB_SERVER_URL', '')}/{env.get('GITHUB_REPOSITORY', '')}/actions/runs/{env.get('GITHUB_RUN_ID', '')}"
        return {
            "name": "GitHub Actions",
            "type": "github",
            "buildName": f"{env.get('GITHUB_WORKFLOW', '')} #{env.get('GITHUB_RUN_NUMBER', '')}",
            "buildUrl": url,
            "reportName": "pytest-reuseit",
        }
    if env.get("GITLAB_CI"):
        return {
            "name": "GitLab CI",
            "type": "gitlab",
            "buildName": f"pipeline {env.get('CI_PIPELINE_ID', '')}",
            "buildUrl": env.get("CI_PIPELINE_URL", ""),
            "reportName": "pytest-reuseit",
        }
    if env.get("CI"):
        return {"name": "CI", "type": "ci", "buildName": env.get("BUILD_NUMBER", ""), "reportName": "pytest-reuseit"}
    return None


def write(results: Path, runtime: Any) -> None:
    s = runtime.settings
    model = s.model if runtime.llm_enabled else f"off ({s.llm})"
    allure_files.write_environment(
        results,
        {
            "browser": browser_version(runtime),
            "model": model,
            "model.endpoint": endpoint_host() if runtime.llm_enabled else "-",
            "model.mode": s.llm,
            "pytest-reuseit": __version__,
            "python": platform.python_version(),
            "base_url": s.base_url or "-",
        },
    )
    allure_files.write_categories(results)
    info = executor()
    if info:
        (results / "executor.json").write_text(json.dumps(info, indent=2), encoding="utf-8")


def write_healing(path: Path, runs: list[tuple[str, dict[str, Any]]]) -> None:
    """Locators that worked when a ``do`` op broke, for the author (and ``reuseit heal``)."""
    suggestions = [dict(s, test=nodeid) for nodeid, info in runs for s in info.get("healing", [])]
    if not suggestions:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(suggestions, indent=2), encoding="utf-8")


def write_usage(path: Path, runs: list[tuple[str, dict[str, Any]]]) -> None:
    """Model calls, cache hits, tokens and cost per item and for the session."""
    items = {nodeid: info["usage"] for nodeid, info in runs}
    total = {k: sum(u[k] for u in items.values()) for k in ("calls", "cache_hits", "tokens", "cost")}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"total": total, "items": items}, indent=2), encoding="utf-8")
