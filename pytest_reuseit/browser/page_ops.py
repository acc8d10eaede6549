"""The handlers of the ops on the run's pages: ``goto``, ``switch_page``, ``close_page`` and the
history's ``back``, ``forward`` and ``reload`` (attached to the registry when ``browser.ops`` loads)."""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urljoin

from ..errors import BrokenRun
from ..workflow import ops as registry
from ..workflow.op_args import PageUrl
from .observe import navigation_s
from .op_context import OpContext, OpFailed
from .pages import history_step, until_loaded
from .session import web_address


@registry.handles("switch_page")
def _switch_page(ctx: OpContext, arg: Any) -> None:
    assert ctx.pages is not None
    if isinstance(arg, PageUrl):
        url = arg.url
        arg = PageUrl(
            url=ctx.render(url)
            if isinstance(url, str)
            else url.model_copy(update={k: ctx.render(v) for k, v in url.model_dump(exclude_none=True).items()})
        )
    # A page named by its URL may still be opening (a pop-up the last click opened is about:blank
    # until it loads): it is waited for up to the op's timeout, as the recorder's replay waits.
    deadline = time.monotonic() + (ctx.action_timeout_ms / 1000 if isinstance(arg, PageUrl) else 0)
    while True:
        try:
            ctx.pages.switch(arg)
            return
        except LookupError as exc:
            what = f"switch_page {arg if not isinstance(arg, PageUrl) else 'url'}"
            frame = _frame_of(ctx, arg)
            if frame:  # no page will come: say so at once (a LOC's frame: looks inside it)
                raise OpFailed(what, f"{exc}; {frame} is a frame of this page, not a page", "not_found") from None
            if time.monotonic() >= deadline:
                raise OpFailed(what, str(exc), "not_found") from None
        ctx.page.wait_for_timeout(100)


def _frame_of(ctx: OpContext, arg: Any) -> str:
    """The URL of a frame of the current page that ``arg`` (a page's URL) names, or ""."""
    if not isinstance(arg, PageUrl) or not isinstance(arg.url, str):
        return ""
    try:
        return next((f.url for f in ctx.page.frames[1:] if f.url == arg.url), "")
    except Exception:  # noqa: BLE001 - a page closing under the look: no frame of it
        return ""


@registry.handles("close_page")
def _close_page(ctx: OpContext, arg: Any) -> None:
    assert ctx.pages is not None
    if len(ctx.pages.open_pages()) < 2:
        raise OpFailed("close_page", "this is the only open page: closing it would end the run", "not_found")
    ctx.pages.close_current()


def _history(method: str) -> registry.Handler:
    def handler(ctx: OpContext, arg: Any) -> None:
        nowhere = history_step(ctx.page, method, navigation_s(ctx.page) * 1000, ctx.action_timeout_ms)
        if nowhere:
            raise OpFailed(method.replace("go_", ""), nowhere, "not_found")

    return handler


registry.attach("back", _history("go_back"))
registry.attach("forward", _history("go_forward"))
registry.attach("reload", _history("reload"))


@registry.handles("goto")
def _goto(ctx: OpContext, arg: str) -> None:
    page = ctx.page
    target = ctx.reveal(arg)  # a secret in a URL (a token link) is navigated to, never shown
    url = urljoin(page.url, target) if page.url.startswith("http") else target
    if not web_address(url):
        raise BrokenRun(f"goto {ctx.render(arg)}: not a web address; write it with http:// or https://")
    # Opening a page waits for its server as long as the navigation budget allows.
    response = page.goto(url, timeout=navigation_s(page) * 1000, wait_until="domcontentloaded")
    until_loaded(page, ctx.action_timeout_ms)
    if ctx.blocked and url in ctx.blocked:
        raise OpFailed(f"goto {url}", "navigation blocked: the target is outside allowed_domains", "blocked")
    if response is not None and response.status >= 400:
        raise OpFailed(f"goto {url}", f"the page answered HTTP {response.status}", "http")
