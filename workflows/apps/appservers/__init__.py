"""Third-party applications the example workflows run against, served on 127.0.0.1.

- ``{admin_url}``: Django's admin (PyPI ``django``) over a small catalogue app of ours.
- ``{todomvc_url}``: TodoMVC's plain JavaScript example (npm ``todomvc``).

Each is started the first time a run reads its placeholder, once per process (each xdist worker
has its own), and stopped when the process exits.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Callable, Iterator, Mapping

from .django_admin import DjangoAdmin
from .todomvc import TodoMVC

_lock = threading.Lock()
_started: dict[str, DjangoAdmin | TodoMVC] = {}
_FACTORIES: dict[str, Callable[[], DjangoAdmin | TodoMVC]] = {"admin_url": DjangoAdmin, "todomvc_url": TodoMVC}


def server(name: str) -> DjangoAdmin | TodoMVC:
    """The running server behind placeholder ``name``, started on first use."""
    with _lock:
        if name not in _started:
            _started[name] = _FACTORIES[name]()
        return _started[name]


def started() -> dict[str, DjangoAdmin | TodoMVC]:
    """The servers this process has started so far (for reports and tests)."""
    return dict(_started)


def stop_all() -> None:
    with _lock:
        while _started:
            _started.popitem()[1].close()


atexit.register(stop_all)


class LazyURLs(Mapping[str, str]):
    """The placeholders' mapping: names are known up front, a server starts when its URL is read."""

    def __getitem__(self, name: str) -> str:
        if name not in _FACTORIES:
            raise KeyError(name)
        return server(name).url

    def __contains__(self, name: object) -> bool:
        # Mapping's default would read the value, starting the server just to answer "is it there".
        return name in _FACTORIES

    def __iter__(self) -> Iterator[str]:
        return iter(_FACTORIES)

    def __len__(self) -> int:
        return len(_FACTORIES)
