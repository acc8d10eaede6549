"""pytest-playwright's settings for the framework suites: the project's Chromium, the app's address.

The browser resolves no host name but 127.0.0.1's (a page's own request to another origin, such
as Streamlit's usage statistics, fails in the browser and reaches no network)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    path = os.environ.get("REUSEIT_CHROMIUM") or "/usr/bin/chromium"
    args = ["--disable-gpu", "--disable-quic", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]
    return {**browser_type_launch_args, "executable_path": path, "args": args}


@pytest.fixture
def app_url() -> str:
    return os.environ["APP_URL"].rstrip("/") + "/"


@pytest.fixture
def orders_csv() -> Path:
    return DATA / "orders.csv"
