"""The handlers of the ops that read from the page or move files: extract (and ``extract_value``,
which the engine's step-level extract uses), upload and download."""

from __future__ import annotations

import json
import re
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from ..errors import BrokenRun, ReuseitError
from ..workflow import ops as registry
from ..workflow.locators import Locator
from ..workflow.op_args import (
    Extract,
    UploadArgs,
)
from ..workflow.ops import describe_op
from .locators import describe, resolve
from .masking import track_secret
from .op_context import OpContext, OpFailed
from .op_errors import HOLDS_SECRET, failure
from .pages import DownloadRecord, until_loaded
from .scripts import ms_left, run_once, run_script, wait_for_next_document


@registry.handles("extract")
def _extract(ctx: OpContext, arg: Extract) -> None:
    ctx.extracted[arg.into] = extract_value(arg, ctx)


@registry.handles("upload")
def _upload(ctx: OpContext, arg: UploadArgs) -> None:
    paths = []
    for name in arg.files:
        path = Path(ctx.folder) / ctx.reveal(name)
        if not path.is_file():
            # Paths without placeholders are checked when the file loads; this one was computed.
            raise BrokenRun(f"upload: the file {ctx.render(name)} does not exist (relative to the workflow's folder)")
        paths.append(str(path))
    loc = resolve(ctx.page, arg, ctx.render)
    if any(ctx.reveal(name) != ctx.render(name) for name in arg.files):  # a secret path: its name shows
        track_secret(loc, f"upload {describe(arg.plain(), ctx.render)} (files {', '.join(arg.files)})")
    loc.set_input_files(paths, timeout=ctx.action_timeout_ms)


@registry.handles("download")
def _download(ctx: OpContext, arg: Locator) -> None:
    assert ctx.pages is not None
    page = ctx.page
    before = page.url
    clicked = False
    try:
        with page.expect_download(timeout=ctx.action_timeout_ms) as info:
            resolve(page, arg, ctx.render).click(timeout=ctx.action_timeout_ms)
            clicked = True
        download = info.value
    except PlaywrightTimeout:
        if not clicked:
            raise
        raise OpFailed(
            ctx.render(describe_op(ctx.op)) if ctx.op is not None else "download",
            f"no download started within {ctx.action_timeout_ms / 1000:g}s{_went_instead(page, before)}",
            "no_download",
        ) from None
    folder = Path(ctx.output_dir or tempfile.mkdtemp(prefix="reuseit-downloads-")) / "downloads"
    folder.mkdir(parents=True, exist_ok=True)
    name = download.suggested_filename or "download"
    target = folder / f"{len(ctx.pages.downloads) + 1}-{_safe_name(name)}"
    download.save_as(str(target))
    ctx.pages.downloads.append(DownloadRecord(name, str(target), download.url, target.stat().st_size))
    if ctx.op is not None and ctx.op.into is not None:
        ctx.extracted[ctx.op.into] = str(target)


def _went_instead(page: Page, before: str) -> str:
    """Where a click meant to download went instead, if it went to another document: a site that
    sends a file as text or JSON without ``Content-Disposition: attachment`` has the browser show
    it as a page, and the report must not read like a missing element."""
    if page.is_closed() or urldefrag(page.url).url == urldefrag(before).url:
        return ""
    try:
        kind = str(run_script(page, "document.contentType", 1_000) or "")
    except (PlaywrightError, PlaywrightTimeout, BrokenRun):
        kind = ""  # only a better message was at stake
    if kind and "html" not in kind:
        return f": the click opened {page.url} as a page ({kind}): the site shows the file instead of sending it"
    return f": the click went to {page.url} instead"


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:120] or "download"


# How many times an extract expression is run again when its page navigates under it.
_EXTRACT_TRIES = 3


def _script_value(page: Page, expression: str, timeout_ms: float, what: str) -> Any:
    """The value of an extract expression. When the page's document goes while it runs (a
    navigation the last action started that lands now, or the expression's own) the value is
    lost with it: it is read again from the new page once that has loaded, within the timeout."""
    deadline = time.monotonic() + timeout_ms / 1000
    for _ in range(_EXTRACT_TRIES):
        ran = run_once(page, expression, ms_left(deadline))
        if not ran.lost:
            return ran.value
        wait_for_next_document(page, ran, ms_left(deadline))
        until_loaded(page, ms_left(deadline))
        if time.monotonic() >= deadline:
            break
    raise OpFailed(
        what,
        f"the page navigated away while the expression ran ({page.url}), every time it was read: nothing was "
        "read. An extract expression must read the page, not leave it; if the page is still loading, wait for "
        "it first (a post check on the new page)",
        "script",
    )


def extract_value(ex: Extract, ctx: OpContext) -> str:
    """Read a value from the current page for ``extract``; one read from an element a secret was
    typed into is handed to ``ctx.taint`` (it is secret too, even when the page changed it)."""
    try:
        value = _read(ex, ctx)
        field = ex.text if ex.text is not None else ex.value if ex.value is not None else ex.of
        holds = field is not None and ctx.taint is not None and value
        if holds and resolve(ctx.page, field, ctx.render).evaluate(HOLDS_SECRET, timeout=ctx.action_timeout_ms):  # type: ignore[arg-type]
            ctx.taint(value)  # type: ignore[misc]
        return value
    except ReuseitError:
        raise
    except (PlaywrightError, PlaywrightTimeout) as exc:
        raise failure(ctx, exc, f"extract {ex.into}") from None


def _read(ex: Extract, ctx: OpContext) -> str:
    t = ctx.action_timeout_ms
    page = ctx.page
    if ex.text is not None:
        loc = resolve(page, ex.text, ctx.render)
        if ex.attribute:
            value = loc.get_attribute(ex.attribute, timeout=t)
            if value is None:
                raise OpFailed(
                    f"extract {ex.into}",
                    f"{describe(ex.text, ctx.render)} has no attribute {ex.attribute!r}",
                    "not_found",
                )
            return value
        return loc.inner_text(timeout=t).strip()
    if ex.value is not None:
        return resolve(page, ex.value, ctx.render).input_value(timeout=t)
    if ex.js is not None:
        if ex.of is not None:  # a function of the element, given it once it is there (as any op waits)
            result: Any = resolve(page, ex.of, ctx.render).evaluate(ctx.reveal(ex.js), timeout=t)
        else:
            result = _script_value(page, ctx.reveal(ex.js), t, f"extract {ex.into}")
        if result is None:
            raise OpFailed(f"extract {ex.into}", f"the expression returned nothing: {ex.js}", "script")
        return result if isinstance(result, str) else json.dumps(result)
    assert ex.query is not None
    if ctx.query is None:
        raise BrokenRun(f"extract {ex.into}: 'query' needs a model; enable one (--reuseit-llm) or use text/js")
    return ctx.query(ctx.render(ex.query))
