"""The applications as session-scoped pytest fixtures; workflows/apps/conftest.py imports them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from . import Server, server, stop
from .errors import AppUnavailable


def _start(name: str) -> Server:
    try:
        return server(name)
    except AppUnavailable as exc:
        # A setup error with the reason and the remedy; a traceback would only hide them.
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="session")
def admin_url() -> Iterator[str]:
    """Django's admin site (``{admin_url}/admin/``); superuser ``admin``, password ``ADMIN_PASSWORD``."""
    yield _start("admin_url").url
    stop("admin_url")


@pytest.fixture(scope="session")
def todomvc_url() -> Iterator[str]:
    """TodoMVC's plain JavaScript example (``{todomvc_url}/``)."""
    yield _start("todomvc_url").url
    stop("todomvc_url")


@pytest.fixture(scope="session")
def datasette_url() -> Iterator[str]:
    """Datasette over the ``shop`` database (``{datasette_url}/shop/products``)."""
    yield _start("datasette_url").url
    stop("datasette_url")
