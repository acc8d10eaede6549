"""A small shop whose pages change from night to night: the multi-night monitoring scenario.

``Night`` says what the site does tonight (the add button's label, whether a newsletter overlay
covers the deals page); ``serve`` answers every page from it, so one server carries every night
and the test changes the night between pytest sessions, as a deploy would.
"""

from __future__ import annotations

import contextlib
import html
import io
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlparse

import pytest

from pytest_reuseit import cli
from tests.support.serve import Served
from tests.support.webhook import Hook

T = TypeVar("T", bound="Team")


@dataclass
class Night:
    add_label: str = "Add to cart"
    overlay: bool = False
    labels: dict[str, str] = field(default_factory=dict)  # one product's own label tonight

    def label(self, item: str) -> str:
        return self.labels.get(item, self.add_label)


PRODUCTS = {"shoes": "Trail shoes", "jacket": "Rain jacket", "hat": "Sun hat"}


def product_page(night: Night, item: str) -> str:
    name = html.escape(PRODUCTS.get(item, item))
    label = html.escape(night.label(item))
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{name} - Shop</title></head>
<body><header><a href="/">Shop</a></header>
<main><h1>{name}</h1><p>In stock.</p>
<button id="add" type="button">{label}</button>
<p role="status" id="cart">Cart is empty</p></main>
<script>
document.getElementById('add').addEventListener('click', () => {{
  document.getElementById('cart').textContent = '1 item in cart';
}});
</script></body></html>"""


def deals_page(night: Night) -> str:
    overlay = (
        """<div role="dialog" aria-label="Newsletter" id="nl"
  style="position:fixed;inset:0;background:rgba(0,0,0,.6);display:flex;align-items:center;justify-content:center">
  <div style="background:#fff;padding:2em"><p>Join our newsletter</p>
  <button type="button" onclick="document.getElementById('nl').remove()">No thanks</button></div></div>"""
        if night.overlay
        else ""
    )
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Deals - Shop</title></head>
<body><main><h1>Deals</h1>
<button type="button" onclick="document.getElementById('list').hidden=false">Show deals</button>
<ul id="list" hidden><li>Trail shoes -20%</li></ul></main>{overlay}</body></html>"""


def handler(night: Night) -> type[BaseHTTPRequestHandler]:
    class Shop(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass

        def do_GET(self) -> None:
            url = urlparse(self.path)
            if url.path == "/product":
                body = product_page(night, parse_qs(url.query).get("item", ["shoes"])[0])
            elif url.path == "/deals":
                body = deals_page(night)
            else:
                body = "<!doctype html><title>Shop</title><h1>Shop</h1>"
            data = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Shop


# The suite the team runs every night against the shop: three workflows meet the same button (one
# cause when it is renamed), one meets the overlay that its fallback dismisses.
# A click waits 2 s for its button: 0.5 s was too short for a button that is there when CI ran three
# workers on two busy cores (the hat failed on a night it should pass, and the month's test with it);
# each night a button is renamed or covered, a few runs wait that long (the month: 83 s, was 79 s).
_ADD = """name: Add the {item} to the cart
task: Put the {item} in the cart
start_url: "{{base_url}}/product?item={item}"
settings: {{retries: 1, action_timeout: 2, check_timeout: 2}}
steps:
  - action: Click "Add to cart"
    do:
      - click: {{role: button, name: Add to cart}}
    post:
      - check: The cart holds one item
        expect: {{text: {{role: status, equals: 1 item in cart}}}}
"""

_DEALS = """name: Show the deals
task: Open the deals list
start_url: "{base_url}/deals"
settings: {retries: 1, action_timeout: 2, check_timeout: 2}
steps:
  - action: Click "Show deals"
    do:
      - click: {role: button, name: Show deals}
    post:
      - check: The deals are listed
        expect: {visible: {text: Trail shoes -20%}}
    fallback:
      - do: [{click: {role: button, name: No thanks}}]
        redo: true
"""

WORKFLOWS = {f"add-{item}.reuseit.yaml": _ADD.format(item=item) for item in PRODUCTS} | {"deals.reuseit.yaml": _DEALS}


class Team:
    """A team's nights against the shop: the workflows folder, the history kept between nights, the
    served site and a webhook listening. Each night is ``pytest`` on the workflows in this process
    (pytester: a session of its own with its own browser, as the plugin runs beside another
    Playwright user), then ``reuseit report`` as its entry point runs it, in this process as well."""

    def __init__(self, pytester: pytest.Pytester, site: Served, night: Night, hook: Hook) -> None:
        self.pytester, self.root, self.site, self.night, self.hook = pytester, pytester.path, site, night, hook
        self.workflows = self.root / "workflows"
        self.workflows.mkdir()
        for name, text in WORKFLOWS.items():
            (self.workflows / name).write_text(text, encoding="utf-8")
        self.history = self.root / "history.sqlite"
        self.count = 0
        self.output = self.root / "report"

    def pytest(self, results: Path, base_url: str = "", *args: str) -> pytest.RunResult:
        """The suite run against ``base_url`` (the site by default), its results in ``results``."""
        return self.pytester.runpytest(
            str(self.workflows), "-p", "no:cacheprovider", "-q", "--rootdir", str(self.workflows),
            "--base-url", base_url or self.site.url, "--alluredir", str(results), *args,
        )  # fmt: skip

    def report(self, results: Path, output: Path, *args: str) -> str:
        """``reuseit report`` of ``results`` into the history, the webhook told; what it printed."""
        out, err = io.StringIO(), io.StringIO()
        with contextlib.chdir(self.root), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(["report", "--results", str(results), "--output", str(output), "--no-allure",
                             "--alert-webhook", self.hook.url, "--history", str(self.history), *args])  # fmt: skip
        assert code == 0, out.getvalue() + err.getvalue()
        return out.getvalue()

    def run(self, base_url: str = "", *report_args: str) -> tuple[str, dict[str, Any]]:
        """Tonight's suite run and its report: what the report printed and since-last.json."""
        self.count += 1
        results, self.output = self.root / f"results-{self.count}", self.root / f"report-{self.count}"
        pytest_run = self.pytest(results, base_url)
        assert pytest_run.ret in (0, 1), pytest_run.stdout.str() + pytest_run.stderr.str()
        printed = self.report(results, self.output, *report_args)
        return printed, json.loads((self.output / "since-last.json").read_text(encoding="utf-8"))


@contextlib.contextmanager
def team_of(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, kind: type[T]) -> Iterator[T]:
    """A team whose environment holds none of the REUSEIT_ and OPENAI_ settings of this machine,
    with REUSEIT_HISTORY at the history kept between nights, the shop served and the hook up."""
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "REUSEIT_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("REUSEIT_HISTORY", str(pytester.path / "history.sqlite"))
    night = Night()
    hook = Hook()
    try:
        with Served(handler(night)) as site:
            yield kind(pytester, site, night, hook)
    finally:
        hook.httpd.shutdown()
