"""``select`` on a widget that is no native ``<select>``: a custom dropdown, a multi-select, a
combobox that filters as you type, an autocomplete that loads its options from the server.

Done as a person does it: open it (a click, else the keyboard), find the option by its text
(exact first, else the one that contains it), type its text first only where the list does not
offer it yet (a searchable list, options from the server), click it; for a list, exactly those
chosen; close the pop-up when it stays open; then read back what the widget shows chosen.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from playwright.sync_api import ElementHandle, JSHandle
from playwright.sync_api import Error as PlaywrightError

from ..op_context import OpContext, OpFailed
from .page import POLL_MS, Widget, call, time_left

# How long a click on the widget is given to show its list before the keyboard is tried: a list
# drawn by a framework comes within a frame or two; one from the server comes after typing.
_OPEN_MS = 1200
# How long typed text is given to bring the option (a server's answer; a debounce).
_TYPED_MS = 600


@dataclass
class _Option:
    handle: ElementHandle
    text: str
    selected: bool
    disabled: bool


def _popup(w: Widget) -> JSHandle | None:
    trigger = w.handle.get_property("el")
    host = w.handle.get_property("host")
    list_handle = trigger.evaluate_handle("(el, host) => window.__reuseitWidgets.popup(el, host || null)", host)
    if list_handle.as_element() is None:
        return None
    return list_handle


def _options(list_handle: JSHandle) -> list[_Option]:
    listed = call(list_handle, "optionsOf")
    handles = list_handle.evaluate_handle("l => window.__reuseitWidgets.optionsOf(l).map(o => o.el)")
    elements = [v.as_element() for v in handles.get_properties().values()]
    return [
        _Option(el, o["text"], o["selected"], o["disabled"])
        for o, el in zip(listed, elements, strict=False)
        if el is not None
    ]


def _matching(options: list[_Option], wanted: str) -> list[_Option]:
    """The option a person means: the one whose text is the one written, else the ones that
    contain it (case-blind)."""
    want = " ".join(wanted.split())
    exact = [o for o in options if o.text == want]
    if exact:
        return exact[:1]
    blind = [o for o in options if o.text.lower() == want.lower()]
    if blind:
        return blind[:1]
    return [o for o in options if want.lower() in o.text.lower()]


def _typing_field(ctx: OpContext, w: Widget) -> ElementHandle | None:
    """Where a person types to filter: the focused text field once the widget is open (a search
    box in its pop-up), else the trigger itself when it is one."""
    focused = ctx.page.evaluate_handle(
        "() => { let a = document.activeElement; while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement; return a; }"
    ).as_element()
    for el in (focused, w.element()):
        if el is None:
            continue
        ok = el.evaluate(
            "e => (e.tagName === 'INPUT' && !['checkbox','radio','button','submit','range','hidden'].includes(e.type) && !e.readOnly) || e.isContentEditable"
        )
        if ok:
            return el
    return None


def _open(ctx: OpContext, w: Widget, deadline: float) -> JSHandle | None:
    """The widget's list of options, opened as a person opens it: a click, else ArrowDown."""
    found = _popup(w)
    if found is not None and _options(found):
        return found
    trigger = w.element()
    assert trigger is not None
    point = w.call("clickPoint") if w.multiple else None
    if point is not None:
        trigger.click(position=point, timeout=time_left(deadline))
    else:
        trigger.click(timeout=time_left(deadline))
    for key in ("", "ArrowDown"):
        if key:
            trigger.press(key, timeout=time_left(deadline))
        stop = min(deadline, time.monotonic() + _OPEN_MS / 1000)
        while True:
            found = _popup(w)
            if found is not None and _options(found):
                return found
            if time.monotonic() >= stop:
                break
            ctx.page.wait_for_timeout(POLL_MS)
    return None


def _pick(ctx: OpContext, w: Widget, wanted: str, multiple: bool, deadline: float, seen: set[str], op: str) -> str:
    """Open, find and click the option ``wanted``; its full text."""
    popup = _open(ctx, w, deadline)
    options = _options(popup) if popup is not None else []
    hits = _matching(options, wanted)
    typed = False
    untyped = [o.text for o in options]
    if not hits:
        field = _typing_field(ctx, w)
        if field is not None:
            # A searchable list or one the server fills: typed to filter, as a person types.
            field.fill(wanted, timeout=time_left(deadline))
            typed = True
            stop = min(deadline, time.monotonic() + max(_TYPED_MS, 0) / 1000)
            while True:
                popup = _popup(w)
                options = _options(popup) if popup is not None else []
                hits = _matching(options, wanted)
                if hits or time.monotonic() >= deadline:
                    break
                if time.monotonic() >= stop and not options:
                    # Some widgets listen for keys, not input events: the last letter as a key.
                    field.fill(wanted[:-1], timeout=time_left(deadline))
                    field.type(wanted[-1:], timeout=time_left(deadline))
                    stop = deadline
                ctx.page.wait_for_timeout(POLL_MS)
    seen.update(o.text for o in options)
    if not hits:
        if popup is None and not typed:
            raise OpFailed(
                op, f"the element labelled {w.label} is {w.what}, which opened no list of options", "not_found"
            )
        # What it offers as a person opens it: typing may have left only "No results found".
        offered = untyped if typed and untyped else [o.text for o in options]
        listed = ", ".join(offered[:12]) + (", ..." if len(offered) > 12 else "")
        after = ", ".join(o.text for o in options[:3]) or "none"
        found = f" (typed, it offered {after})" if typed else ""
        where = f"the {len(offered)} options of {w.what}" if offered else f"the options of {w.what}"
        raise OpFailed(op, f"{wanted!r} is not among {where}{': ' + listed if offered else ''}{found}", "no_option")
    if len(hits) > 1:
        both = " and ".join(repr(o.text) for o in hits[:3])
        raise OpFailed(op, f"{wanted!r} is in several options of {w.what}: {both}; write the whole text", "ambiguous")
    hit = hits[0]
    if typed and _creates(hit.text, wanted):
        # Free text a tag field adds (react-select's "Create ...", Choices' "Press Enter to add"):
        # a person presses Enter.
        field = _typing_field(ctx, w)
        if field is not None:
            field.press("Enter", timeout=time_left(deadline))
            return " ".join(wanted.split())
    if hit.disabled:
        raise OpFailed(op, f"the option {hit.text!r} of {w.what} is disabled", "disabled")
    # Whether it is chosen already is the widget's to say (``choose`` asks it), not the option's
    # aria-selected: Select2 sets that on the option the keyboard is on.
    hit.handle.click(timeout=time_left(deadline))
    return hit.text


def _creates(text: str, wanted: str) -> bool:
    """Whether an item of the list offers to add the typed text (it quotes it, or says add/create)."""
    if _same(text, wanted):
        return False
    quoted = any(f"{a}{wanted}{b}".lower() in text.lower() for a, b in (('"', '"'), ("“", "”"), ("'", "'")))
    return quoted or text.lower().startswith(("add ", "create ", "press enter"))


def _unpick(ctx: OpContext, w: Widget, text: str, deadline: float) -> None:
    """Unchoose one option of a multi-select: its chip's remove button, else its option clicked again."""
    remover = w.handle.evaluate_handle(
        """(t, text) => {
          const W = window.__reuseitWidgets;
          const root = W.fieldRoot(t);
          const norm = (s) => (s || '').replace(/\\s+/g, ' ').trim();
          const all = [root, ...root.querySelectorAll('*')];
          const chip = all.filter((e) => W.shown(e) && W.shownTexts(e, []).join(' ') === text).pop();
          if (!chip) return null;
          let box = chip;
          for (let i = 0; box && i < 3; i++, box = box.parentElement) {
            const x = [...box.querySelectorAll('*')].find((e) => W.shown(e) && !e.contains(chip) && (
              /remove|delete|clear|close|cancel/i.test((e.getAttribute('aria-label') || '') + ' ' + (e.getAttribute('title') || '') + ' ' + (typeof e.className === 'string' ? e.className : '') + ' ' + (e.getAttribute('data-testid') || ''))
              || /^[×✕✖xX]$/.test(norm(e.textContent))));
            if (x) return x;
          }
          return null;
        }""",
        text,
    ).as_element()
    if remover is not None:
        remover.click(timeout=time_left(deadline))
        return
    popup = _open(ctx, w, deadline)
    for o in _options(popup) if popup is not None else []:
        if o.text == text and o.selected:
            o.handle.click(timeout=time_left(deadline))
            return


def _close(ctx: OpContext, w: Widget) -> None:
    """Close a pop-up that stayed open (a multi-select's), as a person does: Escape."""
    if _popup(w) is None:
        return
    ctx.page.keyboard.press("Escape")
    for _ in range(10):
        if _popup(w) is None:
            return
        ctx.page.wait_for_timeout(POLL_MS)


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()).lower() == " ".join(b.split()).lower()


def choose(ctx: OpContext, w: Widget, wanted: list[str], listed: bool, op: str) -> None:
    """Choose ``wanted`` on a custom widget; a list (``listed``) means exactly those chosen."""
    if w.disabled:
        raise OpFailed(op, f"{w.what} is disabled", "disabled")
    deadline = time.monotonic() + ctx.action_timeout_ms / 1000
    suggestions = w.handle.evaluate(
        "t => t.el.tagName === 'INPUT' && t.el.list ? [...t.el.list.options].map(o => o.label || o.value) : null"
    )
    if suggestions is not None:
        _from_datalist(ctx, w, wanted, suggestions, deadline, op)
        return
    multiple = listed or w.multiple
    w.call("mark")
    seen: set[str] = set()
    picked: list[str] = []
    try:
        already = call(w.handle, "chosen", [])
        for text in wanted:
            if multiple and any(_same(text, a) for a in already):
                picked.append(next(a for a in already if _same(text, a)))
                continue
            picked.append(_pick(ctx, w, text, multiple, deadline, seen, op))
        if multiple:
            for extra in call(w.handle, "chosen", sorted(seen | set(already) | set(picked))):
                if not any(_same(extra, p) for p in picked):
                    _unpick(ctx, w, extra, deadline)
        _close(ctx, w)
        _leave(w)
    except PlaywrightError as exc:
        if "Timeout" in type(exc).__name__:
            raise OpFailed(
                op,
                f"{w.what} did not let the option be chosen within {ctx.action_timeout_ms / 1000:g}s ({str(exc).splitlines()[0]})",
                "not_found",
            ) from None
        raise
    _read_back(ctx, w, picked, multiple, seen, deadline, op)


def _from_datalist(
    ctx: OpContext, w: Widget, wanted: list[str], suggestions: list[str], deadline: float, op: str
) -> None:
    """An ``<input list>``: a person types the suggestion (the browser draws its list outside the
    page), and leaving the field commits it."""
    if len(wanted) != 1:
        raise OpFailed(
            op, f"{w.what} takes one value (its suggestions are a <datalist>), not {len(wanted)}", "bad_value"
        )
    values = w.handle.evaluate("t => [...t.el.list.options].map(o => o.value)")
    options = [(label, value) for label, value in zip(suggestions, values, strict=True)]
    want = " ".join(wanted[0].split())
    hits = [o for o in options if want in (o[0], o[1])] or [o for o in options if want.lower() in o[0].lower()]
    if len(hits) != 1:
        offered = ", ".join(label for label, _ in options[:12])
        if not hits:
            raise OpFailed(
                op, f"{wanted[0]!r} is not among the {len(options)} suggestions of {w.what}: {offered}", "no_option"
            )
        both = " and ".join(repr(h[0]) for h in hits[:3])
        raise OpFailed(
            op, f"{wanted[0]!r} is in several suggestions of {w.what}: {both}; write the whole text", "ambiguous"
        )
    field = w.element()
    assert field is not None
    field.fill(hits[0][1], timeout=time_left(deadline))
    field.evaluate("e => e.blur()")
    if field.evaluate("e => e.value") != hits[0][1]:
        raise OpFailed(op, f"{w.what} did not keep {hits[0][1]!r}", "no_state")


def _leave(w: Widget) -> None:
    """A combobox whose field still has the focus commits as a person leaves it."""
    trigger = w.element()
    if trigger is None:
        return
    trigger.evaluate(
        "e => { const a = e.getRootNode().activeElement; if (a === e && e.tagName === 'INPUT') e.blur(); }"
    )


def _read_back(
    ctx: OpContext, w: Widget, picked: list[str], multiple: bool, seen: set[str], deadline: float, op: str
) -> None:
    known = sorted(seen | set(picked))
    shown: list[str] = []
    while True:
        shown = call(w.handle, "chosen", known)
        if _shows(shown, picked, multiple):
            return
        if time.monotonic() >= deadline:
            break
        ctx.page.wait_for_timeout(POLL_MS)
    says = ", ".join(repr(s) for s in shown) if shown else "nothing"
    wanted = ", ".join(repr(p) for p in picked)
    raise OpFailed(op, f"{w.what} shows {says} chosen after the op, not {wanted}", "no_state")


def _shows(shown: list[str], picked: list[str], multiple: bool) -> bool:
    if multiple:
        return sorted(s.lower() for s in shown) == sorted(p.lower() for p in picked) or (
            len(shown) == len(picked) and all(any(_same(p, s) or p.lower() in s.lower() for s in shown) for p in picked)
        )
    return bool(shown) and any(_same(shown[0], p) or p.lower() in shown[0].lower() for p in picked)
