"""Example workflows against real third-party applications served on 127.0.0.1.

A workflow asks for an application with ``usefixtures: [admin_url]`` (or ``todomvc_url``,
``datasette_url``) and uses the fixture's value as ``{admin_url}``. Naming the fixture in the file
lets ``reuseit validate`` check the placeholder without running anything, and pytest starts the
application only for the tests that ask for it, once per session (each xdist worker its own), and
stops it at the end.
"""

from __future__ import annotations

import os
import secrets

import pytest

# pytest puts this folder on sys.path for its conftest (no __init__.py here), so the servers'
# package imports by its own name.
from appservers import running, started
from appservers.fixtures import admin_url, datasette_url, todomvc_url  # noqa: F401 - fixtures

# The admin site is ours to start, so its superuser's password can be anything: a CI secret when
# one is set, else a new random one per process. Workflows type it as {secret.ADMIN_PASSWORD}.
os.environ.setdefault("ADMIN_PASSWORD", secrets.token_urlsafe(16))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    # Which applications this process started, and how long each took to come up.
    for site in started():
        terminalreporter.write_line(f"apps: {{{site.name}}} = {site.url} (started in {site.seconds:.2f} s)")


@pytest.fixture(autouse=True)
def _fresh_admin_rows() -> None:
    """Every workflow meets the admin site's seed rows, however often it runs in one session (a
    second run of the delete workflow would find nothing to delete): mutation testing runs each
    workflow many times, and -n or -k may change the order."""
    site = running("admin_url")
    if site is not None and hasattr(site, "reset"):
        site.reset()


@pytest.fixture
def seed_book() -> dict[str, str]:
    """A book of the admin site's seed rows (adminsite/serve.py), for the workflows that find it."""
    return {"title": "Dune", "publisher": "Penguin"}


@pytest.fixture
def admin_user() -> dict[str, str]:
    """The superuser the admin site creates (adminsite/serve.py), for the workflows that log in as
    it. Its password is not here: workflows type it as {secret.ADMIN_PASSWORD}, which reports mask."""
    return {"username": "admin", "email": "admin@example.com"}
