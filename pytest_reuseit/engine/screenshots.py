"""Screenshots of the run's current page, settled and masked: for the judge, and for the reports.

What the mode asks for (RunOptions.screenshots) is decided here, once, for every caller.
"""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Error as PlaywrightError

from ..browser.observe import View, capture_view
from ..browser.ops import classify
from ..errors import BrokenRun
from .context import RunContext
from .result import Screenshot


def settled_view(
    ctx: RunContext, settle_ms: float, *, text: bool = False, known: Callable[[View], bool] | None = None
) -> View:
    """A capture of the settled, masked page (and its masked text for the model). ``known`` is
    asked with the text masked as the model would get it."""
    try:
        view = capture_view(
            ctx.page,
            ctx.options.jpeg_quality,
            ctx.options.max_width,
            masks=ctx.masks,
            settle_ms=settle_ms,
            text_chars=ctx.options.page_text_chars if text else 0,
            steady=text,  # a picture for the model: the cache key
            known=None if known is None else (lambda v: known(View(v.image, v.masked, ctx.values.mask(v.text)))),
        )
    except PlaywrightError as exc:
        err = classify(exc, "screenshot")
        raise (err if isinstance(err, BrokenRun) else BrokenRun(f"cannot take a screenshot: {err}")) from None
    view.text = ctx.values.mask(view.text)
    return view


def _capture(ctx: RunContext, label: str) -> Screenshot:
    view = settled_view(ctx, ctx.loaded.workflow.settings.check_timeout * 1000)
    page = ctx.page_name()  # which page is pictured, once there are several
    label = f"{label} [{page}]" if page else label
    return Screenshot(label=ctx.values.mask(label), data=view.image, masked=view.masked)


def take_shot(ctx: RunContext, label: str, *, always: bool) -> Screenshot | None:
    """A screenshot if the mode asks for it: step shots in 'steps' mode, failure shots unless 'off'."""
    mode = ctx.options.screenshots
    if mode == "off" or (mode == "failures" and not always):
        return None
    try:
        return _capture(ctx, label)
    except BrokenRun:
        return None
