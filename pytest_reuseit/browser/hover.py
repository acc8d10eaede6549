"""A look at a page that does not depend on where the pointer happens to rest.

A part of a page that a ``:hover`` rule shows (TodoMVC's delete button "✖" on the row under the
pointer, a menu's items) is in the page's accessibility tree only while the pointer rests there.
After a click the pointer stays where it clicked; when the page then re-renders (a filter, a route,
the back button), whether the browser has re-computed what lies under the pointer by the time of a
look varies from one session to the next, and so does the look, for no change of the site.

:func:`hover_parts_shown` shows those parts everywhere while a look is taken: every ``:hover`` rule
of the document's style sheets is copied with its ``:hover`` made to match any element (its
declarations ``!important``, so the copy wins as the original would have) into a constructed style
sheet adopted for the look and dropped after it. Adopting a sheet is not a change of the DOM (no MutationObserver of the page
sees it) and fires no event; sheets the page may not read (another origin's) and shadow roots' own
sheets are left as they are.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

# Adopts (true) or drops (false) the sheet of :hover rules whose :hover matches any element
# (":where(*)": the specificity of nothing, as if it were left out); returns {copied: how many
# rules} (an object: wait_for_function, which runs it, returns once its answer is truthy). A
# selector list keeps only its selectors that hold :hover (the others would turn !important).
_HOVER_SHOWN_JS = """(show) => {
  const mark = 'reuseitHoverShown';
  document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => !s[mark]);
  if (!show) return {copied: 0};
  const sheet = new CSSStyleSheet();
  sheet[mark] = true;
  let copied = 0;
  const selectors = (text) => {
    const parts = []; let depth = 0; let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c === '(' || c === '[') depth++;
      else if (c === ')' || c === ']') depth--;
      else if (c === ',' && depth === 0) { parts.push(text.slice(start, i)); start = i + 1; }
    }
    parts.push(text.slice(start));
    return parts.map((p) => p.trim()).filter((p) => p.includes(':hover'));
  };
  const important = (style) => {
    const out = [];
    for (let i = 0; i < style.length; i++) {
      const name = style[i];
      out.push(`${name}: ${style.getPropertyValue(name)} !important`);
    }
    return out.join('; ');
  };
  const copy = (rules, wrap) => {
    for (const rule of rules) {
      if (rule instanceof CSSMediaRule) {
        copy(rule.cssRules, (text) => wrap(`@media ${rule.conditionText} { ${text} }`));
      } else if (rule instanceof CSSStyleRule && rule.selectorText.includes(':hover')) {
        const kept = selectors(rule.selectorText).map((s) => s.replace(/:hover\\b/g, ':where(*)'));
        if (!kept.length) continue;
        try {
          sheet.insertRule(wrap(`${kept.join(', ')} { ${important(rule.style)} }`), sheet.cssRules.length);
          copied++;
        } catch (e) { /* a selector that means nothing without :hover */ }
      }
    }
  };
  for (const s of document.styleSheets) {
    let rules;
    try { rules = s.cssRules; } catch (e) { continue; }  // another origin's sheet
    copy(rules, (text) => text);
  }
  if (copied) document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  return {copied};
}"""
# A page busy for this long is taken as it is (the look that follows has its own bound).
_TIMEOUT_MS = 1_000


def _set(page: Page, show: bool) -> None:
    # wait_for_function, not evaluate: its timeout holds on a stuck page, where evaluate would wait
    # for ever; a locator's evaluate holds it too but costs 12 ms a call, this 3 ms (it runs the
    # function at once; the polling interval only matters for an answer that is not truthy).
    try:
        page.main_frame.wait_for_function(_HOVER_SHOWN_JS, arg=show, timeout=_TIMEOUT_MS, polling=100)
    except PlaywrightError:
        pass  # closed, navigating, stuck: the look takes the page as it is


@contextmanager
def hover_parts_shown(page: Page) -> Iterator[None]:
    """Within the block, what the page's ``:hover`` rules show is shown wherever the pointer is."""
    _set(page, True)
    try:
        yield
    finally:
        _set(page, False)
