"""Local web sites the plugin serves on 127.0.0.1: the demo app and MiniWoB++ task pages.

Both are static folders (all behaviour is client-side JavaScript), so one threaded stdlib
server with two mounts is enough. Workflows reach them through the placeholders ``{demo_url}``
and ``{miniwob_url}``, which the plugin provides with its own ``pytest_reuseit_placeholders``
hook (as any suite adds its own): :class:`LocalSites` starts the server the first time a run
reads one of them, so a suite testing its own site never starts it. Each pytest process (each
xdist worker) starts its own on a free port.
"""

from __future__ import annotations

import functools
import importlib.util
import logging
import threading
from collections.abc import Iterator, Mapping
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from .errors import PlaceholderError

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
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},  # shutdown() waits for the next poll: 0.5 s by default
            name="reuseit-sites",
            daemon=True,
        )
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


class LocalSites(Mapping[str, str]):
    """``{demo_url}`` and ``{miniwob_url}``: the names are known at once, the server starts on first lookup."""

    NAMES = ("demo_url", "miniwob_url")

    def __init__(self) -> None:
        self._server: SiteServer | None = None
        self._lock = threading.Lock()  # runs in a browser thread and the main thread may both ask

    @property
    def started(self) -> bool:
        return self._server is not None

    def _started_server(self) -> SiteServer:
        with self._lock:
            if self._server is None:
                self._server = SiteServer()
            return self._server

    def __getitem__(self, name: str) -> str:
        if name not in self.NAMES:
            raise KeyError(name)
        if name == "miniwob_url" and miniwob_dir() is None:
            raise PlaceholderError(
                "{miniwob_url} needs the MiniWoB++ pages: install the 'examples' extra (pytest-reuseit[examples])"
            )
        server = self._started_server()
        return server.demo_url if name == "demo_url" else server.miniwob_url

    def __iter__(self) -> Iterator[str]:
        return iter(self.NAMES)

    def __len__(self) -> int:
        return len(self.NAMES)

    def close(self) -> None:
        with self._lock:
            if self._server is not None:
                self._server.close()
                self._server = None
