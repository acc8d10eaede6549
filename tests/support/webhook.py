"""A webhook receiver on 127.0.0.1 that keeps every JSON message it was sent (alerts' tests)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Hook:
    """A webhook receiver on 127.0.0.1 that keeps every message it was sent."""

    def __init__(self) -> None:
        received = self.received = []  # type: list[dict[str, Any]]

        class Receive(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                received.append(json.loads(body))
                self.send_response(200)
                self.end_headers()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Receive)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/hook"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def take(self) -> list[dict[str, Any]]:
        out = list(self.received)
        self.received.clear()
        return out
