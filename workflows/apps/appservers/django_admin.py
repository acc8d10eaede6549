"""The example Django admin site, run as a child process on 127.0.0.1 (see ``adminsite/serve.py``).

Django keeps its settings in process-wide globals, so the site runs in a process of its own: the
test process stays free of Django, and each pytest process (each xdist worker) gets its own site
and database.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from .errors import AppUnavailable

SERVE = Path(__file__).parent / "adminsite" / "serve.py"
START_TIMEOUT = 60.0


class AdminSiteError(AppUnavailable):
    """The admin site did not start; the message carries what the child process printed."""


class DjangoAdmin:
    """A running admin site: ``url`` (no trailing slash) serves the admin under ``/admin/``.

    The superuser ``admin`` gets the password in the ``ADMIN_PASSWORD`` environment variable,
    which the child inherits (never on its command line, where ``ps`` would show it).
    """

    def __init__(self, python: str = sys.executable, timeout: float = START_TIMEOUT) -> None:
        if not os.environ.get("ADMIN_PASSWORD"):
            raise AdminSiteError("ADMIN_PASSWORD is not set: the admin site needs a password for its superuser")
        started = time.perf_counter()
        self._stderr = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 - open as long as the child runs; closed in close()
        self._proc = subprocess.Popen(
            [python, str(SERVE), "--port", "0"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
        )
        self.url = self._wait_ready(timeout)
        self.start_seconds = time.perf_counter() - started

    def _wait_ready(self, timeout: float) -> str:
        assert self._proc.stdout is not None
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.append(self._proc.stdout.readline()), daemon=True)  # type: ignore[union-attr]
        reader.start()
        reader.join(timeout)
        line = lines[0] if lines else ""
        if not line.startswith("READY "):
            self.close()
            self._stderr.seek(0)
            detail = self._stderr.read().strip()[-2000:] or "(no output)"
            raise AdminSiteError(f"the admin site did not start within {timeout:.0f} s: {detail}")
        return line.split()[1].rstrip("/")

    def reset(self, timeout: float = 10.0) -> None:
        """Put the seed rows back (see serve.py): what earlier runs added, changed or deleted is gone."""
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write("reset\n")
        self._proc.stdin.flush()
        answer: list[str] = []
        reader = threading.Thread(target=lambda: answer.append(self._proc.stdout.readline()), daemon=True)  # type: ignore[union-attr]
        reader.start()
        reader.join(timeout)
        if not answer or answer[0].strip() != "RESET":
            raise AdminSiteError(f"the admin site did not reset its database within {timeout:.0f} s")

    def close(self) -> None:
        proc = self._proc
        if proc.poll() is None:
            try:
                # Closing stdin asks the server to shut down cleanly (it removes its database folder).
                if proc.stdin is not None:
                    proc.stdin.close()
                proc.wait(5)
            except (subprocess.TimeoutExpired, OSError):
                proc.kill()
                proc.wait(5)
        if proc.stdout is not None:
            proc.stdout.close()
        self._stderr.close()
