"""The contract's LOC (selector string or mapping) turned into a Playwright locator."""

from __future__ import annotations

import time
from collections.abc import Callable

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import FrameLocator, Page
from playwright.sync_api import Locator as PwLocator

from ..workflow.locators import Locator
from .scripts import ms_left

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
    if loc.or_ is not None:  # the elements either finds (Playwright's or): one element found both ways is one
        result = result.or_(resolve(page, loc.or_, render))
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


class FrameNotLoaded(Exception):
    """An ``<iframe>`` on a LOC's path has not shown a page of its own (see :func:`wait_for_frames`)."""


def wait_for_frames(root: Root, loc: Locator, render: Render, timeout_ms: float) -> None:
    """Wait, within ``timeout_ms``, until every frame on ``loc``'s path has its document.

    Playwright's ``expect``, ``count()`` and ``is_visible()`` inside an ``<iframe>`` whose document
    never comes (a payment provider that hangs) wait for ever, whatever their timeout; ops and
    waits keep theirs. So a check looks at the frames first and fails naming the one that did not
    load (:class:`FrameNotLoaded`), instead of hanging the run."""
    deadline = time.monotonic() + timeout_ms / 1000
    for outer, frame_loc in _frames_on_path(root, loc, render):
        element = resolve(outer, frame_loc, render)
        try:
            handle = element.element_handle(timeout=ms_left(deadline))
            frame = handle.content_frame() if handle is not None else None
            if frame is None:
                raise FrameNotLoaded(f"{describe(frame_loc, render)} is not a frame")
            frame.wait_for_load_state("domcontentloaded", timeout=ms_left(deadline))
        except PlaywrightError:
            raise FrameNotLoaded(
                f"the frame {describe(frame_loc, render)} did not show its page within {timeout_ms / 1000:g}s"
            ) from None


def _frames_on_path(root: Root, loc: Locator, render: Render) -> list[tuple[Root, Locator]]:
    """The ``frame`` LOCs that ``resolve`` enters for ``loc``, outermost first, each with the root
    it is looked up in."""
    out: list[tuple[Root, Locator]] = []
    if loc.frame is not None:
        out += _frames_on_path(root, loc.frame, render)
        out.append((root, loc.frame))
        root = resolve(root, loc.frame, render).content_frame
    if loc.within is not None:
        out += _frames_on_path(root, loc.within, render)
    return out
