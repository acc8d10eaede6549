"""Remote browsers on 127.0.0.1 for the tests of ``--reuseit-connect`` and ``--reuseit-cdp`` (the
scale-out path: workers use a remote browser instead of launching one): a Playwright browser server
(``launch-server``), a Playwright server (``run-server``) and a Chromium with remote debugging.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import quote

from pytest_reuseit.browser.session import DEFAULT_ARGS, default_executable
from pytest_reuseit.errors import BrokenRun


class BrowserServer:
    """Started on construction; ``endpoint`` is its ws:// URL; ``stop()`` ends it and its Chromium."""

    def __init__(
        self, executable: str | None = None, args: tuple[str, ...] = DEFAULT_ARGS, timeout: float = 60
    ) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="reuseit-server-")
        config = Path(self._dir.name) / "server.json"
        options: dict[str, object] = {
            "port": 0,
            "host": "127.0.0.1",
            "wsPath": f"reuseit-{uuid.uuid4().hex[:8]}",
            "args": list(args),
        }
        exe = executable or default_executable()
        if exe:
            options["executablePath"] = exe
        config.write_text(json.dumps(options))
        # Its own process group: stopping the group stops python and the node driver (which closes Chromium).
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "playwright", "launch-server", "--browser", "chromium", "--config", str(config)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.append(self.proc.stdout.readline()), daemon=True)  # type: ignore[union-attr]
        reader.start()
        reader.join(timeout)
        if not lines or not lines[0].startswith("ws://"):
            self.stop()
            raise BrokenRun(f"the browser server did not start: {lines!r}")
        self.endpoint = lines[0].strip()

    def stop(self) -> None:
        """Stop the server's process group and wait until it is gone (the port closed with it)."""
        group = self.proc.pid
        try:
            os.killpg(group, signal.SIGTERM)
        except ProcessLookupError:
            self._dir.cleanup()
            return
        self.proc.wait(15)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                os.killpg(group, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            os.killpg(group, signal.SIGKILL)
        self._dir.cleanup()

    def __enter__(self) -> BrowserServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _first_line_matching(stream, prefix: str, timeout: float) -> str | None:  # type: ignore[no-untyped-def]
    """The first line of ``stream`` containing ``prefix`` (read in a thread: a silent process must not hang us)."""
    found: list[str] = []

    def read() -> None:
        for line in stream:
            if prefix in line:
                found.append(line)
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout)
    return found[0] if found else None


def _group_runs(group: int) -> bool:
    """Whether a process of ``group`` still runs. An exited child waiting to be reaped (a zombie:
    it holds no port, no file) does not count: reaping it is process 1's, which can take a second
    or more on a VM. Without /proc, any member counts."""
    proc = Path("/proc")
    if not proc.is_dir():
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return False
        return True
    for stat in proc.glob("[0-9]*/stat"):
        try:
            # pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so split after it.
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue  # gone meanwhile
        if len(fields) > 2 and int(fields[2]) == group and fields[0] not in ("Z", "X"):
            return True
    return False


class _Process:
    """A server process in its own process group, stopped with the whole group."""

    proc: subprocess.Popen[str]

    def stop(self) -> None:
        group = self.proc.pid
        try:
            os.killpg(group, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(group, signal.SIGKILL)
            self.proc.wait(5)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if not _group_runs(group):
                return
            time.sleep(0.05)
        os.killpg(group, signal.SIGKILL)

    def alive(self) -> bool:
        return self.proc.poll() is None


class CdpChromium(_Process):
    """A Chromium started on its own with ``--remote-debugging-port`` on 127.0.0.1 (what Browserless,
    Selenium Grid 4 or a developer's browser offer): ``endpoint`` is its http:// DevTools address."""

    def __init__(self, executable: str | None = None, timeout: float = 60) -> None:
        exe = executable or default_executable()
        if not exe:
            raise BrokenRun("no Chromium to start with remote debugging")
        self._dir = tempfile.TemporaryDirectory(prefix="reuseit-cdp-")
        self.proc = subprocess.Popen(
            [
                exe,
                "--headless",
                "--no-sandbox",
                *DEFAULT_ARGS,
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
                f"--user-data-dir={self._dir.name}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        line = _first_line_matching(self.proc.stderr, "DevTools listening on ws://", timeout)
        if line is None:
            self.stop()
            raise BrokenRun("Chromium with remote debugging did not start")
        self.ws_endpoint = line.split("DevTools listening on ", 1)[1].strip()
        self.endpoint = "http://" + self.ws_endpoint.split("//", 1)[1].split("/", 1)[0]

    def stop(self) -> None:
        super().stop()
        self._dir.cleanup()

    def __enter__(self) -> CdpChromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class RunServer(_Process):
    """``playwright run-server`` on 127.0.0.1: the Playwright server a pool of browser nodes runs
    (each client connection launches a browser there). Its nodes normally carry Playwright's own
    Chromium; here the URL names the local one, which ``--unsafe`` lets a client choose."""

    def __init__(self, executable: str | None = None, timeout: float = 60) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "playwright", "run-server", "--host", "127.0.0.1", "--port", "0", "--unsafe"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        line = _first_line_matching(self.proc.stdout, "Listening on ws://", timeout)
        if line is None:
            self.stop()
            raise BrokenRun("playwright run-server did not start")
        base = line.split("Listening on ", 1)[1].strip()
        launch: dict[str, object] = {"args": list(DEFAULT_ARGS)}
        exe = executable or default_executable()
        if exe:
            launch["executablePath"] = exe
        self.endpoint = f"{base}?launch-options={quote(json.dumps(launch))}"

    def __enter__(self) -> RunServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
