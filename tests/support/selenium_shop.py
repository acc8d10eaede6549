"""The shop of tests/pages/selenium served on 127.0.0.1: as it is, with its ids renamed (a
refactor: the page's own scripts follow), or with a bug in its total."""

from __future__ import annotations

from http.server import SimpleHTTPRequestHandler

from tests.support import paths
from tests.support.serve import Served

PAGES = paths.PAGES / "selenium"


class _Shop(SimpleHTTPRequestHandler):
    """tests/pages/selenium, with its ids renamed (``renamed``) or its total wrong (``broken``)."""

    renamed: dict[str, str] = {}
    broken = False

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass

    def do_GET(self) -> None:
        name = self.path.split("?")[0].lstrip("/") or "shop.html"
        path = PAGES / name
        if "/" in name or not path.is_file():  # its own pages, nothing else
            self.send_error(404)
            return
        text = path.read_text(encoding="utf-8")
        for old, new in self.renamed.items():
            for form in ('id="{}"', 'for="{}"', 'getElementById("{}")', "getElementById('{}')"):  # its scripts too
                text = text.replace(form.format(old), form.format(new))
        if self.broken:
            text = text.replace("const BROKEN = /broken/.test(location.search);", "const BROKEN = true;")
        body = text.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def shop_site(renamed: dict[str, str] | None = None, broken: bool = False) -> Served:
    handler = type("Shop", (_Shop,), {"renamed": renamed or {}, "broken": broken})
    return Served(handler)
