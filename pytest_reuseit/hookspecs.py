"""The hooks pytest-reuseit calls, so a suite extends it from a ``conftest.py`` or a plugin.

Registered with ``pluginmanager.add_hookspecs`` by the plugin; docs/hooks.md shows each one with
an example. Hooks are called through the item's own hook proxy, so a ``conftest.py`` applies to
the workflow files in its folder and below, as it does for Python tests.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from .engine.result import RunResult


@pytest.hookspec
def pytest_reuseit_placeholders(config: pytest.Config) -> Mapping[str, Any] | None:
    """Return a mapping of extra built-in placeholders (``{name}`` in any workflow string).

    Every implementation is asked; when two give the same name, the one pytest calls first wins
    (conftests before plugins, so a suite can override the project's own ``demo_url``). Built-ins
    come after a run's extracted values, params and fixtures. Only the names are read at
    collection (to validate files); a value is read the first time a run uses it, so a mapping
    may start something expensive in ``__getitem__`` and cost nothing to runs that never use it.
    """


@pytest.hookspec
def pytest_reuseit_run_start(item: pytest.Item, page: Page) -> None:
    """Called after a run's browser page opens, before ``start_url`` is loaded and before step 1.

    ``page`` is the Playwright ``Page``: add cookies, route requests, set extra headers. An
    exception here ends the item as an error, like an exception in a fixture.
    """


class RunEnd:
    """What ``pytest_reuseit_run_end`` receives: the verdict in one word, and the whole run.

    ``status`` is one of ``passed``, ``recovered``, ``healed``, ``failed``, ``broken`` (a
    recovered or healed run is a pass that shows as such). Any other attribute is read from
    the engine's ``RunResult`` (``result.workflow``, ``result.steps``, ``result.analysis`` ...),
    which is also ``result.run``.
    """

    def __init__(self, run: RunResult) -> None:
        self.run = run
        self.status: str = run.label

    def __getattr__(self, name: str) -> Any:
        return getattr(self.run, name)

    def __repr__(self) -> str:
        return f"RunEnd(status={self.status!r}, workflow={self.run.workflow!r}, variation={self.run.variation!r})"


@pytest.hookspec
def pytest_reuseit_run_end(item: pytest.Item, result: RunEnd) -> None:
    """Called after a run's verdict, before the item passes or fails (see :class:`RunEnd`).

    An exception here ends the item as an error.
    """


@pytest.hookspec
def pytest_reuseit_ops(registry: Any) -> None:
    """Register a suite's own ops: ``registry.register(...)``; they are then usable in ``do:``
    lists, validated by the loader and described to the agent.

    Called once, at configuration, for plugins and the conftests pytest loads before collection
    (the rootdir's and the test paths'), because files are validated against the registry.
    """
