"""A workflow run on a page whose HTML a test gives, served by a route in the test's own browser
at an address nothing listens on (``ADDRESS``): ``run_on`` the HTML, with ``look_for`` building
one step that checks what the page shows."""

from __future__ import annotations

import json
from typing import Any

from playwright.sync_api import Page, Route

from pytest_reuseit.engine.result import RunResult
from pytest_reuseit.engine.runner import execute
from pytest_reuseit.workflow.loader import parse

ADDRESS = "http://127.0.0.1:9/t"  # port 9 (discard): no server answers there, only the route


def look_for(check: dict[str, Any]) -> str:
    """The ``steps`` of a workflow that only checks ``check`` (an ``expect`` mapping) on the page."""
    return f"steps:\n  - action: Look\n    do: [{{wait: 0}}]\n    post: [{{expect: {json.dumps(check)}}}]\n"


def run_on(page: Page, html: str, steps: str, *, settings: str = "{check_timeout: 0.5}", top: str = "") -> RunResult:
    """``steps`` (YAML, from ``steps:`` on) run on ``page`` showing ``html``; ``top``: more
    top-level lines (``params: ...``). The route is gone afterwards, so a test may run again on
    other HTML."""

    def serve(route: Route) -> None:
        route.fulfill(content_type="text/html", body=html)

    page.route(ADDRESS, serve)
    try:
        text = f"name: n\ntask: t\nstart_url: {ADDRESS}\nsettings: {settings}\n{top}{steps}"
        return execute(page, parse(text, "w.reuseit.yaml"))
    finally:
        page.unroute(ADDRESS, serve)
