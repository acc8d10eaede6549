"""TodoMVC's plain JavaScript example, served as static files on 127.0.0.1.

The files are those of the ``todomvc`` npm package, as installed by ``ci/install.sh`` into the
repository's ``node_modules`` (or the folder in ``TODOMVC_DIR``). They are served unmodified; the
package root is served so the example's relative links (``../../learn.json``) resolve.
"""

from __future__ import annotations

import functools
import os
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from .errors import AppUnavailable

REPO = Path(__file__).resolve().parents[3]
EXAMPLE = "examples/vanillajs"


class TodoMVCMissing(AppUnavailable):
    """The npm package is not installed."""


def package_dir() -> Path:
    folder = Path(os.environ.get("TODOMVC_DIR") or REPO / "node_modules" / "todomvc")
    if not (folder / EXAMPLE / "index.html").is_file():
        raise TodoMVCMissing(
            f"TodoMVC is not installed in {folder}: run `bash ci/install.sh` (npm install todomvc) "
            "or set TODOMVC_DIR to the package's folder"
        )
    return folder


class _Quiet(SimpleHTTPRequestHandler):
    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass


class TodoMVC:
    """A running static server; ``url`` is the example's folder (no trailing slash)."""

    def __init__(self) -> None:
        started = time.perf_counter()
        root = package_dir()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(root)))
        self._httpd.daemon_threads = True
        host, port = self._httpd.server_address[:2]
        self.url = f"http://{host}:{port}/{EXAMPLE}"
        threading.Thread(target=self._httpd.serve_forever, name="todomvc", daemon=True).start()
        self.start_seconds = time.perf_counter() - started

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
