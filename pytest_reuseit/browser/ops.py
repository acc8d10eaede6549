"""Deterministic ops (the ``do:`` lists) against a Playwright page.

Errors are sorted here, once: the page did not let the op happen (``OpFailed``: a locator found
nothing, an element never became actionable, a script threw) is a *failure* the engine may
recover from or heal; the browser or the site being gone (``BrokenRun``) is *broken*.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator as PwLocator
from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from ..errors import BrokenRun, ReuseitError
from ..workflow.model import (
    Extract,
    FillArgs,
    Op,
    PressArgs,
    ScrollBy,
    SelectArgs,
    WaitArgs,
    describe_op,
)
from .locators import describe, resolve
from .session import first_line

log = logging.getLogger(__name__)

_GONE = re.compile(
    r"Target (page, context or browser )?(has been )?closed|Browser has been closed|browser has disconnected|Target crashed|Page crashed",
    re.I,
)
# Any network error but our own block (and a navigation that another one replaced) means the
# site could not be reached: that is infrastructure, not a verdict on the site.
_UNREACHABLE = re.compile(r"net::ERR_(?!BLOCKED_BY_CLIENT|ABORTED)[A-Z_]+")


class OpFailed(ReuseitError):
    """The page did not let an op happen. ``kind``: not_found | ambiguous | script | blocked | http."""

    def __init__(self, op: str, reason: str, kind: str) -> None:
        super().__init__(f"{op}: {reason}")
        self.op = op
        self.reason = reason
        self.kind = kind


@dataclass
class OpContext:
    """What ops need besides the page: placeholder filling and timeouts."""

    render: Callable[[str], str]
    reveal: Callable[[str], str]  # fills secrets too: used only for typed values
    action_timeout_ms: float
    extracted: dict[str, str]
    blocked: list[str]
    query: Callable[[str], str] | None = None  # model-read extraction (needs a model)
    # Called with a value read from an element a secret was typed into: that value is secret too.
    taint: Callable[[str], None] | None = None


# Elements that received a secret carry this (a JS property: invisible to the page's DOM and CSS).
_MARK_SECRET = "e => { e.__reuseitSecret = true; }"
_HOLDS_SECRET = "e => !!e.__reuseitSecret || [...e.querySelectorAll('*')].some(x => x.__reuseitSecret)"


def classify(exc: BaseException, what: str) -> ReuseitError:
    """Turn a Playwright exception into OpFailed (recoverable) or BrokenRun (infrastructure)."""
    text = str(exc)
    line = first_line(text)
    if _GONE.search(text):
        return BrokenRun(f"{what}: the browser went away ({line})")
    if _UNREACHABLE.search(text):
        return BrokenRun(f"{what}: the site is unreachable ({_UNREACHABLE.search(text).group(0)})")  # type: ignore[union-attr]
    if "ERR_BLOCKED_BY_CLIENT" in text:
        return OpFailed(what, "navigation blocked: the target is outside allowed_domains", "blocked")
    if isinstance(exc, PlaywrightTimeout):
        return OpFailed(what, f"timed out: {_timeout_reason(text)}", "not_found")
    if "strict mode violation" in text:
        m = re.search(r"resolved to (\d+) elements", text)
        n = f"{m.group(1)} elements" if m else "several elements"
        return OpFailed(what, f"the locator matches {n}; make it unique (add nth, exact or within)", "ambiguous")
    if isinstance(exc, PlaywrightError) and ("Error:" in text or "evaluate" in text.lower()):
        return OpFailed(what, f"script error: {line}", "script")
    return OpFailed(what, line, "not_found")


# Call-log lines that only say Playwright is retrying; the line before them says what was wrong
# ("<div id=overlay> intercepts pointer events", "element is not enabled", "waiting for locator(...)").
_CALL_LOG_NOISE = re.compile(
    r"^(waiting \d+ms|retrying \w+ action|attempting \w+ action|scrolling into view if needed|done scrolling"
    r"|waiting for element to be .*|element is visible, enabled and stable|element is visible and stable)$"
)


def _timeout_reason(text: str) -> str:
    """From Playwright's call log, the last thing it was waiting for (tells *why* it timed out)."""
    log_lines = [ln.strip().lstrip("- ").strip() for ln in text.splitlines()[1:] if ln.strip().startswith("-")]
    head = first_line(text)
    useful = [ln for ln in log_lines if ln and not _CALL_LOG_NOISE.match(ln)]
    if useful:
        return f"{head} (last: {useful[-1]})"
    return head


def run_op(page: Page, op: Op, ctx: OpContext) -> str:
    """Perform one op; return a readable line of what was done (secrets left as placeholders)."""
    what = ctx.render(describe_op(op))
    try:
        _perform(page, op, ctx)
    except ReuseitError:
        raise
    except (PlaywrightError, PlaywrightTimeout) as exc:
        raise classify(exc, what) from None
    return what


def _perform(page: Page, op: Op, ctx: OpContext) -> None:
    t = ctx.action_timeout_ms
    kind, arg = op.kind, op.arg
    if kind == "goto":
        target = ctx.reveal(arg)  # a secret in a URL (a token link) is navigated to, never shown
        url = urljoin(page.url, target) if page.url.startswith("http") else target
        response = page.goto(url, timeout=t, wait_until="load")
        if ctx.blocked and url in ctx.blocked:
            raise OpFailed(f"goto {url}", "navigation blocked: the target is outside allowed_domains", "blocked")
        if response is not None and response.status >= 400:
            raise OpFailed(f"goto {url}", f"the page answered HTTP {response.status}", "http")
        return
    if kind in ("click", "dblclick", "hover", "check", "uncheck", "focus"):
        loc = resolve(page, arg, ctx.render)
        method = {
            "click": loc.click,
            "dblclick": loc.dblclick,
            "hover": loc.hover,
            "check": loc.check,
            "uncheck": loc.uncheck,
        }.get(kind)
        if method is not None:
            method(timeout=t)
        else:
            loc.focus(timeout=t)
        return
    if kind in ("fill", "type"):
        assert isinstance(arg, FillArgs)
        _fill(resolve(page, arg, ctx.render), kind, arg, ctx)
        return
    if kind == "select":
        assert isinstance(arg, SelectArgs)
        options = [arg.option] if isinstance(arg.option, str) else list(arg.option)
        resolve(page, arg, ctx.render).select_option([ctx.reveal(o) for o in options], timeout=t)
        return
    if kind == "press":
        if isinstance(arg, PressArgs):
            resolve(page, arg, ctx.render).press(ctx.render(arg.key), timeout=t)
        else:
            page.keyboard.press(ctx.render(arg))
        return
    if kind == "scroll":
        if isinstance(arg, ScrollBy):
            page.mouse.wheel(0, arg.by)
        else:
            resolve(page, arg, ctx.render).scroll_into_view_if_needed(timeout=t)
        return
    if kind == "wait":
        if isinstance(arg, WaitArgs):
            resolve(page, arg, ctx.render).wait_for(state=arg.state, timeout=t)
        else:
            page.wait_for_timeout(int(arg))
        return
    if kind == "eval":
        page.evaluate(ctx.reveal(arg))  # a returned Promise is awaited
        return
    if kind == "extract":
        assert isinstance(arg, Extract)
        ctx.extracted[arg.into] = extract_value(page, arg, ctx)
        return
    raise AssertionError(f"op {kind} has no implementation")  # the model and this module disagree


def _fill(loc: PwLocator, kind: str, arg: FillArgs, ctx: OpContext) -> None:
    t = ctx.action_timeout_ms
    value = ctx.reveal(arg.value)
    if kind == "fill":
        loc.fill(value, timeout=t)
    else:
        loc.press_sequentially(value, timeout=t)
    if value != ctx.render(arg.value):  # a secret went in: what is read back from here is secret
        loc.evaluate(_MARK_SECRET, timeout=t)


def extract_value(page: Page, ex: Extract, ctx: OpContext) -> str:
    """Read a value from the page for ``extract``."""
    t = ctx.action_timeout_ms
    try:
        field = ex.text if ex.text is not None else ex.value
        value = _read(page, ex, ctx)
        tainted = field is not None and ctx.taint is not None and value
        if tainted and resolve(page, field, ctx.render).evaluate(_HOLDS_SECRET, timeout=t):  # type: ignore[arg-type]
            ctx.taint(value)  # type: ignore[misc]
        return value
    except ReuseitError:
        raise
    except (PlaywrightError, PlaywrightTimeout) as exc:
        raise classify(exc, f"extract {ex.into}") from None


def _read(page: Page, ex: Extract, ctx: OpContext) -> str:
    t = ctx.action_timeout_ms
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
        result: Any = page.evaluate(ctx.reveal(ex.js))  # a returned Promise is awaited
        if result is None:
            raise OpFailed(f"extract {ex.into}", f"the expression returned nothing: {ex.js}", "script")
        return result if isinstance(result, str) else json.dumps(result)
    assert ex.query is not None
    if ctx.query is None:
        raise BrokenRun(f"extract {ex.into}: 'query' needs a model; enable one (--reuseit-llm) or use text/js")
    return ctx.query(ctx.render(ex.query))
