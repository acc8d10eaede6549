"""Datasette (PyPI ``datasette``) over a small SQLite catalogue, run as a child process on 127.0.0.1.

Datasette is served as installed: only the database is ours, written afresh for each server, so
every run starts from the same rows. Its table pages filter, sort and export (CSV links that show
the file in the browser, and an export form whose "download file" box makes it a download).
"""

from __future__ import annotations

import importlib.util
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from .errors import AppUnavailable

START_TIMEOUT = 60.0

PRODUCTS = [
    (1, "Trail Shoes", "shoes", 89.00, 1),
    (2, "Road Running Shoes", "shoes", 74.00, 1),
    (3, "City Sneakers", "shoes", 64.00, 0),
    (4, "Rain Jacket Pro", "jackets", 149.00, 1),
    (5, "Packable Rain Jacket", "jackets", 79.95, 1),
    (6, "Daypack 18L", "bags", 49.99, 0),
    (7, "Hiking Backpack 30L", "bags", 99.00, 1),
    (8, "Merino Wool Socks", "accessories", 14.99, 1),
]


class DatasetteError(AppUnavailable):
    """Datasette is not installed or did not start; the message says which and what to do."""


def write_catalogue(path: Path) -> None:
    """The ``shop`` database: one ``products`` table (id, name, category, price, in_stock)."""
    with sqlite3.connect(path) as db:
        db.execute(
            "create table products (id integer primary key, name text, category text, price real, in_stock integer)"
        )
        db.executemany("insert into products values (?, ?, ?, ?, ?)", PRODUCTS)
    # sqlite3's context manager commits; close it so Datasette is the only one with the file open.
    db.close()


def _free_port() -> int:
    # Datasette prints no address it chose itself: ask the system for a free port and pass it on.
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Datasette:
    """A running Datasette: ``url`` (no trailing slash) serves the ``shop`` database at ``/shop``."""

    def __init__(self, python: str = sys.executable, timeout: float = START_TIMEOUT) -> None:
        if importlib.util.find_spec("datasette") is None:
            raise DatasetteError("Datasette is not installed: pip install -e '.[examples]' (or bash ci/install.sh)")
        started = time.perf_counter()
        self._folder = tempfile.TemporaryDirectory(prefix="reuseit-datasette-")
        db = Path(self._folder.name) / "shop.db"
        write_catalogue(db)
        self._stderr = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 - open as long as the child runs; closed in close()
        port = _free_port()
        self.url = f"http://127.0.0.1:{port}"
        self._proc = subprocess.Popen(
            [python, "-m", "datasette", "serve", str(db), "--host", "127.0.0.1", "--port", str(port)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._stderr,
        )
        self._wait_ready(timeout)
        self.start_seconds = time.perf_counter() - started

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self._proc.poll() is None:
            try:
                with urllib.request.urlopen(f"{self.url}/-/versions.json", timeout=2) as answer:
                    if answer.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                time.sleep(0.1)
        code = self._proc.poll()
        self._stderr.seek(0)
        detail = self._stderr.read().strip()[-2000:] or "(no output)"
        self.close()
        exited = f" (it exited with code {code})" if code is not None else ""
        raise DatasetteError(f"Datasette did not start within {timeout:.0f} s{exited}: {detail}")

    def close(self) -> None:
        proc = self._proc
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        self._stderr.close()
        self._folder.cleanup()
