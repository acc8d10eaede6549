"""Local web sites the plugin serves on 127.0.0.1: the demo app and MiniWoB++ task pages.

Both are static folders (all behaviour is client-side JavaScript), so one threaded stdlib
server with two mounts is enough. Each pytest process (each xdist worker) starts its own on a
free port; workflows reach them through the built-in placeholders ``{demo_url}`` and
``{miniwob_url}``.
"""

from __future__ import annotations

import functools
import importlib.util
import logging
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

log = logging.getLogger(__name__)

DEMO_DIR = Path(__file__).parent / "demo" / "site"


def miniwob_dir() -> Path | None:
    """The ``html`` folder of the installed ``miniwob`` package, or None when it is absent."""
    spec = importlib.util.find_spec("miniwob")
    if spec is None or not spec.submodule_search_locations:
        return None
    html = Path(list(spec.submodule_search_locations)[0]) / "html"
    return html if html.is_dir() else None


class _Handler(SimpleHTTPRequestHandler):
    """Serves ``/demo/...`` from the demo folder and ``/wob/...`` from MiniWoB++'s html folder."""

    mounts: dict[str, Path] = {}

    def translate_path(self, path: str) -> str:
        clean = path.split("?", 1)[0].split("#", 1)[0]
        for prefix, root in self.mounts.items():
            if clean == f"/{prefix}" or clean.startswith(f"/{prefix}/"):
                rel = clean[len(prefix) + 1 :].lstrip("/")
                target = (root / rel).resolve()
                # Never serve anything outside the mounted folder (../ tricks).
                if target != root.resolve() and root.resolve() not in target.parents:
                    return str(root / "__forbidden__")
                return str(target)
        return str(DEMO_DIR / "__not_found__")

    def end_headers(self) -> None:
        # Pages change between test runs; a cached copy would hide a change.
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        log.debug("site: " + format, *args)


class SiteServer:
    """A started server; ``demo_url`` and ``miniwob_url`` have no trailing slash."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        mounts: dict[str, Path] = {"demo": DEMO_DIR}
        wob = miniwob_dir()
        if wob is not None:
            mounts["wob"] = wob
        handler = type("SiteHandler", (_Handler,), {"mounts": mounts})
        self._httpd = ThreadingHTTPServer((host, port), functools.partial(handler))
        self._httpd.daemon_threads = True
        bound, self.port = self._httpd.server_address[:2]
        self.host = bound.decode() if isinstance(bound, (bytes, bytearray)) else bound
        self.has_miniwob = wob is not None
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="reuseit-sites", daemon=True)
        self._thread.start()
        log.debug("serving demo%s on %s", " and MiniWoB++" if wob else "", self.base)

    @property
    def base(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def demo_url(self) -> str:
        return f"{self.base}/demo"

    @property
    def miniwob_url(self) -> str:
        return f"{self.base}/wob/miniwob"

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> SiteServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
