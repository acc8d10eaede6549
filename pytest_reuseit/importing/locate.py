"""Which locator a person would write for the element a step acted on, read from the page.

Playwright's own locator generator (what its recorder and "Pick locator" use, reached through
``Locator.normalize()``) picks, for one element, a test id, then role and name, label,
placeholder, alt, title or text, and a CSS path only when nothing else is unique. It is asked on
the page as it was at that step: a trace's DOM before the action (shown again in a browser from
the trace's own HTML, CSS and images, without its scripts, ``page_for_snapshot``), or the live
page during the import's first run (``derive.py``). The same look reads what the element is (a
password field, a field named token) for ``values.py``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from playwright.sync_api import Browser, Page, Route
from playwright.sync_api import Error as PlaywrightError

from ..workflow.locators import Locator
from .selectors import is_person_form, to_loc

log = logging.getLogger(__name__)

# What a field is: enough to tell a password, a token or a key from a name.
_FACTS_JS = """(el) => {
  const label = (el.labels && el.labels[0] && el.labels[0].innerText) || '';
  return {tag: el.tagName.toLowerCase(), type: el.getAttribute('type') || '', name: el.getAttribute('name') || '',
          id: el.id || '', autocomplete: el.getAttribute('autocomplete') || '',
          label: label.trim() || el.getAttribute('aria-label') || el.getAttribute('placeholder') || ''};
}"""
# How long one element may take to be found on a page shown again (it is there or it is not).
_FIND_MS = 1500


def read_element(page: Page, selector: str) -> tuple[str | None, dict[str, str]]:
    """(the selector Playwright's generator gives for the one element ``selector`` finds, the
    element's facts); (None, {}) when it finds none or several."""
    try:
        loc = page.locator(selector)
        if loc.count() != 1:
            return None, {}
        facts = loc.evaluate(_FACTS_JS, timeout=_FIND_MS)
        # The sync wrapper keeps the selector on the object it wraps; str() gives Python code.
        resolved = loc.normalize()._impl_obj._selector
        return str(resolved), {k: str(v) for k, v in dict(facts).items()}
    except PlaywrightError as exc:
        log.debug("cannot read %s: %s", selector, str(exc).splitlines()[0] if str(exc) else exc)
        return None, {}


def person_selectors(found: str | None, source: list[str]) -> list[str]:
    """The selectors to write, best first: the generator's when a person would write it (role,
    label, test id...), then the source's own, each once."""
    out: list[str] = []
    if found and is_person_form(to_loc(found)):
        out.append(found)
    for sel in source:
        if sel not in out:
            out.append(sel)
    if found and found not in out:
        out.append(found)
    return out


# The keys of a check whose value is an element's locator.
_ELEMENT_KEYS = {"visible", "hidden", "enabled", "disabled", "checked", "unchecked", "text", "value", "count"}
_ELEMENT_KEYS |= {"texts", "attribute", "empty"}


def person_check(check: dict[str, Any], selector: str, page: Page) -> dict[str, Any]:
    """``check`` with its element found the way a person writes it, when the source found it by
    CSS or XPath and the page shows one such element; else as it was. A text check keeps its
    locator when the only other way is the text itself (it would then check nothing)."""
    ((key, arg),) = check.items()
    if key == "not" and isinstance(arg, dict) and len(arg) == 1:
        return {"not": person_check(arg, selector, page)}
    if key not in _ELEMENT_KEYS or not isinstance(arg, dict) or "selector" not in arg:
        return check
    found, _ = read_element(page, selector)
    if found is None:
        return check
    loc = to_loc(found)
    if not is_person_form(loc) or (key in ("text", "texts", "empty") and "text" in loc):
        return check
    rest = {k: v for k, v in arg.items() if k not in Locator.model_fields}
    return {key: {**loc, **rest}}


@contextmanager
def snapshot_page(browser: Browser, resources: dict[str, tuple[str, bytes]]) -> Iterator[Any]:
    """A function showing one trace snapshot (HTML, URL) in a page without scripts, the page's
    own files served from the trace and nothing else fetched; yields ``show(html, url) -> Page``."""
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    current: dict[str, str] = {}

    def serve(route: Route) -> None:
        url = route.request.url
        if url == current.get("url"):
            route.fulfill(status=200, content_type="text/html; charset=utf-8", body=current["html"])
        elif url in resources:
            mime, body = resources[url]
            route.fulfill(status=200, content_type=mime, body=body)
        else:
            route.abort()

    page.route("**/*", serve)

    def show(html: str, url: str) -> Page | None:
        if not url.startswith(("http://", "https://")):
            return None
        current.update(url=url.split("#")[0], html=html)
        try:
            page.goto(url, wait_until="load", timeout=10_000)
        except PlaywrightError as exc:
            log.debug("cannot show the snapshot of %s: %s", url, exc)
            return None
        return page

    try:
        yield show
    finally:
        try:
            context.close()
        except PlaywrightError:
            pass
