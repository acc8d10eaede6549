"""A Chrome DevTools Recorder ``change`` step, done as the recorder's own replay does it.

``@puppeteer/replay`` replays a change with Puppeteer's ``Locator.fill``, which looks at the
element first: a ``<select>`` gets the option whose value is the one recorded (by value only); a
text field, a text area or an editable element is cleared unless the value recorded starts with
what it holds, and the rest typed key by key; any other input (a colour, a date, a range, a
checkbox) has its ``value`` set and ``input`` and ``change`` dispatched; anything else cannot be
filled. The ``change`` op does the same, so a recording whose element the import could not see
still means what it meant.
"""

from __future__ import annotations

from playwright.sync_api import Locator

# What the element is, in Puppeteer's words.
_KIND = """(el) => {
  if (el instanceof HTMLSelectElement) return 'select';
  if (el instanceof HTMLTextAreaElement) return 'typeable';
  if (el instanceof HTMLInputElement)
    return ['textarea', 'text', 'url', 'tel', 'search', 'password', 'number', 'email'].includes(el.type)
      ? 'typeable' : 'other';
  if (el.isContentEditable) return 'editable';
  return 'unknown';
}"""
# Clears the field unless the new value continues what it holds; returns what is left to type.
_TO_TYPE = """(el, value) => {
  const editable = el.isContentEditable;
  const current = editable ? el.innerText : el.value;
  if (value.length <= current.length || !value.startsWith(current)) {
    if (editable) el.innerText = ''; else el.value = '';
    return value;
  }
  return value.substring(current.length);
}"""
_SET = """(el, value) => {
  el.focus();
  el.value = value;
  el.dispatchEvent(new Event('input', {bubbles: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
}"""


class CannotChange(Exception):
    """The element is no field (not a select, an input, a text area or an editable element)."""


def change(loc: Locator, value: str, timeout_ms: float) -> None:
    kind = loc.evaluate(_KIND, timeout=timeout_ms)
    if kind == "select":
        loc.select_option(value=value, timeout=timeout_ms)
    elif kind in ("typeable", "editable"):
        rest = loc.evaluate(_TO_TYPE, value, timeout=timeout_ms)
        loc.press_sequentially(str(rest), timeout=timeout_ms)
    elif kind == "other":
        loc.evaluate(_SET, value, timeout=timeout_ms)
    else:
        raise CannotChange("the element cannot be filled out: it is no select, input, text area or editable element")
