"""pytest-playwright's settings for this suite: the project's Chromium, TodoMVC's address."""

from __future__ import annotations

import os
from typing import Any

import pytest


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    path = os.environ.get("REUSEIT_CHROMIUM") or "/usr/bin/chromium"
    return {**browser_type_launch_args, "executable_path": path, "args": ["--disable-gpu", "--disable-quic"]}


@pytest.fixture
def todo_url() -> str:
    return os.environ["TODO_URL"].rstrip("/") + "/examples/vanillajs/"
