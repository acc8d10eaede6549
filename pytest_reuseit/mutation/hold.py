"""A fault that holds while its target is judged.

Frameworks (React, Vue, Angular) replace elements when they re-render: after a click, on a route
change, when data arrives. A fault placed on the element a check is about to read would be gone
by the time the check reads it, and the mutant would "survive" a check that never saw it; whether
the re-render came before or after the fault would decide the verdict, run by run.

So an element fault is placed through one script per document (``HOLD``) that keeps it: a
MutationObserver re-applies it, in the same microtask as the page's change (before any check can
read the page), to whatever the target's locator picks now: the node that replaced it, or the one
the locator now matches (a ``.selected`` class moved to another link). Nodes that matched when the
fault was placed are not touched again by a removal, so removing the first of a list does not
remove the list one by one.

Where the page-side matcher cannot follow (a locator by role or text whose element moved, a new
document), ``VERIFY`` tells afterwards, through the run's real locator, whether the element the
check read carried the fault; a run that read its target without it is *not applied*, never
*survived*.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator as PwLocator

from .touches import CSS_PATH

# One key per document: a mutant's run places one fault.
KEY = "fault"

HOLD = (
    """(e, spec) => {
  const holds = window.__reuseitHolds = window.__reuseitHolds || {};
  const old = holds[spec.key];
  if (old) { old.run(e); return old.held(e); }
  const pathOf = PATH;
  const path = pathOf(e);
  let css = null;
  if (spec.css) { try { document.querySelectorAll(spec.css); css = spec.css; } catch (err) {} }
  const matches = () => {
    let els;
    try { els = [...document.querySelectorAll(css || path)]; } catch (err) { return []; }
    if (!css) return els;
    if (spec.hasText) els = els.filter(x => (x.textContent || '').includes(spec.hasText));
    if (typeof spec.nth === 'number') {
      const n = spec.nth < 0 ? els.length + spec.nth : spec.nth;
      els = n >= 0 && n < els.length ? [els[n]] : [];
    }
    return els;
  };
  const isField = el => 'value' in el && (el.localName === 'input' || el.localName === 'textarea');
  const change = s => {
    const word = spec.word || '';
    if (spec.mode === 'number') {
      const m = word ? s.match(new RegExp('(?<!\\\\d)' + word + '(?!\\\\d)')) : s.match(/\\d+/);
      return m ? s.slice(0, m.index) + String(Number(m[0]) + 1) + s.slice(m.index + m[0].length) : null;
    }
    const i = s.indexOf(word);
    if (!word || i < 0) return null;
    let other = word.split('').reverse().join('');
    if (other === word) other = word.slice(1) + word[0] + 'x';
    return s.slice(0, i) + other + s.slice(i + word.length);
  };
  const seen = new WeakSet();  // what matched when the fault was placed (and since): not a replacement
  let clone = null;
  const faults = {
    text: {
      apply: el => {
        if (isField(el)) {
          const v = change(el.value);
          if (v !== null) { el.value = v; el.__reuseitShown = v; } else el.__reuseitNothing = true;
          return;
        }
        const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
        for (let n = walk.nextNode(); n; n = walk.nextNode()) {
          const v = change(n.data);
          if (v !== null) { n.data = v; el.__reuseitShown = el.textContent; return; }
        }
        el.__reuseitNothing = true;  // neither its number nor its word is in the text
      },
      held: el => el.__reuseitShown !== undefined && el.__reuseitShown === (isField(el) ? el.value : el.textContent),
    },
    remove: {
      apply: el => { el.style.setProperty('display', 'none', 'important'); el.remove(); },
      held: el => !el.isConnected,
    },
    count: {
      apply: el => {
        if (clone && clone.isConnected) clone.remove();
        clone = el.cloneNode(true);
        clone.__reuseitClone = true;
        el.after(clone);
      },
      held: el => !!clone && clone.isConnected && (!css || matches().includes(clone)),
    },
    pointer: {
      apply: el => el.style.setProperty('pointer-events', 'none', 'important'),
      held: el => el.style.getPropertyValue('pointer-events') === 'none',
    },
    swallow: {
      // The element's own handlers (and the browser's default action) never see the events aimed
      // at it; a form control keeps its value, as if what was typed or chosen never came.
      apply: el => {
        el.__reuseitSwallow = true;
        const kept = 'value' in el ? el.value : null;
        const stop = ev => {
          if (!el.__reuseitSwallow || !(ev.target instanceof Node && el.contains(ev.target))) return;
          ev.stopImmediatePropagation(); ev.preventDefault();
          if (kept !== null && (ev.type === 'input' || ev.type === 'change') && el.value !== kept) el.value = kept;
        };
        for (const t of spec.events || []) window.addEventListener(t, stop, true);
      },
      held: el => !!el.__reuseitSwallow,
    },
    elsewhere: {
      apply: el => {
        const href = el.getAttribute('href') || '';
        el.setAttribute('href', href.startsWith('#') ? '#/reuseit-elsewhere' : '/reuseit-elsewhere/');
      },
      held: el => (el.getAttribute('href') || '').includes('reuseit-elsewhere'),
    },
    nosubmit: {
      apply: el => {
        const form = el.form || el.closest('form');
        if (!form || form.__reuseitNoSubmit) return;
        form.__reuseitNoSubmit = true;
        window.addEventListener('submit', ev => { if (ev.target === form) { ev.preventDefault(); ev.stopImmediatePropagation(); } }, true);
      },
      held: el => { const form = el.form || el.closest('form'); return !form || !!form.__reuseitNoSubmit; },
    },
  };
  const fault = faults[spec.fault];
  const pick = () => {
    const els = matches().filter(x => !x.__reuseitClone);
    return spec.fault === 'count' ? els[els.length - 1] : els[0];
  };
  const run = first => {
    // The element Playwright found may have changed before this script ran (replaced, or no longer
    // matching: a class moved to another link): what the locator picks now, then.
    const el = first && first.isConnected && matches().includes(first) ? first : pick();
    // A removal goes only to a node that replaced the one removed, never to one that was there.
    if (el && !fault.held(el) && !(spec.fault === 'remove' && seen.has(el))) fault.apply(el);
    for (const x of matches()) seen.add(x);
  };
  const opts = {childList: true, subtree: true, characterData: true, attributes: true};
  const obs = new MutationObserver(() => {
    obs.disconnect();  // its own changes are no news to it
    try { run(); } finally { obs.observe(document.documentElement, opts); }
  });
  const verify = els => {
    if (spec.fault === 'remove') return els.length === 0 || seen.has(els[0]) ? 'held' : 'replaced';
    if (spec.fault === 'count') return els.some(x => x.__reuseitClone) ? 'held' : 'replaced';
    if (els.length > 0 && fault.held(els[0])) return 'held';
    return els.length > 0 && els[0].__reuseitNothing ? 'nothing' : 'replaced';
  };
  holds[spec.key] = {run, held: el => fault.held(el), verify};
  run(e);
  obs.observe(document.documentElement, opts);
  const now = e.isConnected && matches().includes(e) ? e : pick();
  return !!now && fault.held(now);
}"""
).replace("PATH", CSS_PATH)

# Whether the element a check's locator reads now carries the fault: "held", "replaced" (the page
# made a node the fault did not follow), "nothing" (the text it read has neither the fault's number
# nor its word), or "gone" (a new document, without the fault's script).
VERIFY = """(els, key) => {
  const h = (window.__reuseitHolds || {})[key];
  if (!h) return els.length === 0 ? 'held' : 'gone';
  return h.verify(els);
}"""


def spec(fault: str, target_loc: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """What ``HOLD`` needs: the fault, and the locator when it is plain CSS the page can match
    itself (with its nth and has_text); else the page follows the element's own address."""
    out: dict[str, Any] = {"key": KEY, "fault": fault, **extra}
    css = target_loc.get("css")
    plain = set(target_loc) <= {"css", "nth", "has_text"}
    if isinstance(css, str) and plain and "{" not in css and not any("{" in str(v) for v in target_loc.values()):
        out["css"] = css
        out["nth"] = target_loc.get("nth")
        out["hasText"] = target_loc.get("has_text")
    return out


def place(loc: PwLocator, fault_spec: dict[str, Any], timeout_ms: float, *, last: bool = False) -> bool:
    """Place the fault on the element (waiting for it as the op or check would) and keep it there;
    whether it took at once (a word the text does not show yet is placed when it shows)."""
    element = loc.last if last else loc.first
    return bool(element.evaluate(HOLD, fault_spec, timeout=timeout_ms))


def verify(loc: PwLocator) -> str:
    """``held``, ``replaced``, ``nothing`` or ``gone`` (see VERIFY), read at once; ``held`` when the page cannot
    be asked (a closed page tells nothing against the fault)."""
    try:
        return str(loc.evaluate_all(VERIFY, KEY))
    except PlaywrightError:
        return "held"
