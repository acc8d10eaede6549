"""A request handler served on 127.0.0.1 in a daemon thread: the tests' small local sites."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


class Served:
    """Serves ``handler`` until ``close()``; ``url`` has no trailing slash."""

    def __init__(self, handler: Callable[..., Any], host: str = "127.0.0.1") -> None:
        self.httpd = ThreadingHTTPServer((host, 0), handler)
        self.httpd.daemon_threads = True
        self.url = f"http://{host}:{self.httpd.server_address[1]}"
        # shutdown() waits for the next poll: 0.5 s by default, for every server a test closes.
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> Served:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def files(folder: Path) -> Callable[..., Any]:
    """A handler serving the files of ``folder`` (an npm package's app), without a log line per request."""

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
            pass

    return functools.partial(Quiet, directory=str(folder))
