"""The contract's LOC (selector string or mapping) turned into a Playwright locator."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import FrameLocator, Page
from playwright.sync_api import Locator as PwLocator

from ..workflow.model import Locator

Render = Callable[[str], str]


def _same(text: str) -> str:
    return text


Root = Page | FrameLocator | PwLocator


def resolve(page: Root, loc: Locator, render: Render = _same) -> PwLocator:
    """Build the Playwright locator for ``loc``; every string goes through ``render`` (placeholders).

    ``frame`` (the LOC of an ``<iframe>``, itself possibly inside a frame) is entered first, then
    ``within`` narrows the search inside it.
    """
    root: Root = page
    if loc.frame is not None:
        root = resolve(root, loc.frame, render).content_frame
    if loc.within is not None:
        root = resolve(root, loc.within, render)
    result = _by_kind(root, loc, render)
    if loc.has_text is not None:
        result = result.filter(has_text=render(loc.has_text))
    if loc.nth is not None:
        result = result.nth(loc.nth)
    return result


def _by_kind(root: Root, loc: Locator, r: Render) -> PwLocator:
    """The locator of ``loc``'s one kind (role, text, label, ...) under ``root``."""
    exact = loc.exact
    if loc.role is not None:
        return root.get_by_role(loc.role, name=r(loc.name) if loc.name is not None else None, exact=exact)  # type: ignore[arg-type]
    elif loc.text is not None:
        return root.get_by_text(r(loc.text), exact=exact)
    elif loc.label is not None:
        return root.get_by_label(r(loc.label), exact=exact)
    elif loc.placeholder is not None:
        return root.get_by_placeholder(r(loc.placeholder), exact=exact)
    elif loc.alt is not None:
        return root.get_by_alt_text(r(loc.alt), exact=exact)
    elif loc.title is not None:
        return root.get_by_title(r(loc.title), exact=exact)
    elif loc.test_id is not None:
        return root.get_by_test_id(r(loc.test_id))
    elif loc.css is not None:
        return root.locator(f"css={r(loc.css)}")
    elif loc.xpath is not None:
        return root.locator(f"xpath={r(loc.xpath)}")
    assert loc.selector is not None
    return root.locator(r(loc.selector))


def describe(loc: Locator, render: Render = _same) -> str:
    """Readable and replayable form, with placeholders filled."""
    return render(loc.plain().describe())
