"""The browser-context options of one run, built from the workflow's ``browser:`` keys.

Most keys pass straight to Playwright's ``new_context``; three are built here: ``device``
expands to Playwright's device descriptor (explicit keys win over it), ``http_credentials`` is
filled with placeholders and secrets only now, at the moment the context is created, and
``storage_state`` is a file next to the workflow (or the state a ``session:`` workflow left).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import BrokenRun
from .workflow.loader import LoadedWorkflow
from .workflow.placeholders import Values


@dataclass
class ContextOptions:
    kwargs: dict[str, Any]
    revealed_secret: bool = False  # a secret went into the context (credentials): keep no trace


def build(
    loaded: LoadedWorkflow,
    values: Values,
    devices: Mapping[str, Mapping[str, Any]] | None,
    storage_state: dict[str, Any] | None = None,
) -> ContextOptions:
    """``devices`` is Playwright's descriptor table (needed only when ``device`` is set);
    ``storage_state`` the state a session workflow left (it replaces ``browser.storage_state``)."""
    browser = loaded.workflow.browser
    kwargs: dict[str, Any] = {}
    if browser.device is not None:
        kwargs.update(_device(browser.device, devices or {}))
    kwargs.update(browser.context_kwargs())
    if browser.permissions is not None:
        kwargs["permissions"] = list(browser.permissions)
    revealed = False
    if browser.http_credentials is not None:
        before = len(values.secrets_used)
        kwargs["http_credentials"] = {
            "username": values.render(browser.http_credentials.username, reveal=True),
            "password": values.render(browser.http_credentials.password, reveal=True),
        }
        revealed = len(values.secrets_used) > before
    if storage_state is not None:
        kwargs["storage_state"] = storage_state
    elif browser.storage_state is not None:
        path = Path(loaded.folder) / values.render(browser.storage_state)
        if not path.is_file():
            raise BrokenRun(
                f"browser.storage_state file {browser.storage_state!r} does not exist "
                f"(looked for {path.name} next to {loaded.source.path})"
            )
        kwargs["storage_state"] = str(path)
    return ContextOptions(kwargs, revealed)


def _device(name: str, devices: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    if name not in devices:
        guess = difflib.get_close_matches(name, list(devices), n=3, cutoff=0.5)
        hint = f"; did you mean: {', '.join(repr(g) for g in guess)}?" if guess else ""
        raise BrokenRun(f"browser.device: unknown Playwright device {name!r}{hint}")
    descriptor = dict(devices[name])
    descriptor.pop("default_browser_type", None)  # the browser is always Chromium here
    return descriptor
