"""Third-party applications the example workflows run against, served on 127.0.0.1.

- ``admin_url``: Django's admin (PyPI ``django``) over a small catalogue app of ours.
- ``todomvc_url``: TodoMVC's plain JavaScript example (npm ``todomvc``).
- ``datasette_url``: Datasette (PyPI ``datasette``) over a small SQLite catalogue of ours.

``fixtures`` offers each as a session-scoped pytest fixture of that name: a workflow that lists it
in ``usefixtures`` gets the URL as ``{admin_url}``, ``{todomvc_url}`` or ``{datasette_url}``. A server starts the first
time a test of the process asks for it (each xdist worker has its own) and stops at the end of
the session, or when the process exits.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Callable
from dataclasses import dataclass

from .datasette_app import Datasette
from .django_admin import DjangoAdmin
from .todomvc import TodoMVC

Server = DjangoAdmin | TodoMVC | Datasette
FACTORIES: dict[str, Callable[[], Server]] = {
    "admin_url": DjangoAdmin,
    "todomvc_url": TodoMVC,
    "datasette_url": Datasette,
}


@dataclass(frozen=True)
class Started:
    """What a process started, for its terminal summary: the URL and how long start-up took."""

    name: str
    url: str
    seconds: float


_lock = threading.Lock()
_running: dict[str, Server] = {}
_log: list[Started] = []


def server(name: str) -> Server:
    """The running server for ``name`` (a key of FACTORIES), started on first use."""
    with _lock:
        if name not in _running:
            site = FACTORIES[name]()
            _running[name] = site
            _log.append(Started(name, site.url, site.start_seconds))
        return _running[name]


def running(name: str) -> Server | None:
    """The server for ``name`` if this process has started it."""
    with _lock:
        return _running.get(name)


def stop(name: str) -> None:
    with _lock:
        site = _running.pop(name, None)
    if site is not None:
        site.close()


def stop_all() -> None:
    for name in list(_running):
        stop(name)


def started() -> list[Started]:
    """Every server this process has started so far, in order."""
    return list(_log)


atexit.register(stop_all)
