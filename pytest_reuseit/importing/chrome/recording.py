"""Chrome DevTools Recorder exports (the ``@puppeteer/replay`` schema) as demonstrations.

A recording is ``{"title", "steps": [...]}``; each step has a ``type``. Each step means what the
recorder's own replay library does with it (its ``PuppeteerRunnerExtension.runStep``), or is
written as a ``# not imported`` comment saying why, and counted. Its fields are checked first as
replay's parser checks them (``chrome_schema.py``).

Every selector of a step is kept (``aria/``, CSS, ``xpath/``, ``pierce/``, ``text/``), in the
recording's order: the first that works is the step's, the others its fallbacks. A step's
``target`` other than ``main`` is the page of that URL (a pop-up, a tab): replay waits for it,
``switch_page: {url: ...}`` does too; ``frame: [n, ...]`` is the n-th frame of the page, and so on
inward. Low-level events are folded as a person writes them: a ``keyDown``/``keyUp`` pair is one
``press`` (with the modifiers held down: ``Control+a``), a click that only focused the field
typed into next is dropped. A ``change`` is a select's option, a field's value or the ``change``
op, by what the element is (``compose.py`` decides, once the page has shown it).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .. import limits
from ..demo import Demonstration, DemoStep, Target, UnreadableInput
from ..selectors import _ARIA_ROLE, from_puppeteer, or_chain, to_loc
from .schema import check_recording

_ACTIONS = {"navigate": "goto", "click": "click", "doubleClick": "dblclick", "change": "change", "hover": "hover"}
# replay's mouseButtonMap, in Playwright's words; back and forward have none there.
_BUTTONS = {"primary": "", "auxiliary": "middle", "secondary": "right"}
_MODIFIERS = ("Shift", "Control", "Alt", "Meta")
# A click held this long is a long press a page may tell from a click (replay holds it as long).
_LONG_PRESS_MS = 500


def looks_like(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("steps"), list) and "title" in data


def in_folder(path: Path) -> bool:
    """A JSON object with its steps, from the file's start (a recording too large or damaged to
    be read gets its line)."""
    if path.suffix != ".json":
        return False
    start = limits.peek(path).lstrip()
    if not start.startswith("{") or '"steps"' not in start:
        return False
    try:
        return looks_like(json.loads(limits.read_text(path)))
    except (UnreadableInput, ValueError, RecursionError):
        return True


def given(path: Path, head: bytes) -> bool:
    return path.suffix == ".json"


def read_file(path: Path) -> list[Demonstration]:
    return [read(path)]


def read(path: Path) -> Demonstration:
    text = limits.read_text(path)
    try:
        data = limits.loads(text, str(path))
    except ValueError as exc:
        raise UnreadableInput(f"{path}: not JSON ({exc.__class__.__name__}): not a Chrome recording") from None
    if not looks_like(data):
        raise UnreadableInput(f"{path}: JSON without a title and a list of steps: not a Chrome DevTools recording")
    limits.check_count(path, data["steps"], limits.MAX_STEPS, "steps in one recording")
    check_recording(data, str(path))
    for n, step in enumerate(data["steps"]):
        limits.check_count(path, step.get("selectors"), limits.MAX_SELECTORS, f"selectors in steps[{n}]")
    demo = Demonstration(title=str(data["title"] or path.stem), source=str(path))
    reader = _Reader(demo, data.get("timeout"))
    for n, step in enumerate(data["steps"]):
        reader.one(step, f"{path}: steps[{n}]")
    reader.finish()
    if not any(s.kind != "switch" for s in demo.steps):
        raise UnreadableInput(f"{path}: a recording with no step to import")
    return demo


def _target(step: dict[str, Any], *, field: bool) -> Target | None:
    selectors = []
    for sel in step.get("selectors") or []:
        converted = from_puppeteer(sel, field=field)
        if converted and converted not in selectors:
            selectors.append(converted)
    if not selectors:
        return None
    # A step in a frame names it by its place among each page's frames, outermost first.
    inside = "".join(f"iframe >> nth={i} >> internal:control=enter-frame >> " for i in step.get("frame") or [])
    # Chrome's own names for the element (aria/NAME with no role): Playwright computes a label's
    # text otherwise (a <select> inside its <label>: the options' texts too).
    whole = [s[0] if isinstance(s, list) and len(s) == 1 else s for s in step.get("selectors") or []]
    names = [s[5:] for s in whole if isinstance(s, str) and s.startswith("aria/")]
    return Target([inside + s for s in selectors], names=[n for n in names if not _ARIA_ROLE.match(n)])


class _Reader:
    """Reads the steps in order, knowing which page is current and which keys are held."""

    def __init__(self, demo: Demonstration, timeout_ms: float | None) -> None:
        self.demo = demo
        # replay waits up to the recording's timeout (else 5 s) for each step: a longer one is the
        # workflow's (the ops wait 10 s, the checks 5 s, by default).
        self.waits = {"action": 10.0, "check": 5.0}
        if timeout_ms is not None:
            wait = _number(timeout_ms / 1000)
            for key, default in (("action", 10), ("check", 5)):
                if wait > default:
                    demo.settings[f"{key}_timeout"] = wait
                    self.waits[key] = wait
            if 2 * wait > 30:
                demo.settings["step_timeout"] = 2 * wait
        self.page = "main"  # the page the steps run on: main, or a pop-up's URL
        self.pages = ["main"]  # the pages switched to, latest last (a closed one goes back)
        self.held: list[str] = []  # modifier keys down
        self.pressed: list[str] = []  # keys pressed (keyDown) whose keyUp is still to come
        self.notes: list[str] = []  # said before the first step
        self.combined = False  # a key was pressed with the modifiers held now

    # ------------------------------------------------------------------ saying

    def say(self, words: str) -> None:
        """A step not imported: a comment where it was, before the next step (or the last one)."""
        self.notes.append(words)

    def say_after(self, words: str) -> None:
        """An assertion not imported: a comment on the step it checked."""
        if any(s.kind != "switch" for s in self.demo.steps):
            self.demo.steps[-1].unexpressed.append(words)
        else:
            self.notes.append(words)

    def add(self, step: DemoStep) -> None:
        self.demo.steps.append(step)
        if self.notes and step.kind != "switch":
            step.unexpressed[:0] = self.notes
            self.notes = []

    def finish(self) -> None:
        for key in self.pressed:
            self.say(f"keyDown {key} with no keyUp (replay leaves the key held down)")
        for key in self.held:
            self.say(f"keyDown {key} held down to the end (replay leaves the key held down)")
        if self.notes and self.demo.steps:
            self.demo.steps[-1].unexpressed.extend(self.notes)

    # ------------------------------------------------------------------ pages

    def on(self, step: dict[str, Any]) -> None:
        """Make the step's target page current first (replay waits for a page of that URL)."""
        target = step.get("target") or "main"
        if target == self.page:
            return
        self.add(DemoStep("switch", value=target))
        if target != "main" and target not in self.demo.visited:
            self.demo.visited.append(target)
        self.page = target
        if target in self.pages:
            self.pages.remove(target)
        self.pages.append(target)

    # ------------------------------------------------------------------ steps

    def one(self, step: dict[str, Any], where: str) -> None:
        kind = str(step["type"])
        handler = getattr(self, f"_{kind}", None)
        if handler is not None:
            handler(step)
            return
        self._action(kind, step, where)

    def _action(self, kind: str, step: dict[str, Any], where: str) -> None:
        target = _target(step, field=kind == "change")
        if kind != "navigate" and target is None:
            raise UnreadableInput(f"{where}: a {kind} step with no selector this release can use")
        button = _BUTTONS.get(str(step.get("button") or "primary"))
        if button is None:
            self.say(
                f"{kind} with the {step['button']} mouse button on {_selectors(step)} "
                "(Playwright presses no back or forward button)"
            )
            return
        if self.held and kind != "navigate":
            self.say(f"{kind} on {_selectors(step)} with {'+'.join(self.held)} held down (not in the format)")
            return
        if kind == "navigate" and step.get("frame"):
            self.say(f"navigate {step['url']} inside the frame {step['frame']} (the format opens pages, not frames)")
            return
        self.on(step)
        demo_step = DemoStep(_ACTIONS[kind], target=target, button=button)
        demo_step.origin = json.dumps(step.get("selectors"))
        if kind == "navigate":
            demo_step.value = str(step["url"])
        elif kind == "change":
            demo_step.value = str(step["value"])
            previous = self.demo.steps[-1] if self.demo.steps else None
            if (
                previous is not None
                and previous.kind == "click"
                and previous.origin == demo_step.origin
                and not (previous.checks or previous.button)
            ):
                self.demo.steps.pop()  # that click only focused this field
                demo_step.unexpressed = previous.unexpressed
        demo_step.timeout = self._longer(step, "action")
        self.add(demo_step)
        if step.get("duration", 0) >= _LONG_PRESS_MS:
            self.say_after(f"{kind} held down {step['duration']} ms (a long press: the click here is a short one)")
        self._asserted_events(step)

    def _longer(self, step: dict[str, Any], what: str) -> float:
        """The step's own timeout in seconds when it is longer than the workflow's, else 0."""
        wait = _number(step["timeout"] / 1000) if "timeout" in step else 0
        return wait if wait > self.waits[what] else 0

    def _check(self, step: dict[str, Any], check: dict[str, Any], words: str) -> None:
        """A check of the step, waiting as long as the step's own timeout says."""
        self.demo.add_check(check, words)
        last = self.demo.steps[-1]
        last.check_timeout = max(last.check_timeout, self._longer(step, "check"))

    def _asserted_events(self, step: dict[str, Any]) -> None:
        """replay waits for the navigation the step starts (it compares neither URL nor title):
        the page's URL is checked without its fragment (a hash router's ``#/`` is the same page),
        and its title; a frame's navigation is no page's URL and is said."""
        for event in step.get("assertedEvents") or []:
            if step.get("frame"):
                self.say_after(f"assertedEvents navigation of the frame {step['frame']} to {event.get('url', '?')}")
                continue
            if event.get("url"):
                self._check(step, {"url": {"matches": url_pattern(str(event["url"]))}}, "assertedEvents url")
            if event.get("title"):
                self._check(step, {"title": {"equals": str(event["title"])}}, "assertedEvents title")

    def _keyDown(self, step: dict[str, Any]) -> None:
        key = str(step["key"])
        if key in _MODIFIERS:
            if key not in self.held:
                self.held.append(key)
            return
        self.on(step)
        self.add(DemoStep("press", value="+".join([*self.held, key])))
        self.pressed.append(key)
        self.combined = bool(self.held)
        self._asserted_events(step)  # Enter in a form: replay waits for the navigation as after a click

    def _keyUp(self, step: dict[str, Any]) -> None:
        key = str(step["key"])
        if key in self.held:
            self.held.remove(key)
            if not self.combined:  # a modifier pressed and let go alone
                self.on(step)
                self.add(DemoStep("press", value=key))
            self.combined = self.combined and bool(self.held)
        elif key in self.pressed:
            self.pressed.remove(key)
        else:
            self.say_after(f"keyUp {key} with no keyDown before it")
            return
        self._asserted_events(step)  # on the press the key ended

    def _setViewport(self, step: dict[str, Any]) -> None:
        width, height = step["width"], step["height"]
        size = {"width": int(width), "height": int(height)}
        if width != int(width) or height != int(height) or min(size.values()) <= 0:
            raise UnreadableInput(f"setViewport {width}x{height}: a viewport is whole pixels, more than 0")
        extras = [
            f"{k} {step[k]}"
            for k, plain in (("deviceScaleFactor", 1), ("isMobile", False), ("hasTouch", False))
            if step[k] != plain
        ]
        current = self.demo.browser.get("viewport")
        if not any(s.kind != "switch" for s in self.demo.steps) and current is None:
            self.demo.browser["viewport"] = size
        elif current != size:
            self.say(f"setViewport {size['width']}x{size['height']} after the first step (the format sets it once)")
        if extras:
            self.say(f"setViewport {', '.join(extras)} (not in the format's browser options)")

    def _scroll(self, step: dict[str, Any]) -> None:
        """replay scrolls the window to (x, y), not by them, or an element (its scrollLeft and
        scrollTop); a frame's window is its document's root element."""
        x, y = _number(step.get("x") or 0), _number(step.get("y") or 0)
        self.on(step)
        if not step.get("selectors") and not step.get("frame"):
            self.add(DemoStep("eval", value=f"window.scroll({x}, {y})", words=f"Scroll the page to {x}, {y}"))
            return
        target = _target(step if step.get("selectors") else {**step, "selectors": ["html"]}, field=False)
        if target is None:
            self.say(f"scroll of {_selectors(step)} to {x}, {y} (no selector this release can use)")
            return
        self.add(DemoStep("scroll", target=target, value=f"{x}, {y}"))

    def _close(self, step: dict[str, Any]) -> None:
        if (step.get("target") or "main") == "main":
            self.say("close of the main page (the run's page stays open to the end)")
            return
        self.on(step)
        self.add(DemoStep("close_page"))
        self.pages.pop()
        self.page = self.pages[-1] if self.pages else "main"

    def _emulateNetworkConditions(self, step: dict[str, Any]) -> None:
        self.say(
            f"emulateNetworkConditions download {step['download']}, upload {step['upload']}, latency "
            f"{step['latency']} (the format has no network throttling)"
        )

    def _customStep(self, step: dict[str, Any]) -> None:
        self.say(f"customStep {step['name']!r} (a Puppeteer extension: not in the format)")

    def _waitForElement(self, step: dict[str, Any]) -> None:
        check, words = _wait_for_element(step)
        if check is None:
            self.say_after(words)
            return
        self.on(step)
        self._check(step, check, words)

    def _waitForExpression(self, step: dict[str, Any]) -> None:
        if step.get("frame"):
            self.say_after(f"waitForExpression in the frame {step['frame']} (a js check runs in the page)")
            return
        self.on(step)
        self._check(step, {"js": str(step["expression"])}, "waitForExpression")


def url_pattern(url: str) -> str:
    """A ``matches`` pattern for ``url`` whatever its fragment: ``index.html`` and ``index.html#/``
    are the same document. The address's origin stays as written, so it is written from
    ``{base_url}`` like any other."""
    base = url.split("#", 1)[0]
    m = re.match(r"^[a-z][a-z0-9+.-]*://[^/?#]*", base, re.I)
    origin = m.group(0) if m else ""
    return "^" + origin + re.escape(base[len(origin) :]) + "(#.*)?$"


def _number(value: float) -> float:
    """A whole number written without its ``.0``."""
    return int(value) if value == int(value) else value


def _selectors(step: dict[str, Any]) -> str:
    return ", ".join(s if isinstance(s, str) else " >> ".join(s) for s in step.get("selectors") or [])


def _wait_for_element(step: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """replay counts the elements the first selector that finds any finds (hidden ones too) and
    compares the count; ``visible: false`` waits for the comparison to fail."""
    target = _target(step, field=False)
    words = f"waitForElement {_selectors(step)}"
    if target is None:
        return None, words
    if step.get("attributes") or step.get("properties"):
        return None, f"{words} (its attributes and properties: not in the format yet)"
    loc = to_loc(target.selectors[0])
    operator, count = str(step.get("operator") or ">="), step.get("count", 1)
    if count != int(count):
        return None, f"{words} (a count of {count})"
    bound = {"==": "equals", ">=": "min", "<=": "max"}[operator]
    if bound == "min" and count == 1:
        # "Any element, by the first selector that finds one" is "any element by any of them": the
        # recording's alternatives are the check's too (or), as replay tries them.
        loc = or_chain(loc, target.selectors[1:])
    check: dict[str, Any] = {"count": {**loc, bound: int(count)}}
    if step.get("visible") is False:
        check = {"not": check}
    return check, words
