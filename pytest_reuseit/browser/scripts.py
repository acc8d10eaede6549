"""JavaScript from a workflow file (``eval``, ``extract: {js}``, ``expect: {js}``), run with a time limit.

Playwright's ``evaluate`` has no timeout: an endless loop or a promise that never settles would
hang the run, and the session with it. ``wait_for_function`` does time out, in Playwright's driver,
even while the page's renderer is stuck, so the expression runs as its predicate: the predicate
always returns its answer as JSON text (truthy), holding the expression's value. Text, not an
object: the driver keeps a text's value with its handle and hands it back without asking the page
again, while reading an object is one more call into the page, with no timeout that holds. Like
``evaluate``, an expression whose value is a function is called, a returned promise is awaited,
and the page's Content-Security-Policy does not stop it. Several statements (which do not fit in
an expression) are run by the page's eval with the same limit, or, on a page whose policy forbids
eval, by Playwright's evaluate as before, without one.

A script that navigates (``location.reload()``, ``form.submit()``, ``location.href = ...``) takes
its page's JavaScript world with it. ``wait_for_function`` then runs its predicate again in the
new document: the script would run again on every page it loads (a reload repeated until one
returned in time, a form submitted a dozen times). So each document is stamped first and the
predicate runs the script only in the stamped one; in any other it reports that the page left.
Like Playwright's ``evaluate`` of such a script, its value is then lost (None), and the caller
deals with the new page. That is the harness losing its handle, never the site's doing: the
script's own errors are caught in the page and come back as :class:`ScriptError`, so any other
error is ours (the browser gone, or a :class:`~pytest_reuseit.errors.BrokenRun`).
"""

from __future__ import annotations

import json
import secrets
import time
import weakref
from dataclasses import dataclass
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from ..errors import BrokenRun

# A property of the page's window naming its document (not enumerable, not writable: the page's
# own code neither sees nor replaces it). A new document has none.
_KEY = "__reuseitDocument"
_STAMP = (
    f"(token) => {{ if (!Object.prototype.hasOwnProperty.call(window, '{_KEY}')) "
    f"Object.defineProperty(window, '{_KEY}', {{value: token}}); return window['{_KEY}']; }}"
)
_LEFT = f"(token) => window['{_KEY}'] !== token"

# The predicate around the workflow's script. ``a.watch``: note a navigation to another document
# that the script starts (the Navigation API's navigate event, fired as it starts; a form's
# submission starts in a task of its own, hence one turn of the event loop before returning) and
# that the page did not cancel or keep in the document (a router's intercept leaves a transition).
_HEAD = f"""async (a) => {{
  if (window['{_KEY}'] !== a.doc) return '{{"left": true}}';
  const nav = window.navigation, away = [], watch = e => {{ if (!e.destination.sameDocument) away.push(e); }};
  if (a.watch && nav) nav.addEventListener('navigate', watch);
  try {{
    let v = """
_TAIL = """;
    if (typeof v === 'function') v = v();
    v = await v;
    if (a.watch) await new Promise(r => setTimeout(r, 0));
    const leaving = away.some(e => !e.defaultPrevented) && !(nav && nav.transition);
    if (!a.keep) return JSON.stringify({v: null, leaving});
    // As Playwright would bring the value back: the page's objects as a reference's name, NaN and
    // the infinities as numbers (at the top), a number too large for one as its digits; an object
    // met again (a cycle) is named, not followed.
    if (typeof v === 'number' && !Number.isFinite(v)) return JSON.stringify({n: String(v), leaving});
    const seen = new WeakSet();
    return JSON.stringify({v, leaving}, (k, x) => {
      if (typeof x === 'bigint') return Number.isSafeInteger(Number(x)) ? Number(x) : x.toString();
      if (x === null || typeof x !== 'object') return x;
      if (typeof Window === 'function' && x instanceof Window) return 'ref: <Window>';
      if (typeof Document === 'function' && x instanceof Document) return 'ref: <Document>';
      if (typeof Node === 'function' && x instanceof Node) return 'ref: <Node>';
      if (seen.has(x)) return 'ref: <Object>';
      seen.add(x);
      return x;
    });
  } catch (e) {
    let text;
    try { text = e instanceof Error ? `${e.name}: ${e.message}` : `Error: the script threw ${String(e)}`; }
    catch { text = 'Error: the script threw a value that cannot be shown'; }
    return JSON.stringify({error: text});
  } finally {
    if (a.watch && nav) nav.removeEventListener('navigate', watch);
  }
}"""
# Statements (``a = 1; b()``) do not fit in parentheses: the page's own eval runs them, with the
# same time limit, unless the page's Content-Security-Policy forbids eval.
_EXPRESSION = "(\n{}\n)"
_STATEMENTS = "(0, eval)({})"

# What Playwright says when the page's JavaScript world went away under a call: a navigation.
_NAVIGATED = (
    "Execution context was destroyed",
    "because of a navigation",
    "Frame was detached",
    "frame was detached",
    "Cannot find context with specified id",
    "Promise was collected",
)
# The browser, its context or the page gone: callers sort these (classify: the run is broken).
_GONE = ("Target page, context or browser has been closed", "Target closed", "Browser has been closed", "crashed")


class ScriptError(PlaywrightError):
    """The workflow's script threw (or its promise rejected) in the page: the page's error, as
    ``Name: message``."""


@dataclass(frozen=True)
class Ran:
    """One run of a script. ``value``: what it returned (None when lost). ``lost``: the page's
    document went away before the value came back (the script navigated it, or the page did);
    ``leaving``: the script started a navigation to another document that has not replaced this
    one yet. ``document``: the stamp of the document it ran in, to wait for the next one."""

    value: Any = None
    lost: bool = False
    leaving: bool = False
    document: str = ""

    @property
    def navigated(self) -> bool:
        return self.lost or self.leaving


def navigated(exc: BaseException) -> bool:
    """Whether a Playwright error only says the page navigated while a script of ours ran."""
    return any(words in str(exc) for words in _NAVIGATED)


def run_script(page: Page, expression: str, timeout_ms: float) -> Any:
    """The value of ``expression`` in ``page`` (None for undefined, and when the script navigated
    the page away); Playwright's TimeoutError after ``timeout_ms``; :class:`ScriptError` when the
    expression throws, Playwright's Error when it does not compile."""
    return run_once(page, expression, timeout_ms).value


def run_once(page: Page, expression: str, timeout_ms: float, *, keep_value: bool = True, watch: bool = False) -> Ran:
    """Run ``expression`` once in the page's current document, within ``timeout_ms``.
    ``keep_value=False``: its value is not brought back (``eval``: nothing to serialize);
    ``watch``: note a navigation the script starts (:attr:`Ran.leaving`)."""
    timeout_ms = max(timeout_ms, 1)
    document = _stamp(page, time.monotonic() + timeout_ms / 1000)
    # The script gets the whole limit (the stamp takes a few milliseconds, on a page that answers).
    arg = {"doc": document, "keep": keep_value, "watch": watch}
    text = expression.strip().rstrip(";").rstrip()
    try:
        return _run(page, _EXPRESSION.format(text), arg, timeout_ms)
    except PlaywrightError as exc:
        # An expression in parentheses that does not compile: statements, or a real syntax error.
        if isinstance(exc, (PlaywrightTimeout, ScriptError)) or "SyntaxError" not in str(exc):
            raise
    try:
        return _run(page, _STATEMENTS.format(json.dumps(expression)), arg, timeout_ms)
    except ScriptError as exc:
        if "EvalError" not in str(exc) and "unsafe-eval" not in str(exc):
            raise
    # Statements on a page that forbids eval: Playwright's evaluate runs them, without a limit
    # (and, as Playwright does, with the value of a script that navigated lost).
    try:
        return Ran(page.evaluate(expression), document=document)
    except PlaywrightError as exc:
        if navigated(exc):
            return Ran(lost=True, document=document)
        raise


def _run(page: Page, body: str, arg: dict[str, Any], timeout_ms: float) -> Ran:
    try:
        value = _answer(_primitive(page, _HEAD + body + _TAIL, arg, timeout_ms))
    except PlaywrightTimeout:
        raise
    except PlaywrightError as exc:
        if navigated(exc):  # the script's value was on its way back when its document went
            return Ran(lost=True, document=arg["doc"])
        if "SyntaxError" in str(exc) or any(words in str(exc) for words in _GONE):
            raise  # the workflow's script does not compile; the browser went away
        raise BrokenRun(f"the browser could not run the workflow's script: {str(exc).splitlines()[0]}") from None
    if value.get("left"):
        return Ran(lost=True, document=arg["doc"])
    if "error" in value:
        raise ScriptError(str(value["error"]))
    return Ran(value.get("v"), leaving=bool(value.get("leaving")), document=arg["doc"])


def _primitive(page: Page, predicate: str, arg: Any, timeout_ms: float) -> Any:
    """The predicate's truthy answer, which must be text or a number: the driver gives it back from
    its handle, with no call into the page (see the module's docstring)."""
    handle = page.wait_for_function(predicate, arg=arg, timeout=timeout_ms)
    value = handle.json_value()
    try:
        handle.dispose()  # a text's handle holds nothing in the page: no call into it either
    except PlaywrightError:
        pass  # the page closed meanwhile: the answer was read
    return value


def _answer(text: Any) -> dict[str, Any]:
    """The predicate's JSON text as a mapping (``n``: the value NaN or an infinity, as text)."""
    try:
        value = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise BrokenRun(
            f"the page's JSON.stringify does not write JSON, so a script's value could not be read: {text!r:.80}"
        )
    if "n" in value:
        value["v"] = float(value.pop("n"))
    return value


def ms_left(deadline: float) -> float:
    """Milliseconds until ``deadline`` (a ``time.monotonic()`` time), at least 1: a Playwright
    timeout of 0 waits for ever."""
    return max((deadline - time.monotonic()) * 1000, 1)


def _stamp(page: Page, deadline: float) -> str:
    """The stamp of the page's current document (given one if it has none yet). A document that
    goes while being stamped is followed by the next one, within the deadline."""
    token = secrets.token_hex(8)
    while True:
        try:
            return str(_primitive(page, _STAMP, token, ms_left(deadline)))
        except PlaywrightTimeout:
            raise
        except PlaywrightError as exc:
            if not navigated(exc) or time.monotonic() >= deadline:
                raise


def wait_for_next_document(page: Page, ran: Ran, timeout_ms: float) -> bool:
    """After a script that navigated: wait, up to ``timeout_ms``, until the document it ran in has
    been replaced (a navigation started but not yet answered still shows the old one). False when
    none replaced it in time (a navigation the server answered with no page, a download)."""
    if not ran.document:
        return False
    try:
        page.wait_for_function(_LEFT, arg=ran.document, timeout=max(timeout_ms, 1))
        return True
    except PlaywrightError:
        return False


def responsive(page: Page, timeout_ms: float = 1_000) -> bool:
    """Whether the page still runs a script of ours within ``timeout_ms``."""
    try:
        page.wait_for_function("() => true", timeout=timeout_ms)
        return True
    except PlaywrightTimeout:
        return False
    except PlaywrightError:
        return True  # closed or navigating away: not stuck


def close_if_stuck(page: Page) -> bool:
    """After a call that timed out: a page whose renderer is caught in a script that never ends
    answers nothing again, and Playwright's title, screenshot and evaluate have no timeout of
    their own, so every report of the run would wait for ever. Such a page is closed (which ends
    its script); True if it was."""
    if page.is_closed() or responsive(page):
        return False
    close_unanswered(page)
    return True


def close_unanswered(page: Page) -> None:
    """Close a page that stopped answering (a script that never ends, or a document its server
    never answered within the navigation budget), remembering why: see :func:`closed_unresponsive`."""
    _CLOSED_UNRESPONSIVE.add(page)
    try:
        page.close(run_before_unload=False)
    except PlaywrightError:
        pass


# The pages :func:`close_if_stuck` closed: an op meant for one later (a fallback) is told why it
# cannot act, rather than taking the closed page for a browser that went away.
_CLOSED_UNRESPONSIVE: weakref.WeakSet[Page] = weakref.WeakSet()


def closed_unresponsive(page: Page) -> bool:
    """Whether the run closed ``page`` because it stopped responding."""
    return page in _CLOSED_UNRESPONSIVE


STUCK = "the page stopped responding: a script on it did not finish (an endless loop?), so the page was closed"
