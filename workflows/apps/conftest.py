"""Example workflows against real third-party applications served on 127.0.0.1.

``{admin_url}`` (Django's admin) and ``{todomvc_url}`` (TodoMVC) come from the placeholders hook;
each server starts the first time a run uses its placeholder (see ``appservers``).
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping

import pytest

# pytest puts this folder on sys.path for its conftest (no __init__.py here), so the servers'
# package imports by its own name.
from appservers import LazyURLs, started

# The admin site is ours to start, so its superuser's password can be anything: a CI secret when
# one is set, else a new random one per process. Workflows type it as {secret.ADMIN_PASSWORD}.
os.environ.setdefault("ADMIN_PASSWORD", secrets.token_urlsafe(16))


@pytest.hookimpl(optionalhook=True)
def pytest_reuseit_placeholders(config: pytest.Config) -> Mapping[str, str]:
    return LazyURLs()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    # Which applications this process started, and how long each took to come up.
    for name, site in started().items():
        terminalreporter.write_line(f"apps: {{{name}}} = {site.url} (started in {site.start_seconds:.2f} s)")
