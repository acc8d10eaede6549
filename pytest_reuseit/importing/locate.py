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

import json
import logging
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from playwright.sync_api import Browser, Page, Route
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator as PwLocator

from ..workflow.locators import LOCATOR_KEYS
from .selectors import is_person_form, or_chain, to_loc

log = logging.getLogger(__name__)

# What a field is: enough to tell a password, a token or a key from a name.
_FACTS_JS = """(el) => {
  const label = (el.labels && el.labels[0] && el.labels[0].innerText) || '';
  return {tag: el.tagName.toLowerCase(), type: el.getAttribute('type') || '', name: el.getAttribute('name') || '',
          id: el.id || '', autocomplete: el.getAttribute('autocomplete') || '', editable: String(!!el.isContentEditable),
          label: label.trim() || el.getAttribute('aria-label') || el.getAttribute('placeholder') || ''};
}"""
# How long one element may take to be found on a page shown again (it is there or it is not).
_FIND_MS = 1500


def read_element(page: Page, selector: str) -> tuple[str | None, dict[str, str]]:
    """(the selector a person would write for the one element ``selector`` finds, else the one
    Playwright's generator gives; the element's facts); (None, {}) when it finds none or several."""
    try:
        loc = page.locator(selector)
        if loc.count() != 1:
            return None, {}
        facts = loc.evaluate(_FACTS_JS, timeout=_FIND_MS)
        resolved = equivalent(page, selector) or _normalized(loc)
        return resolved, {k: str(v) for k, v in dict(facts).items()}
    except PlaywrightError as exc:
        log.debug("cannot read %s: %s", selector, str(exc).splitlines()[0] if str(exc) else exc)
        return None, {}


def _normalized(loc: PwLocator) -> str:
    # The sync wrapper keeps the selector on the object it wraps; str() gives Python code.
    return str(loc.normalize()._impl_obj._selector)


_MARK = "(els) => els.forEach((e, i) => e.setAttribute('data-reuseit-mark', String(i)))"
_UNMARK = "(els) => els.forEach((e) => e.removeAttribute('data-reuseit-mark'))"
_MARKS = "(els) => els.map((e) => e.getAttribute('data-reuseit-mark'))"
# Per element: the mark of the one marked element inside it, and whether their texts are the same.
_ROWS = """(els) => els.map((e) => {
  const inner = e.querySelectorAll('[data-reuseit-mark]');
  if (inner.length !== 1) return null;
  const norm = (t) => (t || '').replace(/\\s+/g, ' ').trim();
  return [inner[0].getAttribute('data-reuseit-mark'), norm(e.textContent) === norm(inner[0].textContent)];
})"""
# Elements a person's locator may count on: more than this is a page of rows, not a check's target.
_MAX_MARKED = 50


def _role(loc: PwLocator) -> str:
    """The element's ARIA role as its snapshot names it ("checkbox"); "" for text or none, or
    when there is no such element (an ancestor above the root: no wait for it to appear)."""
    try:
        if loc.count() == 0:
            return ""
        first = loc.aria_snapshot(timeout=_FIND_MS).strip().splitlines()[0]
    except (PlaywrightError, IndexError):
        return ""
    token = first.lstrip("- ").split(" ")[0].split(":")[0].split("[")[0]
    return token if token and token not in ("text", "generic", "none", "presentation") else ""


def equivalent(page: Page, selector: str, *, text_ok: bool = True, rows: bool = False) -> str | None:
    """A selector a person would write (role, name, label, placeholder, test id; text when
    ``text_ok``) that finds exactly the elements ``selector`` finds on this page, in the same order;
    None when there is none. Tried: Playwright's generator's answer, the elements' role alone or
    inside a named or roled ancestor. ``rows``: also the elements' nearest roled ancestors (the
    rows of a list whose labels the selector found), when each holds one of them and the same text."""
    with _marked(page, selector) as marks:
        if marks is None:
            return None
        loc = page.locator(selector)
        for candidate in _candidates(page, loc, len(marks)):
            parsed = to_loc(candidate)
            if not is_person_form(parsed) or (not text_ok and _uses_text(parsed)) or _container_text(parsed):
                continue
            if _finds(page, candidate, marks):
                return candidate
        return _rows(page, loc, marks) if rows else None


@contextmanager
def _marked(page: Page, selector: str) -> Iterator[list[str] | None]:
    """The elements ``selector`` finds, each marked with its place while the block runs, so that
    any number of candidates are compared with them (``_finds``) for one marking; None when it
    finds none, or more than are ever marked."""
    loc = page.locator(selector)
    try:
        n = loc.count()
        if 0 < n <= _MAX_MARKED:
            loc.evaluate_all(_MARK)
    except PlaywrightError:
        n = 0
    if not 0 < n <= _MAX_MARKED:
        yield None
        return
    try:
        yield [str(i) for i in range(n)]
    finally:
        try:
            loc.evaluate_all(_UNMARK)
        except PlaywrightError:
            pass


def _finds(page: Page, candidate: str, marks: list[str] | None) -> bool:
    """Whether ``candidate`` finds exactly the marked elements, in their order (none marked: no)."""
    if marks is None:
        return False
    try:
        return bool(page.locator(candidate).evaluate_all(_MARKS) == marks)
    except PlaywrightError:
        return False


def _uses_text(loc: dict[str, Any]) -> bool:
    return "text" in loc or "has_text" in loc or any(_uses_text(v) for v in loc.values() if isinstance(v, dict))


def _container_text(loc: dict[str, Any]) -> bool:
    """Whether a container is found by its text: all its rows' texts run together, which change
    with every row added (``text="buy milkfeed the cat" >> role=listitem``)."""
    inside = loc.get("within")
    return isinstance(inside, dict) and (_uses_text(inside) and "has_text" not in inside or _container_text(inside))


def _candidates(page: Page, loc: PwLocator, n: int) -> Iterator[str]:
    first = loc.first
    if n == 1:
        generated = _normalized(first)
        if "internal:testid=" in generated:
            # A test id is the generator's first choice, and frameworks put generic ones on every
            # widget (Streamlit's stBaseButton-primary, Gradio's textbox): what a person reads, its
            # role and name or its label, comes first when it finds the same element.
            yield from _readable(first)
        yield generated
    role = _role(first)
    if not role:
        return
    yield f"internal:role={role}"
    for level in range(1, 5):
        ancestor = first.locator(f"xpath=ancestor::*[{level}]")
        try:
            if ancestor.count() == 0:
                break
            outer = _normalized(ancestor)
        except PlaywrightError:
            break
        yield f"{outer} >> internal:role={role}"
        yield from _in_roled(page, ancestor, role)


# An ARIA snapshot's first line: - button "Greet" [...], - textbox "Customer name": Ada
_NAMED = re.compile(r'^- ([\w-]+) ("(?:[^"\\]|\\.)*")')
# The label a person reads for a field: its <label>'s text, else its aria-label.
_LABEL_JS = (
    """(el) => ((el.labels && el.labels[0] && el.labels[0].innerText) || el.getAttribute('aria-label') || '').trim()"""
)
# Names longer than this are a paragraph, not a name a person would write in a locator.
_MAX_NAME = 80


def _readable(first: PwLocator) -> Iterator[str]:
    """The element by its role and accessible name, then by its label, exactly."""
    try:
        line = first.aria_snapshot(timeout=_FIND_MS).strip().splitlines()[0]
    except (PlaywrightError, IndexError):
        line = ""
    m = _NAMED.match(line)
    if m:
        try:
            name = str(json.loads(m.group(2)))
        except ValueError:
            name = ""
        if name and len(name) <= _MAX_NAME and m.group(1) not in ("text", "generic", "none", "presentation"):
            yield f"internal:role={m.group(1)}[name={json.dumps(name, ensure_ascii=False)}s]"
    try:
        label = str(first.evaluate(_LABEL_JS, timeout=_FIND_MS) or "")
    except PlaywrightError:
        label = ""
    if label and len(label) <= _MAX_NAME:
        yield f"internal:label={json.dumps(label, ensure_ascii=False)}s"


# Containers of one role tried by their place among the page's (the first list, the second...).
_MAX_NTH = 4


def _in_roled(page: Page, container: PwLocator, role: str) -> Iterator[str]:
    """``role`` inside a container found by its own role: unnamed (a list), then by its place."""
    outer_role = _role(container)
    if not outer_role:
        return
    yield f"internal:role={outer_role} >> internal:role={role}"
    try:
        many = min(page.locator(f"internal:role={outer_role}").count(), _MAX_NTH)
    except PlaywrightError:
        return
    for k in range(many if many > 1 else 0):
        yield f"internal:role={outer_role} >> nth={k} >> internal:role={role}"


def _rows(page: Page, loc: PwLocator, marks: list[str]) -> str | None:
    for level in range(1, 4):
        ancestor = loc.first.locator(f"xpath=ancestor::*[{level}]")
        role = _role(ancestor)
        if not role:
            continue
        for candidate in (f"internal:role={role}", *_outer(ancestor, role)):
            try:
                found = page.locator(candidate).evaluate_all(_ROWS)
            except PlaywrightError:
                continue
            if [f and f[0] for f in found] == marks and all(f and f[1] for f in found):
                return candidate
    return None


def _outer(ancestor: PwLocator, role: str) -> Iterator[str]:
    yield from _in_roled(ancestor.page, ancestor.locator("xpath=.."), role)


_IN_FRAME = " >> internal:control=enter-frame >> "


def recorded_name(page: Page, selector: str, names: Sequence[str]) -> str | None:
    """The element ``selector`` finds, by its role and a name a recorder computed for it (Chrome's
    ``aria/NAME``: any role with that name, as Puppeteer's aria query finds it), when that finds
    exactly the same element on this page; else None."""
    if not names:
        return None
    at = selector.rfind(_IN_FRAME)
    inside = selector[: at + len(_IN_FRAME)] if at >= 0 else ""
    role = _role(page.locator(selector))
    if not role:
        return None
    with _marked(page, selector) as marks:
        for name in names:
            candidate = f"{inside}internal:role={role}[name={json.dumps(name)}s]"
            if _finds(page, candidate, marks):
                return candidate
    return None


_FRAME_MARK = "data-reuseit-frame"


def frame_selector(page: Page, url: str) -> str | None:
    """A selector of the ``<iframe>`` of this page whose document is at ``url`` (a frame of the
    main one): a person's locator when one finds it alone, else its place among the iframes."""
    try:
        frame = next((f for f in page.frames[1:] if f.url == url and f.parent_frame == page.main_frame), None)
        if frame is None:
            return None
        element = frame.frame_element()
        element.evaluate(f"(e) => e.setAttribute('{_FRAME_MARK}', '1')")
    except PlaywrightError:
        return None
    marked = f"[{_FRAME_MARK}]"
    try:
        title = element.get_attribute("title")
        titled = f"internal:attr=[title={json.dumps(title)}s]" if title else ""
        if titled and finds_same(page, titled, marked):  # a frame's title: what names it to a person
            return titled
        person = equivalent(page, marked, text_ok=False)
        if person is not None:
            return person
        marks = page.locator("iframe").evaluate_all(f"(els) => els.map((e) => e.hasAttribute('{_FRAME_MARK}'))")
        return f"iframe >> nth={marks.index(True)}" if True in marks else None
    except PlaywrightError:
        return None
    finally:
        try:
            element.evaluate(f"(e) => e.removeAttribute('{_FRAME_MARK}')")
        except PlaywrightError:
            pass


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
_ELEMENT_KEYS |= {"in_viewport", "accessible_name", "accessible_description", "has_role", "js_property"}
_ELEMENT_KEYS |= {"texts", "values", "attribute", "empty", "style", "attached", "detached", "focused", "editable"}


def finds_same(page: Page, candidate: str, selector: str) -> bool:
    """Whether ``candidate`` finds exactly the elements ``selector`` finds on this page (at least
    one), in the same order."""
    with _marked(page, selector) as marks:
        return _finds(page, candidate, marks)


# How many of the locators the steps got are tried for a check, the latest first.
_MAX_KNOWN = 12


def person_check(
    check: dict[str, Any], selector: str, page: Page, known: Sequence[str] = (), alternatives: Sequence[str] = ()
) -> dict[str, Any]:
    """``check`` with its element(s) found the way a person writes it, when the source found them
    by CSS or XPath and a person's locator finds the same ones on the page; else as it was.

    ``known``: the locators a person writes that the steps got, latest first: a check on the
    element a step acted on gets the step's locator when it finds the same element here. The
    source's selector is kept beside it (``or``: the elements either finds) when the person's
    locator finds the very same elements, as a step keeps it as a fallback; so are the source's
    ``alternatives`` for the element (a Selenium IDE command's targets) that find the very same
    elements here, in their order: its runner tries them when the first finds nothing."""
    ((key, arg),) = check.items()
    if key == "not" and isinstance(arg, dict) and len(arg) == 1:
        return {"not": person_check(arg, selector, page, known, alternatives)}
    if key not in _ELEMENT_KEYS or not isinstance(arg, dict) or "selector" not in arg:
        return check
    with _marked(page, selector) as marks:
        found = next((k for k in list(dict.fromkeys(known))[:_MAX_KNOWN] if _finds(page, k, marks)), None)
    # By role, label, test id first; by a text of its own only when nothing else finds it (still a
    # check: a changed text is then not found at all).
    rows = key in ("text", "texts", "count")
    found = found or equivalent(page, selector, text_ok=False, rows=rows) or equivalent(page, selector)
    rest = {k: v for k, v in arg.items() if k not in LOCATOR_KEYS}
    if "nth" in arg and "nth" not in to_loc(selector):
        # One of the elements the whole selector finds (toHaveClass([...]) item by item); a
        # selector's own nth is in the element the person's locator was found for. No "or" here:
        # the nth of elements two locators find together is another element.
        if found is None or "nth" in to_loc(found):
            return check
        rest["nth"] = arg["nth"]
        return {key: {**to_loc(found), **rest}}
    # The source's selector and its alternatives beside the locator: each that finds the very same
    # elements, compared on one marking of them.
    with _marked(page, selector) as marks:
        others = [a for a in dict.fromkeys(alternatives) if a not in (selector, found)][:_MAX_KNOWN]
        same = [a for a in others if _finds(page, a, marks)]
        beside = [selector] if found is not None and _finds(page, found, marks) else []
    if found is None:
        if not same:
            return check
        return {key: {**or_chain(to_loc(selector), same), **rest}}
    return {key: {**or_chain(to_loc(found), [*beside, *same]), **rest}}


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
