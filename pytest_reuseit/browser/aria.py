"""What a page looked like to its accessibility tree, and what changed between two such looks.

Nightly monitoring compares the page a step failed on with the same step's page when the run last
passed (docs/monitoring.md). Playwright's ARIA snapshot is the comparison's unit: one line per
element with its role, name and state, stable across layout and styling changes, so the lines that
left and appeared name what changed ("button "Add to cart"" left, "button "Add to basket""
appeared) where a pixel diff would only say "different".
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Page as AsyncPage
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from ..workflow.locators import ARIA_ROLES
from .hover import hover_parts_shown
from .masking import masks_for

log = logging.getLogger(__name__)

# A snapshot is kept for every step of every passing run: bounded, so a huge page cannot swell
# the history (the cut is marked, and the comparison then only covers the kept part).
MAX_CHARS = 32_000
CUT_MARK = "- text: … (snapshot cut)"
# Lines listed per side in a comparison: enough to name what changed, short enough to read.
MAX_LINES = 40
# What stands for a password field's value (the run's own mask, workflow/placeholders.MASK).
HIDDEN = "***"
# A snapshot of a 15 KB page takes about 50 ms; a page that does not answer within this is
# stuck or gone, and the run must not wait on it (Playwright's driver enforces it even then).
SNAPSHOT_TIMEOUT_MS = 3_000
# Reading the title and the password fields' values of one frame (the same reasoning).
READ_TIMEOUT_MS = 1_000
# How long a look waits for the page's load event when a step has just opened a new document: the
# scripts that run then (deferred scripts, "load" listeners) open, close or add parts of the page
# (Django's admin opens its navigation sidebar, adds "Today | Choose a Date" to date fields), and a
# look taken before them would differ from one taken after for no change of the site. A page that
# has loaded costs nothing (the browser told Playwright already); one whose load never comes (a
# stuck image) costs this much once per look, and is taken as it is.
SETTLE_TIMEOUT_MS = 500
# A password value shorter than this is hidden only where it is a field's value: replaced in the
# page's text as well, "pw" would blank every "pw" of it (placeholders.MIN_SECRET_LENGTH alike).
MIN_HIDDEN_IN_TEXT = 4


@dataclass(frozen=True)
class PageSnapshot:
    url: str = ""
    title: str = ""
    aria: str = ""


# The title and every password field's value of one frame, open shadow roots included.
_READ_JS = """() => {
  const values = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) walk(el.shadowRoot);
      if (el.tagName === 'INPUT' && el.type === 'password' && el.value) values.push(el.value);
    }
  };
  walk(document);
  return [document.title, ...values];
}"""


def page_snapshot(page: Page, mask: Callable[[str], str], *, hover_shown: bool = False) -> PageSnapshot:
    """The page's url, title and ARIA snapshot, masked and bounded; empty parts when the page is
    closed, navigating or stuck. Never raises: a look at the page must not change a run's verdict.

    Playwright's ARIA snapshot prints a field's value, a password field's too
    (``- textbox "Password": the-password``): the values of every password field of every frame
    are read right after the snapshot and replaced by ``***`` wherever they show, whether the
    workflow typed them from a secret or from a plain parameter. ``mask`` (the run's secret
    masking) then applies to everything, to values the snapshot wrote escaped as well; the fields a
    secret was typed into are hidden too, whatever part of it they kept.

    ``hover_shown``: the parts the page's ``:hover`` rules show are in the look wherever the pointer
    rests (browser/hover.py), for a look compared with another session's."""
    try:
        if page.is_closed():
            return PageSnapshot()
        url = page.url
    except PlaywrightError:
        return PageSnapshot()
    _settle(page)
    try:
        with hover_parts_shown(page) if hover_shown else contextlib.nullcontext():
            aria = _aria(page)
        title, hidden = _read(page)
    except PlaywrightError as exc:  # closed, navigating away, or not answering
        log.debug("no ARIA snapshot of %s: %s", mask(url), str(exc).splitlines()[0] if str(exc) else exc)
        return PageSnapshot(url=mask(url))
    return PageSnapshot(url=mask(url), title=mask(title), aria=bounded(hide(aria, hidden, mask)))


def _settle(page: Page) -> None:
    """Wait, briefly, for the page's load event (see SETTLE_TIMEOUT_MS); never raises."""
    try:
        page.wait_for_load_state("load", timeout=SETTLE_TIMEOUT_MS)
    except PlaywrightError:
        pass  # still loading, or closed: the look takes the page as it is, or says it is gone


def _aria(page: Page) -> str:
    """The body's ARIA snapshot; once more after a navigation that replaced the document meanwhile."""
    body = page.locator("body")
    try:
        return body.aria_snapshot(timeout=SNAPSHOT_TIMEOUT_MS)
    except PlaywrightTimeout:
        raise
    except PlaywrightError:
        if page.is_closed():
            raise
        page.wait_for_load_state("domcontentloaded", timeout=READ_TIMEOUT_MS)
        return body.aria_snapshot(timeout=SNAPSHOT_TIMEOUT_MS)


def values_to_hide(page: Page) -> list[str]:
    """The values a snapshot of ``page`` must not show (password fields', secret-typed fields'),
    for :func:`hide`: for another snapshot of the page (the agent's observation, say). Raises
    PlaywrightError as Playwright does."""
    return _read(page)[1]


async def values_to_hide_async(page: AsyncPage) -> list[str]:
    """:func:`values_to_hide` for Playwright's async API (exploration): the password fields' values
    of every frame. Raises PlaywrightError as Playwright does."""
    values = _values(await page.main_frame.evaluate(_READ_JS))[1:]
    for frame in page.frames[1:]:
        if frame.is_detached() or not frame.url:
            continue
        try:
            values.extend(_values(await frame.locator(":root").evaluate(_READ_JS, timeout=READ_TIMEOUT_MS))[1:])
        except PlaywrightError:
            continue
    return values


def _read(page: Page) -> tuple[str, list[str]]:
    """The main frame's title, and the password values of every frame (a frame that cannot be
    read has nothing in the snapshot either: only the main frame's tree is in it).

    The main frame answered the snapshot a moment ago, so a plain evaluate (2 ms) reads it; a
    child frame may run in a renderer of its own that is stuck, where evaluate would wait for
    ever: it is read through a locator, whose timeout holds (10 ms)."""
    title, *values = _values(page.main_frame.evaluate(_READ_JS))
    for frame in page.frames[1:]:
        if frame.is_detached() or not frame.url:
            continue  # no document yet (a hung provider): nothing shown, and evaluate would wait for ever
        try:
            values.extend(_values(frame.locator(":root").evaluate(_READ_JS, timeout=READ_TIMEOUT_MS))[1:])
        except PlaywrightError:
            continue
    return title, values + _secret_fields(page)


def _secret_fields(page: Page) -> list[str]:
    """What the fields a secret was typed into hold now: a field that keeps only part of it
    (maxlength, formatting) shows a value the run's masking no longer recognises."""
    masks = masks_for(page)
    values: list[str] = []
    for sf in masks.secret_fields if masks is not None else ():
        if sf.locator.page is not page:
            continue
        try:
            values.extend(str(v) for v in sf.locator.evaluate_all("els => els.map(e => e.value ?? '')"))
        except PlaywrightError:
            continue  # its frame or element is gone: it shows nothing
    return values


def _values(got: object) -> list[str]:
    return [str(v) for v in got] if isinstance(got, list) and got else [""]


# One line of an ARIA snapshot: "- " then the key (role, "name", [attributes]; single-quoted
# when it needs quotes) and, after ": ", the value (double-quoted when it needs quotes).
_LINE = re.compile(
    r"^(?P<lead>\s*- )(?P<key>'(?:[^']|'')*'|[^\s'\":]+(?: \"(?:[^\"\\]|\\.)*\")?(?: \[[^\]]*\])*)"
    r"(?P<rest>:(?: (?P<value>.*))?)?$"
)
_NAME = re.compile(r'"((?:[^"\\]|\\.)*)"')
_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)")
_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _unescape(text: str) -> str:
    def one(m: re.Match[str]) -> str:
        code = m.group(1)
        if code[0] in "xu" and len(code) > 1:
            return chr(int(code[1:], 16))
        return _ESCAPES.get(code, code)

    return _ESCAPE.sub(one, text)


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _plain(text: str) -> str:
    return " ".join(text.split())


def hide(aria: str, hidden: Iterable[str], mask: Callable[[str], str]) -> str:
    """``aria`` with the ``hidden`` values (password fields') shown as ``***`` and ``mask`` applied,
    also to names and values the snapshot escaped (a secret with a quote or a backslash in it)."""
    values = {v for v in hidden if v}
    plain = {_plain(v) for v in values} - {""}
    # Longest first: a value inside a longer one must not leave the rest showing.
    in_text = sorted((v for v in values | plain if len(v) >= MIN_HIDDEN_IN_TEXT), key=len, reverse=True)
    lines = [_hide_line(line, plain, mask) for line in aria.split("\n")]
    text = "\n".join(lines)
    for value in in_text:
        text = text.replace(value, HIDDEN)
    return mask(text)


def _hide_line(line: str, plain: set[str], mask: Callable[[str], str]) -> str:
    m = _LINE.match(line)
    if m is None or "\\" not in line and not plain:
        return line  # nothing escaped, no password: the masking of the whole text is enough
    key, value = m.group("key"), m.group("value")
    if "\\" in key:
        key = _NAME.sub(lambda n: _quoted(mask(u)) if mask(u := _unescape(n.group(1))) != u else n.group(0), key)
    if value is None:
        return m.group("lead") + key + (m.group("rest") or "")
    shown = _unescape(value[1:-1]) if len(value) >= 2 and value[0] == value[-1] == '"' else value
    if _plain(shown) in plain:
        value = HIDDEN
    elif mask(shown) != shown:
        value = _quoted(mask(shown)) if shown is not value else mask(shown)
    return f"{m.group('lead')}{key}: {value}"


def bounded(text: str, limit: int = MAX_CHARS) -> str:
    """The snapshot cut at a line boundary under ``limit`` characters."""
    if len(text) <= limit:
        return text
    head = text[:limit].rsplit("\n", 1)[0]
    return f"{head}\n{CUT_MARK}"


def _lines(aria: str) -> list[str]:
    # Indentation says where an element sits; a moved element is not a changed one.
    return [line.strip() for line in aria.splitlines() if line.strip() and line.strip() != CUT_MARK]


_DIGITS = re.compile(r"\d+")


def _shape(line: str) -> str:
    """A line with its numbers set aside: a clock's two readings have one shape."""
    return _DIGITS.sub("0", line)


def diff_lines(then: str, now: str) -> tuple[list[str], list[str]]:
    """Lines of ``then`` that left and lines of ``now`` that appeared, as a multiset, in page order."""
    before, after = _lines(then), _lines(now)
    gone = Counter(before) - Counter(after)
    came = Counter(after) - Counter(before)
    removed: list[str] = []
    for line in before:
        if gone[line] > 0:
            gone[line] -= 1
            removed.append(line)
    added: list[str] = []
    for line in after:
        if came[line] > 0:
            came[line] -= 1
            added.append(line)
    return removed, added


def compare(
    then: PageSnapshot,
    now: PageSnapshot,
    *,
    max_lines: int = MAX_LINES,
    earlier: PageSnapshot | None = None,
    earlier_since: str = "",
) -> dict[str, Any]:
    """``changed`` as the monitoring contract names it: removed/added lines, url and title then and now.

    ``earlier`` is the same point's page in the pass before ``then`` (the last two passes of the
    test). A line whose difference from ``then`` the earlier pass already showed is the page's own
    churn (a sidebar a script opens or not, a clock), not a change: it is set aside, and
    ``set_aside`` counts it. Per line, with its count in each page: a difference is set aside when
    the count now lies between the two passes' counts. So a line present in both passes and gone
    now is a change, whatever churns around it; a line neither pass had is a change; and a line
    that one pass had and the other not is churn whichever way it goes now (a real change on such
    a line, say a sidebar link renamed while the sidebar comes and goes, shows as its new line
    only). A value new on every visit (a clock, a last-login time) is churn too when the two
    passes already showed that line with other numbers: a line whose numbers alone differ from
    such a line is set aside (a count that both passes showed the same and that differs now is
    still a change). ``earlier_since``: when the earlier pass ran, said beside what was set aside."""
    removed, added = diff_lines(then.aria, now.aria)
    aside = {"removed": 0, "added": 0}
    if earlier is not None and earlier.aria:
        before, current = Counter(_lines(earlier.aria)), Counter(_lines(now.aria))
        was_gone, was_new = diff_lines(earlier.aria, then.aria)
        ticking = {_shape(line) for line in was_gone} & {_shape(line) for line in was_new}
        # A line gone: churn when the earlier pass had no more of it than now. A line new: churn
        # when the earlier pass had at least as many as now.
        kept_removed = [line for line in removed if before[line] > current[line] and _shape(line) not in ticking]
        kept_added = [line for line in added if before[line] < current[line] and _shape(line) not in ticking]
        aside = {"removed": len(removed) - len(kept_removed), "added": len(added) - len(kept_added)}
        removed, added = kept_removed, kept_added
    out: dict[str, Any] = {
        "removed": removed[:max_lines],
        "added": added[:max_lines],
        # A site served on this machine gets a new port each session (a test server, an app
        # started by a fixture): the same address on another port is no change of the page.
        "url": [now.url if _same_local_address(then.url, now.url) else then.url, now.url],
        "title": [then.title, now.title],
    }
    if len(removed) > max_lines or len(added) > max_lines:
        out["more"] = {"removed": max(0, len(removed) - max_lines), "added": max(0, len(added) - max_lines)}
    if earlier is not None and earlier.aria:
        out["set_aside"] = {**aside, "since": earlier_since} if earlier_since else aside
    return out


def set_aside_count(changed: Mapping[str, Any]) -> int:
    """How many lines a comparison set aside as the page's own churn (``compare``'s ``set_aside``)."""
    aside = changed.get("set_aside")
    if not isinstance(aside, Mapping):
        return 0
    return sum(int(aside.get(k) or 0) for k in ("removed", "added"))


def set_aside_words(changed: Mapping[str, Any]) -> str:
    """What was set aside, in the words every reader gets ("2 lines that also differ between the
    last two passes"); empty when nothing was."""
    n = set_aside_count(changed)
    if not n:
        return ""
    return f"{n} line{'' if n == 1 else 's'} that also differ{'s' if n == 1 else ''} between the last two passes"


_LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def _same_local_address(then: str, now: str) -> bool:
    """Whether two addresses differ by the port of a local host only."""
    try:
        a, b = urlsplit(then), urlsplit(now)
        if a.hostname not in _LOCAL_HOSTS or a.hostname != b.hostname:
            return False
        return (a.scheme, a.path, a.query, a.fragment) == (b.scheme, b.path, b.query, b.fragment)
    except ValueError:
        return False


# A role locator as ops and checks describe it: role='button'[name='Add to cart'].
_ROLE_LOCATOR = re.compile(r"role='([\w-]+)'\[name='((?:[^'\\]|\\.)*)'\]")
# An ARIA snapshot line naming an element: - button "Add to basket" [ref=...] ...
_ARIA_ELEMENT = re.compile(r'^(?:- )?([\w-]+) "((?:[^"\\]|\\.)*)"')


def role_names(text: str) -> set[tuple[str, str]]:
    """The (role, name) pairs of the role locators in ``text`` (an op's or a check's description)."""
    return {(m.group(1), m.group(2)) for m in _ROLE_LOCATOR.finditer(text)}


def renamed(looked_for: set[tuple[str, str]], changed: Mapping[str, Any]) -> tuple[str, str, str] | None:
    """(role, old name, new name) when an element looked for by role and name left the page and
    exactly one element of that role appeared: most likely the same element, renamed."""
    gone = {m.groups() for m in map(_ARIA_ELEMENT.match, changed.get("removed") or []) if m}
    came = [m.groups() for m in map(_ARIA_ELEMENT.match, changed.get("added") or []) if m]
    for role, name in sorted(looked_for & gone):
        same_role = [new for r, new in came if r == role]
        if len(same_role) == 1:
            return role, name, same_role[0]
    return None


# One line of an ARIA snapshot: "- heading "Todos" [level=1]", "- text: 2 items left".
_ARIA_LINE = re.compile(
    r'^- (?P<role>[a-z]+)(?: "(?P<name>(?:[^"\\]|\\.)*)")?(?: \[[^\]]*\])*(?::(?: (?P<text>.*))?)?$'
)
# Lines whose text is what was typed (a value, perhaps a secret): never a check.
_FIELDS = ("textbox", "searchbox", "combobox", "spinbutton", "slider")
# A longer line is a paragraph, not something a check names.
SHORT_LINE = 80


def aria_line_check(line: str) -> dict[str, Any] | None:
    """A LOC for the element one line of an ARIA snapshot shows: by role and name, or by its
    text; None for a field (its text is what was typed) or a line too long to name."""
    m = _ARIA_LINE.match(line.strip())
    if m is None or m["role"] in _FIELDS:
        return None
    if m["name"]:
        try:
            name = json.loads(f'"{m["name"]}"')
        except ValueError:
            return None
        if m["role"] in ARIA_ROLES and len(name) <= SHORT_LINE:
            return {"role": m["role"], "name": name}
    text = (m["text"] or "").strip()
    if text and not text.startswith(("/", '"')) and len(text) <= SHORT_LINE:
        return {"text": text}
    return None
