"""A Playwright browser server (``playwright launch-server``) on 127.0.0.1, for the tests of
``--reuseit-connect`` (the scale-out path: workers use a remote browser instead of launching one).
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
