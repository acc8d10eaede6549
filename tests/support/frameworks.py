"""The small apps of tests/support/apps/ (Streamlit, Gradio, Dash, NiceGUI), each served on
127.0.0.1 by a process of its own, as a Python team serves its tool while its pytest-playwright
suite runs.

The frameworks are looked for in ``.suites/frameworks`` (where ``ci/install.sh`` puts them, out
of the project's environment: Dash registers a pytest plugin, and none of them is the package's
dependency), then in this interpreter's own path. An app process reaches no other address: its
HTTP clients are sent to a closed port on 127.0.0.1 for anything but 127.0.0.1 (Gradio's and
Hugging Face's calls home are also turned off).
"""

from __future__ import annotations

import importlib.machinery
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.paths import ROOT

FRAMEWORKS = ROOT / ".suites" / "frameworks"
APPS = ROOT / "tests" / "support" / "apps"

# The module each app imports, by the app's name.
PACKAGES = {"streamlit": "streamlit", "gradio": "gradio", "dash": "dash", "nicegui": "nicegui"}


def available(name: str) -> bool:
    """Whether the framework ``name`` can be imported by an app process."""
    return importlib.machinery.PathFinder.find_spec(PACKAGES[name], [str(FRAMEWORKS), *sys.path]) is not None


def missing_reason(name: str) -> str:
    return f"{name} is not installed: bash ci/install.sh puts it in .suites/frameworks"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env(port: int) -> dict[str, str]:
    path = [str(FRAMEWORKS)] if FRAMEWORKS.is_dir() else []
    closed = "http://127.0.0.1:9"  # the discard port: nothing answers there
    # Not the test's pytest variables: NiceGUI takes PYTEST_CURRENT_TEST for its own test harness.
    own = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    return {
        **own,
        "PYTHONPATH": os.pathsep.join([*path, str(ROOT)]),
        "APP_PORT": str(port),
        "HTTP_PROXY": closed,
        "HTTPS_PROXY": closed,
        "http_proxy": closed,
        "https_proxy": closed,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
        "GRADIO_ANALYTICS_ENABLED": "False",
        "HF_HUB_OFFLINE": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "DO_NOT_TRACK": "1",
        "MPLBACKEND": "Agg",
    }


def _command(name: str, port: int, script: str) -> list[str]:
    app = str(APPS / f"{script}.py")
    if name == "streamlit":
        # Usage statistics left on, as a new user has them: the page asks data.streamlit.io.
        return [
            *(sys.executable, "-m", "streamlit", "run", app, "--server.address", "127.0.0.1"),
            *("--server.port", str(port), "--server.headless", "true", "--server.fileWatcherType", "none"),
            *("--global.developmentMode", "false"),
        ]
    return [sys.executable, app]


@contextmanager
def serve_app(
    name: str, folder: Path, timeout: float = 90, script: str = "", env: dict[str, str] | None = None
) -> Iterator[str]:
    """The app ``name`` served on 127.0.0.1 until the block ends; yields its URL. ``folder``: its
    working folder and log (``app.log``). ``script``: another app of the framework in ``apps/``
    (its file name without ``.py``; ``<name>_app`` by default); ``env``: variables it reads."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    folder.mkdir(parents=True, exist_ok=True)
    log = (folder / "app.log").open("wb")
    proc = subprocess.Popen(
        _command(name, port, script or f"{name}_app"),
        cwd=folder,
        env={**_env(port), **(env or {})},
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        _wait_up(proc, url, timeout, folder / "app.log")
        yield url
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)  # the app's own process group: it and what it started
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        log.close()


def _wait_up(proc: subprocess.Popen[bytes], url: str, timeout: float, log: Path) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the app stopped (exit {proc.returncode}): {log.read_text(errors='replace')[-2000:]}")
        try:
            with urllib.request.urlopen(url + "/", timeout=2) as answer:  # noqa: S310 - 127.0.0.1 only
                if answer.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.3)
    raise RuntimeError(
        f"the app did not answer at {url} within {timeout:g}s: {log.read_text(errors='replace')[-2000:]}"
    )
