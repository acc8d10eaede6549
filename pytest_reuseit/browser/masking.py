"""Painting over what a screenshot must not show: fields that hold a secret, text that shows a
secret's value, and the workflow's ``mask:`` regions (clocks, carousels, ads).

The paint is an overlay injected into every frame of the page right before a capture and removed
right after. That holds for every capture path (Playwright's screenshot and the scaled CDP capture
alike), for elements inside iframes (each frame paints its own elements, in its own coordinates)
and above modal dialogs (the overlay is shown as a popover, so it sits in the top layer too).

What to mask belongs to the run, not to one call: :func:`attach` ties a :class:`ScreenMasks` to
the browser context, so every capture of any page of that context (the checks', the agent's, the
reader's, a pop-up's) finds it without the callers having to pass it along. Ops that type a
secret call :func:`track_secret` with the element they typed into.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field

from playwright.sync_api import BrowserContext, Frame, Page
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator as PwLocator

from ..workflow.locators import Locator
from ..workflow.placeholders import as_shown
from .locators import describe, resolve

log = logging.getLogger(__name__)

# Secrets are painted black (a redaction bar), ``mask:`` regions magenta (Playwright's mask colour).
SECRET_COLOR = "#000000"
REGION_COLOR = "#FF00FF"

# Shared by every script below: the per-document overlay root and one painted box.
_PRELUDE = """
const ROOT_ATTR = 'data-reuseit-overlay';
function overlay(doc) {
  let root = doc.querySelector(`[${ROOT_ATTR}]`);
  if (root) return root;
  root = doc.createElement('div');
  root.setAttribute(ROOT_ATTR, '');
  root.setAttribute('popover', 'manual');
  root.style.cssText = 'all:initial;position:fixed;left:0;top:0;width:100vw;height:100vh;margin:0;padding:0;'
    + 'border:0;background:transparent;overflow:visible;pointer-events:none;z-index:2147483647;display:block;';
  (doc.documentElement || doc.body).appendChild(root);
  // In the top layer, above modal dialogs and other popovers; older browsers keep the z-index.
  try { root.showPopover(); } catch (e) {}
  return root;
}
function paintBox(el, color) {
  const r = el.getBoundingClientRect();
  if (!r.width || !r.height) return false;
  const box = el.ownerDocument.createElement('div');
  box.style.cssText = `all:initial;display:block;position:absolute;left:${r.left}px;top:${r.top}px;`
    + `width:${r.width}px;height:${r.height}px;background:${color};`;
  overlay(el.ownerDocument).appendChild(box);
  return true;
}
"""

# Stop what moves (CSS animations and transitions, the caret) so the same page gives the same
# pixels, and paint every element that shows one of the secret values. One call per frame.
_PREPARE_JS = (
    "async (a) => {"
    + _PRELUDE
    + """
  const doc = document;
  // Web fonts still loading would change the text's pixels (see observe.settle), waited for here
  // within a.fontsMs: one call to the page less on every look.
  if (a.fontsMs > 0 && doc.fonts && doc.fonts.status !== 'loaded')
    await Promise.race([doc.fonts.ready, new Promise(r => setTimeout(r, a.fontsMs))]);
  const values = a.values.filter(v => v);
  // Freeze only what moves: a caret in a focused field, a running animation or transition. On a
  // still page nothing is added, so the screenshot needs no new frame (a changed DOM costs one,
  // about 16 ms, on every check).
  const active = doc.activeElement;
  const caret = !!active && (active.isContentEditable || /^(INPUT|TEXTAREA)$/.test(active.tagName));
  const moving = doc.getAnimations().some(an => an.effect && an.playbackRate !== 0 && an.playState === 'running');
  const existing = doc.querySelector(`[${ROOT_ATTR}]`);
  if (!values.length && !(existing && existing.__reuseit) && !caret && !moving) return -1;
  const root = overlay(doc);
  if (!root.__reuseit) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync('*, *::before, *::after { transition: none !important; caret-color: transparent !important; }');
    doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
    const resume = [];
    for (const an of doc.getAnimations()) {
      if (!an.effect || an.playbackRate === 0) continue;
      const end = an.effect.getComputedTiming().endTime;
      try {
        if (Number.isFinite(end)) an.finish(); else { an.cancel(); resume.push(an); }
      } catch (e) {}
    }
    root.__reuseit = { sheet, resume };
  }
  if (!values.length) return 0;
  // A value holding a run of spaces is shown by the page with one (values has that form too).
  const has = (s) => typeof s === 'string' && s
    && (values.some(v => s.includes(v)) || values.some(v => s.replace(/\\s+/g, ' ').includes(v)));
  const hits = new Set();
  // Deepest elements whose text holds a value (also when the value spans several text nodes).
  const visit = (node) => {
    if (!has(node.textContent)) return false;
    let inner = false;
    for (const child of node.children) inner = visit(child) || inner;
    if (node.shadowRoot) for (const child of node.shadowRoot.children) inner = visit(child) || inner;
    if (!inner && node.nodeType === 1) hits.add(node);
    return true;
  };
  if (doc.body) visit(doc.body);
  // Form fields: their value is not text. Open shadow roots too.
  const fields = (scope) => {
    for (const el of scope.querySelectorAll('*')) {
      if (el.shadowRoot) fields(el.shadowRoot);
      if (/^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName)
          && (has(el.value) || has(el.placeholder) || (el.selectedOptions && [...el.selectedOptions].some(o => has(o.text)))))
        hits.add(el);
    }
  };
  fields(doc);
  let n = 0;
  for (const el of hits) if (!root.contains(el) && paintBox(el, a.color)) n++;
  return n;
}"""
)

# Paints ``els``; with ``region``, also remembers them so that their text is left out (_TEXT_JS).
_PAINT_JS = (
    "(els, a) => {"
    + _PRELUDE
    + """
  let n = 0;
  for (const el of els) {
    if (paintBox(el, a.color)) n++;
    if (a.region) { const root = overlay(el.ownerDocument); (root.__reuseitRegions ||= []).push(el); }
  }
  return n;
}"""
)

# The page's text without the painted regions' text, read in one go: a clock ticking between two
# reads would otherwise slip through.
_TEXT_JS = """() => {
  let text = document.body ? document.body.innerText : '';
  const root = document.querySelector('[data-reuseit-overlay]');
  const parts = ((root && root.__reuseitRegions) || []).map(e => (e.innerText || '').trim()).filter(Boolean);
  parts.sort((a, b) => b.length - a.length);
  for (const part of parts) text = text.split(part).join('[masked]');
  return text;
}"""

_CLEAN_JS = """() => {
  for (const root of document.querySelectorAll('[data-reuseit-overlay]')) {
    const state = root.__reuseit;
    if (state) {
      document.adoptedStyleSheets = document.adoptedStyleSheets.filter(s => s !== state.sheet);
      for (const an of state.resume) { try { an.play(); } catch (e) {} }
    }
    root.remove();
  }
}"""


@dataclass
class SecretField:
    """An element a secret was typed into, and how the report names it (never the value)."""

    locator: PwLocator
    what: str


@dataclass
class ScreenMasks:
    """What one run paints over in every screenshot of its pages."""

    secret_values: Mapping[str, str]  # name -> value of the secrets used so far (a live view)
    render: Callable[[str], str]  # fills placeholders of ``mask:`` locators (never secrets)
    regions: tuple[Locator, ...] = ()  # the workflow's ``mask:``
    step_regions: tuple[Locator, ...] = ()  # the current step's ``mask:``
    secret_fields: list[SecretField] = field(default_factory=list)
    seen: list[str] = field(default_factory=list)  # why something was painted, since the last drain

    def drain(self) -> list[str]:
        """The reasons painted since the last call, each once, in order (for the step's report)."""
        out = list(dict.fromkeys(self.seen))
        self.seen.clear()
        return out


_BY_CONTEXT: weakref.WeakKeyDictionary[BrowserContext, ScreenMasks] = weakref.WeakKeyDictionary()


def attach(context: BrowserContext, masks: ScreenMasks) -> None:
    """Every later capture of a page of ``context`` paints ``masks`` (the latest run's wins)."""
    _BY_CONTEXT[context] = masks


def masks_for(page: Page) -> ScreenMasks | None:
    try:
        return _BY_CONTEXT.get(page.context)
    except PlaywrightError:
        return None


def track_secret(locator: PwLocator, what: str) -> None:
    """Remember that a secret is (about to be) typed into ``locator``'s element: it is painted
    over from now on, also when the page reformats the value so that it no longer matches."""
    masks = masks_for(locator.page)
    if masks is not None and all(f.locator is not locator for f in masks.secret_fields):
        masks.secret_fields.append(SecretField(locator, what))


def _frames(page: Page) -> list[Frame]:
    """The frames that show a document. A frame whose first document never came (a hung payment
    provider) has no address yet, shows nothing, and Playwright's evaluate in it waits for ever."""
    try:
        return [f for f in page.frames if not f.is_detached() and f.url]
    except PlaywrightError:
        return []


def _paint(locator: PwLocator, color: str, *, region: bool = False) -> int:
    try:
        return int(locator.evaluate_all(_PAINT_JS, {"color": color, "region": region}))
    except PlaywrightError:  # its frame went away, or the locator cannot resolve here: nothing shown
        return 0


def painted_values(secrets: Iterable[str]) -> list[str]:
    """The texts a picture paints over: each secret, and the form a page shows it in when it holds
    a run of spaces (one space, trimmed), unless that form is too short to be told from other text."""
    raw = {v for v in secrets if v}
    return sorted(raw | as_shown(raw))


def _paint_all(
    page: Page, frames: list[Frame], masks: ScreenMasks | None, touched: list[Frame], fonts_ms: float
) -> list[str]:
    """Freeze every frame and paint what ``masks`` asks for; return why, per region painted. The
    frames that something was added to (and must be cleaned) are appended to ``touched``."""
    values = painted_values(masks.secret_values.values() if masks else ())
    reasons: list[str] = []
    echoed = 0
    for frame in frames:
        arg = {"values": values, "color": SECRET_COLOR, "fontsMs": int(fonts_ms) if frame is page.main_frame else 0}
        try:
            n = int(frame.evaluate(_PREPARE_JS, arg))
        except PlaywrightError as exc:  # a frame navigating away: it shows nothing of ours
            log.debug("could not prepare frame %s for the screenshot: %s", frame.url, exc)
            continue
        if n >= 0:  # -1: a still frame with nothing to paint was left as it was
            touched.append(frame)
            echoed += n
    if masks is None:
        return reasons
    painted_now = 0
    for sf in masks.secret_fields:
        if sf.locator.page is page and (n := _paint(sf.locator, SECRET_COLOR)):
            painted_now += n
            reasons.append(f"secret: {sf.what}")
    if echoed:
        reasons.append(f"secret: {echoed} element(s) showing a secret's value")
    for loc in masks.regions + masks.step_regions:
        if n := _paint(resolve(page, loc, masks.render), REGION_COLOR, region=True):
            painted_now += n
            reasons.append(f"mask: {describe(loc, masks.render)}")
    if painted_now:
        # A painted box may be in any frame (a field inside an iframe): clean them all.
        touched[:] = frames
    return reasons


@contextmanager
def painted(page: Page, masks: ScreenMasks | None = None, *, fonts_ms: float = 0) -> Iterator[list[str]]:
    """Within the block, the page is frozen and painted over; yields why each region was painted.

    ``masks`` defaults to the ones attached to the page's context; with none, the page is only
    frozen (animations stopped, caret hidden). ``fonts_ms``: first wait up to that long for the
    page's web fonts."""
    masks = masks if masks is not None else masks_for(page)
    frames = _frames(page)
    touched: list[Frame] = []
    try:
        reasons = _paint_all(page, frames, masks, touched, fonts_ms)
        if masks is not None:
            masks.seen.extend(reasons)
        yield reasons
    finally:
        # Only the frames something was added to: on a still page with nothing to paint, none.
        for frame in touched:
            try:
                frame.evaluate(_CLEAN_JS)
            except PlaywrightError:
                pass


def masked_text(page: Page) -> str:
    """The page's text without the text of the ``mask:`` regions painted by :func:`painted` (call
    it inside that block): a clock painted over in the picture must not change the words sent
    beside it either."""
    return str(page.evaluate(_TEXT_JS))
