"""How a failed Playwright call is sorted, once for every op: the page did not let the op happen
(``OpFailed``: a locator found nothing, an element never became actionable, a script threw) is a
*failure* the engine may recover from or heal; the browser or the site being gone
(``BrokenRun``) is *broken*. Also whether a call that timed out had in fact done its part."""

from __future__ import annotations

import re
from collections.abc import Sequence

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from ..errors import BrokenRun, ReuseitError
from .observe import await_document, close_if_unresponsive, unanswered_document
from .op_context import OpContext, OpFailed
from .scripts import STUCK
from .session import first_line

_GONE = re.compile(
    r"Target (page, context or browser )?(has been )?closed|Browser has been closed|browser has disconnected|Target crashed|Page crashed",
    re.I,
)
# Any network error but our own block (and a navigation that another one replaced) means the
# site could not be reached: that is infrastructure, not a verdict on the site.
_UNREACHABLE = re.compile(r"net::ERR_(?!BLOCKED_BY_CLIENT|ABORTED)[A-Z_]+")


# Elements that received a secret carry this (a JS property: invisible to the page's DOM and CSS).
MARK_SECRET = "e => { e.__reuseitSecret = true; }"
HOLDS_SECRET = "e => !!e.__reuseitSecret || [...e.querySelectorAll('*')].some(x => x.__reuseitSecret)"


def classify(exc: BaseException, what: str, blocked: Sequence[str] = ()) -> ReuseitError:
    """Turn a Playwright exception into OpFailed (recoverable) or BrokenRun (infrastructure).
    ``blocked``: the URLs the navigation fence turned away (their navigations end "aborted")."""
    text = str(exc)
    line = first_line(text)
    if _GONE.search(text):
        return BrokenRun(f"{what}: the browser went away ({line})")
    if unreachable := _UNREACHABLE.search(text):
        return BrokenRun(f"{what}: the site is unreachable ({unreachable.group(0)})")
    if "ERR_BLOCKED_BY_CLIENT" in text or ("ERR_ABORTED" in text and any(f"at {url}" in text for url in blocked)):
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


# Playwright's call log once an action has been dispatched to the page ("performing click action").
_PERFORMED = re.compile(r"^\s*- performing \w+ action", re.MULTILINE)


def _performed(exc: Exception) -> bool:
    """Whether the failed call had already performed its action (its call log says so)."""
    return bool(_PERFORMED.search(str(exc)))


def failure(ctx: OpContext, exc: BaseException, what: str, blocked: Sequence[str] = ()) -> ReuseitError:
    """:func:`classify`, after closing a page a timed-out call left unresponsive (nothing about it
    would answer again): caught in a script that never ends, or waiting for a next document its
    server did not answer within the navigation budget (then named)."""
    if isinstance(exc, PlaywrightTimeout):
        reason = close_if_unresponsive(ctx.page)
        if reason is not None:
            return OpFailed(what, reason, "stuck" if reason == STUCK else "no_answer")
    return classify(exc, what, blocked)


def not_answered(ctx: OpContext, page: Page, what: str) -> OpFailed:
    """The page's next document did not answer within the navigation budget: the page is closed
    (everything Playwright does on it would wait for that document) and the op fails, saying so."""
    return OpFailed(what, close_if_unresponsive(page) or f"{page.url} did not answer", "no_answer")


def loaded_after(page: Page, exc: BaseException, *, acted: bool = False) -> bool:
    """Whether a call that timed out had done its part and was only waiting for the page it set
    loading, which then answered within the navigation budget: a click that submitted a form to a
    slow server (Playwright waits for the navigation a click starts, within the click's own
    timeout). The call's timeout is for its element; the page gets the navigation budget. One that
    does not answer in time is left to the caller (:func:`_failure` names it). ``acted``: the caller
    knows the call acted (a script), whatever its call log says. The agent's actions use it too."""
    if not isinstance(exc, PlaywrightTimeout) or page.is_closed() or not (acted or _performed(exc)):
        return False
    return unanswered_document(page) is not None and await_document(page) is None
