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


class Pages:
    """A handler serving fixed pages by path (``{"/": "<html>..."}``, anything else 404), which
    remembers every request's path: a test tells a request that reached it from one that did not."""

    def __init__(self, pages: dict[str, str]) -> None:
        self.pages = pages
        self.requests: list[str] = []

    def handler(self) -> Callable[..., Any]:
        site = self

        class Handler(SimpleHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
                site.requests.append(self.path)
                body = site.pages.get(self.path.split("?")[0])
                if body is None:
                    self.send_error(404)
                    return
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_POST = do_GET  # noqa: N815 - the stdlib's name

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
                pass

        return Handler
