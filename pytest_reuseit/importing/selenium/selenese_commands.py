"""Each Selenium IDE or Katalon Recorder command as the demonstration step its runner's action
means, or said with the reason.

Selenium IDE (SeleniumHQ/selenium-ide, ``packages/side-runtime/src/webdriver.ts``): each
``doX`` says what a command does, which of its target and value are interpolated (the
``composePreprocessors`` table at the end of that file: ``assertChecked`` and a few others read
their target as written), and which alternatives it tries when its locator finds nothing
(``targetFallback``, ``targets``, ``fallbackTargets``: most commands all three in order,
``assertElementPresent``/``waitForElementVisible``/``waitForText`` only ``targetFallback``, the
``NotPresent``/``NotVisible``/``Editable`` waits, ``storeAttribute`` and ``storeElementCount``
none). Katalon Recorder (katalon-studio/katalon-recorder, ``content/selenium-api.js`` and
``content/selenium-commandhandlers.js``): Selenium Core's actions, and an ``assert``, ``verify``,
``waitFor`` and ``store`` command made from each ``getX``/``isX`` accessor, its expected value a
pattern; the ``<datalist>`` alternatives are tried in order.

What the format does differently from the runner is written beside the step and counted: a
``verify`` that fails stops the run here (Selenium IDE and Katalon go on and fail the test at its
end: the format has no check that goes on).
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urljoin, urlsplit

from ..demo import Demonstration, DemoStep, Target
from ..refs import holds_ref, only_ref
from ..selectors import to_loc
from .selenese import (
    KATALON,
    SIDE,
    NotImported,
    Variables,
    all_matches,
    as_async_function,
    as_function,
    as_stored,
    key_presses,
    option_choice,
    selectors,
    side_keys,
    text_match,
    webdriver_attribute,
)
from .selenese_flow import KATALON_BLOCKS, SIDE_BLOCKS, Command, Flow

# Which alternatives side-runtime tries for a command's element: all three lists, targetFallback
# only, or none (the command reads its locator alone).
_FIRST_ONLY = {"assertElementPresent", "waitForElementVisible", "waitForText", "dragAndDropToObject"}
_NO_ALTERNATIVES = {
    "storeAttribute",
    "storeElementCount",
    "assertElementNotPresent",
    "waitForElementNotPresent",
    "waitForElementNotVisible",
    "waitForElementEditable",
    "waitForElementNotEditable",
    "selectFrame",
}
# Commands side-runtime reads as written, not interpolated (no preprocessor on their arguments).
_RAW = {
    "assertChecked",
    "assertNotChecked",
    "assertNotText",
    "assertNotValue",
    "assertSelectedValue",
    "assertNotSelectedValue",
    "assertNotSelectedLabel",
    "pause",
    "storeTitle",
    "storeWindowHandle",
}
# Commands whose targetFallback side-runtime interpolates (the others' alternatives are as written).
_FALLBACKS_INTERPOLATED = {
    "addSelection",
    "removeSelection",
    "check",
    "uncheck",
    "click",
    "clickAt",
    "doubleClick",
    "doubleClickAt",
    "dragAndDropToObject",
    "select",
    "editContent",
    "type",
    "sendKeys",
    "storeAttribute",
    "storeElementCount",
    "storeText",
    "storeValue",
    "assertEditable",
    "assertNotEditable",
    "assertSelectedLabel",
    "assertValue",
}
# Katalon Recorder's Selenium Core waits this long for a waitFor command (Selenium.DEFAULT_TIMEOUT).
_KATALON_WAIT_S = 30.0
_PAGE = "\ue002page:"  # what storeWindowHandle stores: the page, by its place in the format's order

_NOT_IN_FORMAT = {
    "mouseDownRight": "fires a synthetic right mouse button event by Selenium Core (the format moves the real mouse)",
    "mouseUpRight": "fires a synthetic right mouse button event by Selenium Core (the format moves the real mouse)",
    "mouseMove": "fires a synthetic mouse event by Selenium Core (the format moves the real mouse)",
    "removeSelection": "unselects one option of a list box (the format chooses the options to keep)",
    "editContent": "sets an element's text by script, with no typing events (the format fills or types)",
    "submit": "submits a form by script (the format clicks or presses a key as a person does)",
    "echo": "writes a message in Selenium IDE's log (the format has no log op)",
    "storeJson": "keeps a JavaScript object (only forEach reads it: the format has no loops)",
    "setSpeed": "slows every command down (the format has no such setting)",
    "debugger": "pauses in the debugger",
    "contextMenu": "opens the context menu by script",
    "contextMenuAt": "opens the context menu by script",
    "highlight": "only highlights an element",
    "fireEvent": "dispatches a synthetic event by Selenium Core (the format's dispatch is Playwright's)",
    "keyPress": "sends synthetic key events (the format presses real keys)",
    "keyDown": "sends a synthetic key event (the format presses real keys)",
    "keyUp": "sends a synthetic key event (the format presses real keys)",
    "focus": "focuses by script",
    "captureEntirePageScreenshot": "saves a screenshot file",
}


class CommandReader:
    """Reads one test's commands into ``demo``, knowing the page, frame and variables the runner
    would be on; a command not imported is said before the next step (an assertion: on its step)."""

    def __init__(
        self,
        demo: Demonstration,
        dialect: str,
        base_url: str,
        tests: dict[str, list[Command]],
        *,
        start: str = "",
        plugins: tuple[str, ...] = (),
    ) -> None:
        self.demo = demo
        self.plugins = plugins  # a project's plugins (their names): commands of their own
        self.dialect = dialect
        self.base_url = base_url
        self.last_url = start
        self.vars = Variables(dialect)
        self.notes: list[str] = []
        self.frame: list[str] = []  # selectors of the frames entered, outermost first
        self.page = 0  # the runner's current window, by its place in open order
        self.shown = 0  # the format's current page
        self.pages = 1  # pages opened so far
        self.openers: dict[int, int] = {0: 0}
        self.dialog: Any = None  # an answer chosen for the next dialog (chooseOkOnNextConfirmation...)
        # A check's locator (as JSON) -> the selectors it was made from: the command's own first,
        # then its alternatives.
        self.loc_sources: dict[str, list[str]] = {}
        blocks = SIDE_BLOCKS if dialect == SIDE else KATALON_BLOCKS
        self.flow = Flow(self.one, self.say, self._times, tests, self._test_name, blocks, self.forget)

    # ------------------------------------------------------------------ saying

    def say(self, words: str) -> None:
        self.notes.append(words)

    def say_after(self, words: str) -> None:
        """An assertion not imported: on the step it checked."""
        if self.demo.steps:
            self.demo.steps[-1].unexpressed.append(words)
        else:
            self.notes.append(words)

    def add(self, step: DemoStep, c: Command) -> DemoStep:
        if self.notes:
            step.unexpressed[:0] = self.notes
            self.notes = []
        if c.comment.strip():
            step.remarks.append(f"{'Selenium IDE' if self.dialect == SIDE else 'Katalon'} comment: {c.comment.strip()}")
        self.demo.steps.append(step)
        return step

    def finish(self) -> None:
        if self.notes:
            (self.demo.steps[-1].unexpressed if self.demo.steps else self.demo.unplaced).extend(self.notes)
            self.notes = []

    # ------------------------------------------------------------------ reading

    def play(self, commands: list[Command]) -> None:
        self.flow.play(commands)
        self.finish()

    def one(self, c: Command) -> None:
        name = c.name[: -len("AndWait")] if self.dialect == KATALON and c.name.endswith("AndWait") else c.name
        try:
            self._one(name, c)
        except NotImported as exc:
            self.say(f"{c.text()} ({exc})")
            self.forget(c)

    def forget(self, c: Command) -> None:
        """A command not imported: a variable it stores holds what the import cannot know."""
        name = _stored_name(c)
        if name:
            self.vars.lose(name, c.text())

    def _one(self, name: str, c: Command) -> None:
        handler = getattr(self, f"_do_{name}", None)
        if handler is not None:
            handler(c)
            return
        if name in _NOT_IN_FORMAT:
            raise NotImported(_NOT_IN_FORMAT[name])
        m = re.match(r"^(assert|verify|waitFor)(.+)$", name)
        if m and self._check(m.group(1), m.group(2), c):
            return
        if name.startswith("store") and self.dialect == KATALON:
            raise NotImported("stores a value the format reads no way to read")
        if self.plugins:
            raise NotImported(
                f"not Selenium IDE's: a command of the project's plugins ({', '.join(self.plugins)}) perhaps, "
                "whose code the import does not run: never guessed"
            )
        tool = "Selenium IDE" if self.dialect == SIDE else "Katalon Recorder"
        raise NotImported(f"{tool} has no such command: never guessed")

    # ------------------------------------------------------------------ arguments

    def target_text(self, c: Command) -> str:
        return c.target if (self.dialect == SIDE and c.name in _RAW) else self.vars.interpolate(c.target)

    def value_text(self, c: Command) -> str:
        return c.value if (self.dialect == SIDE and c.name in _RAW) else self.vars.interpolate(c.value)

    def element(self, c: Command, locator: str, *keys: str) -> Target:
        """The element a command acts on: its own locator first, then the alternatives its runner
        tries (``keys``: the lists it reads), in the frame the test selected."""
        found = selectors(locator, self.dialect)
        for key in keys:
            for alt in c.fallbacks.get(key, []):
                if (
                    self.dialect == SIDE
                    and key in ("targetFallback", "valueFallback")
                    and c.name in _FALLBACKS_INTERPOLATED
                ):
                    alt = self.vars.interpolate(alt)
                try:
                    found += [s for s in selectors(alt, self.dialect) if s not in found]
                except NotImported:
                    continue  # the runner fails on it too, once the ones before found nothing
        inside = "".join(f"{f} >> internal:control=enter-frame >> " for f in self.frame)
        return Target([inside + s for s in found])

    def _alternatives(self, name: str) -> tuple[str, ...]:
        if self.dialect == KATALON:
            return ("targets",)
        if name in _NO_ALTERNATIVES:
            return ()
        if name in _FIRST_ONLY:
            return ("targetFallback",)
        return ("targetFallback", "targets", "fallbackTargets")

    def target(self, c: Command) -> Target:
        return self.element(c, self.target_text(c), *self._alternatives(c.name))

    def loc(self, c: Command, *, suffix: str = "") -> dict[str, Any]:
        """The check's locator: the command's own (a person's is found for it on the page once
        the check held, ``derive.Resolver``)."""
        selectors = [s + suffix for s in self.target(c).selectors]
        loc = to_loc(selectors[0])
        self.loc_sources[json.dumps(loc, sort_keys=True)] = selectors
        return loc

    # ------------------------------------------------------------------ pages

    def blank_first(self) -> None:
        """Selenium IDE's runner plays a test that has opened no page yet on the browser's first
        page, an empty one: the workflow starts there too (``about:blank``)."""
        if self.dialect == SIDE and not self.demo.steps:
            self.demo.steps.append(DemoStep("goto", value="about:blank"))
            self.demo.steps[0].remarks.append(
                "Selenium IDE's runner starts on an empty page: the test opens none first"
            )

    def sync(self) -> None:
        """Make the runner's current window the format's current page first."""
        if self.page != self.shown:
            self.demo.steps.append(DemoStep("switch", value="main" if self.page == 0 else str(self.page)))
            self.shown = self.page

    def act(self, step: DemoStep, c: Command) -> DemoStep:
        """An action of the test on the current page: a pop-up it opens is the next page."""
        if step.kind != "goto":
            self.blank_first()
        self.sync()
        if self.dialog is not None:
            step.dialog, self.dialog = self.dialog, None
        if c.opens_window:
            step.new_page = True
            opened = self.pages
            self.pages += 1
            self.openers[opened] = self.shown
            self.shown = opened  # new_page makes it current; the runner stays where it was
            if c.window_name:
                self.vars.store(c.window_name, f"{_PAGE}{opened}")
        return self.add(step, c)

    def _do_open(self, c: Command) -> None:
        url = self.target_text(c)
        if holds_ref(url):
            raise NotImported("opens an address read at run time")
        base = self.base_url if self.dialect == SIDE else self.last_url
        full = urljoin(base, url) if base else url
        if not urlsplit(full).scheme:
            raise NotImported("a relative address with no project url to read it from")
        self.last_url = full
        self.frame = []  # a page opened: the runner is on its top frame again
        self.act(DemoStep("goto", value=full), c)

    def _do_setWindowSize(self, c: Command) -> None:
        m = re.fullmatch(r"\s*(\d+)\s*x\s*(\d+)\s*", self.target_text(c))
        if not m or min(int(m.group(1)), int(m.group(2))) <= 0:
            raise NotImported("a size that is no WIDTHxHEIGHT")
        size = {"width": int(m.group(1)), "height": int(m.group(2))}
        if any(s.kind != "goto" for s in self.demo.steps) or self.demo.browser.get("viewport", size) != size:
            raise NotImported("a window size set after the first step (the format sets the viewport once)")
        self.demo.browser["viewport"] = size

    def _do_storeWindowHandle(self, c: Command) -> None:
        self.vars.store(c.target, f"{_PAGE}{self.page}")

    def _do_selectWindow(self, c: Command) -> None:
        handle = self.target_text(c)
        if self.dialect == KATALON:
            m = re.fullmatch(r"win_ser_(local|\d+)|null", handle)
            if not m:
                raise NotImported("a window by its title or name (the format switches by place or address)")
            index = 0 if handle in ("null", "win_ser_local") else int(m.group(1))
            if index >= self.pages:  # opened by a command the recorder did not mark
                self._opened_by_last(index)
        else:
            if not handle.startswith("handle="):
                raise NotImported("not a handle=${name} (Selenium IDE's runner refuses it)")
            value = handle[len("handle=") :]
            if not value.startswith(_PAGE):
                raise NotImported("a window handle the test did not store (opensWindow or storeWindowHandle)")
            index = int(value[len(_PAGE) :])
        self.page = index
        self.frame = []

    def _opened_by_last(self, index: int) -> None:
        """A window the test switches to that no command said it opened: the command just before
        opened it (Katalon marks none), so that op waits for it, as ``opensWindow`` makes it."""
        last = self.demo.steps[-1] if self.demo.steps else None
        following = index == self.pages  # the next page to open, not one further on
        self.pages = index + 1
        self.openers[index] = self.page
        if last is not None and last.kind in ("click", "dblclick", "press") and not last.new_page and following:
            last.new_page = True
            self.shown = index

    def _do_close(self, c: Command) -> None:
        if self.page == 0:
            raise NotImported("closes the first window (the run's page stays open to the end)")
        self.sync()
        self.add(DemoStep("close_page"), c)
        self.shown = self.page = self.openers.get(self.shown, 0)

    def _do_selectFrame(self, c: Command) -> None:
        where = self.target_text(c)
        if where == "relative=top":
            self.frame = []
        elif where == "relative=parent":
            self.frame = self.frame[:-1]
        elif where.startswith("index="):
            for part in where[len("index=") :].split("\\"):
                if part == "..":
                    self.frame = self.frame[:-1]
                elif part.isdigit():
                    self.frame = [*self.frame, f"css=frame, iframe >> nth={int(part)}"]
                else:
                    raise NotImported("a frame index that is no number")
        else:
            found = [s.removesuffix(" >> nth=0") for s in selectors(where, self.dialect)]
            # Katalon's id-else-name: a frame is found by either (a page rarely names one by the other's id).
            frame = found[0] if len(found) == 1 else "css=" + ", ".join(s.split("=", 1)[1] for s in found)
            self.frame = [*self.frame, frame + " >> nth=0"]

    # ------------------------------------------------------------------ actions

    def _do_click(self, c: Command) -> None:
        self.act(DemoStep("click", target=self.target(c)), c)

    def _do_doubleClick(self, c: Command) -> None:
        self.act(DemoStep("dblclick", target=self.target(c)), c)

    def _do_clickAt(self, c: Command) -> None:
        self._at(c, "click")

    def _do_doubleClickAt(self, c: Command) -> None:
        self._at(c, "dblclick")

    def _at(self, c: Command, kind: str) -> None:
        """side-runtime moves the mouse to the point ``x,y`` from the element's middle (WebDriver's
        pointer move with the element as origin), then acts: the format's ``at``; the middle itself
        ("0,0") is the op as it is. Selenium Core counts from the top left corner and fires
        synthetic events: said."""
        if self.dialect == KATALON:
            raise NotImported(f"at the point {self.value_text(c)!r} from the element's corner, by synthetic events")
        # side-runtime's parseCoordString: parseInt of each part (leading digits; none is NaN).
        parts = [re.match(r"\s*([+-]?\d+)", p) for p in self.value_text(c).split(",")[:2]]
        if len(parts) < 2 or not all(parts):
            raise NotImported(f"{self.value_text(c)!r} is no x,y point (WebDriver refuses the move)")
        x, y = (int(m.group(1)) for m in parts if m)
        self.act(DemoStep(kind, target=self.target(c), at=(x, y) if (x, y) != (0, 0) else None), c)

    def _do_mouseDown(self, c: Command) -> None:
        self._side_only(c)
        self.act(DemoStep("mouse_down", target=self.target(c)), c)

    def _do_mouseUp(self, c: Command) -> None:
        self._side_only(c)
        self.act(DemoStep("mouse_up", target=self.target(c)), c)

    def _do_mouseOut(self, c: Command) -> None:
        self._side_only(c)
        self.act(DemoStep("mouse_out", target=self.target(c)), c)

    def _do_mouseDownAt(self, c: Command) -> None:
        self._at(c, "mouse_down")

    def _do_mouseUpAt(self, c: Command) -> None:
        self._at(c, "mouse_up")

    def _do_mouseMoveAt(self, c: Command) -> None:
        self._at(c, "hover")

    def _side_only(self, c: Command) -> None:
        if self.dialect == KATALON:  # Selenium Core's mouseDown/mouseUp: a synthetic event, no mouse
            raise NotImported("fires a synthetic mouse event by Selenium Core (the format moves the real mouse)")

    def _do_refresh(self, c: Command) -> None:
        self.act(DemoStep("reload"), c)

    def _do_goBack(self, c: Command) -> None:
        self.act(DemoStep("back"), c)

    def _do_mouseOver(self, c: Command) -> None:
        self.act(DemoStep("hover", target=self.target(c)), c)

    def _do_check(self, c: Command) -> None:
        self.act(DemoStep("check", target=self.target(c)), c)

    def _do_uncheck(self, c: Command) -> None:
        self.act(DemoStep("uncheck", target=self.target(c)), c)

    def _do_type(self, c: Command) -> None:
        """side-runtime clears the field, then sends the keys one by one; Selenium Core sets the
        value with its events (Playwright's fill)."""
        target, value = self.target(c), self.value_text(c)
        if self.dialect == KATALON:
            if any("\ue000" <= ch <= "\ue05f" for ch in value):
                raise NotImported("types a ${KEY_...} as a character (Selenium Core sets it in the value)")
            self.act(DemoStep("fill", target=target, value=value), c)
            return
        self.act(DemoStep("fill", target=target, value=""), c)
        if value:
            self.demo.steps.append(DemoStep("type", target=target, value=value))

    def _do_sendKeys(self, c: Command) -> None:
        target = self.target(c)
        keys = side_keys(self.value_text(c)) if self.dialect == SIDE else self.value_text(c)
        presses = key_presses(keys)
        if not presses:
            raise NotImported("no key to send")
        for n, (kind, value) in enumerate(presses):
            step = DemoStep(kind, target=target, value=value)
            if n == 0:
                self.act(step, c)
            else:
                self.demo.steps.append(step)

    def _do_select(self, c: Command) -> None:
        option = option_choice(self.value_text(c), self.dialect)
        self.act(DemoStep("select", target=self.target(c), value=option), c)

    def _do_addSelection(self, c: Command) -> None:
        """An option added to a list box's selection: the options added in a row on the same list
        box are one select (the format's select keeps only the options it names)."""
        option = option_choice(self.value_text(c), self.dialect)
        target = self.target(c)
        last = self.demo.steps[-1] if self.demo.steps else None
        if last is not None and last.kind == "select" and last.target == target and last.caveats and not self.notes:
            last.chose((*(last.options or (last.value,)), option))
            return
        step = self.act(DemoStep("select", target=target, value=option), c)
        step.caveats.append("addSelection keeps the options selected before it; the format's select chooses only these")

    def _do_dragAndDropToObject(self, c: Command) -> None:
        target = self.target(c)
        keys = ("valueFallback",) if self.dialect == SIDE else ()
        to = self.element(c, self.value_text(c), *keys)
        self.act(DemoStep("drag", target=target, to=to), c)

    def _do_pause(self, c: Command) -> None:
        text = c.target.strip() if self.dialect == SIDE else (self.target_text(c) or self.value_text(c)).strip()
        if not re.fullmatch(r"\d+", text):
            raise NotImported("a time that is no number of milliseconds")
        self.act(DemoStep("wait", value=str(int(text))), c)

    # ------------------------------------------------------------------ dialogs

    def _answer_last(self, c: Command, answer: Any) -> None:
        """side-runtime answers a dialog the command before raised: that op's ``dialog:``."""
        acted = [s for s in self.demo.steps if s.kind not in ("switch", "wait")]
        if not acted or acted[-1].kind == "goto" and len(acted) == 1:
            raise NotImported("no command before it raised the dialog")
        last = acted[-1]
        if last.dialog is not None and last.dialog != answer:
            raise NotImported("a second dialog of the same command answered otherwise")
        last.dialog = answer

    def _do_acceptAlert(self, c: Command) -> None:
        self._answer_last(c, "accept")

    def _do_acceptConfirmation(self, c: Command) -> None:
        self._answer_last(c, "accept")

    def _do_dismissConfirmation(self, c: Command) -> None:
        self._answer_last(c, "dismiss")

    def _do_dismissPrompt(self, c: Command) -> None:
        self._answer_last(c, "dismiss")

    def _do_answerPrompt(self, c: Command) -> None:
        answer = self.target_text(c)
        self._answer_last(c, {"accept": True, "text": answer} if answer else "accept")

    # The old recorder's way: the answer is chosen before the command that raises the dialog.
    def _do_chooseOkOnNextConfirmation(self, c: Command) -> None:
        self.dialog = "accept"

    def _do_chooseCancelOnNextConfirmation(self, c: Command) -> None:
        self.dialog = "dismiss"

    def _do_chooseCancelOnNextPrompt(self, c: Command) -> None:
        self.dialog = "dismiss"

    def _do_answerOnNextPrompt(self, c: Command) -> None:
        self.dialog = {"accept": True, "text": self.target_text(c)}

    _do_webdriverChooseOkOnVisibleConfirmation = _do_acceptConfirmation
    _do_webdriverChooseCancelOnVisibleConfirmation = _do_dismissConfirmation
    _do_webdriverChooseCancelOnVisiblePrompt = _do_dismissPrompt

    def _do_webdriverAnswerOnVisiblePrompt(self, c: Command) -> None:
        self._do_answerPrompt(c)

    # ------------------------------------------------------------------ variables

    def _test_name(self, c: Command) -> str:
        name = self.vars.interpolate(c.target)
        if holds_ref(name):
            raise NotImported("the test's name is read at run time")
        return name

    def _times(self, c: Command) -> int:
        text = self.vars.interpolate(c.target)
        if holds_ref(text):
            raise NotImported("the count is read at run time")
        try:
            n = int(float(text))
        except ValueError:
            raise NotImported("not a number: Selenium IDE stops there") from None
        limit_text = c.value.strip()
        limit = int(float(limit_text)) if re.fullmatch(r"\d+(\.\d*)?", limit_text) else 1000
        if n >= limit:
            raise NotImported(f"more than its limit of {limit}: Selenium IDE stops there")
        return max(n, 0)

    def _do_store(self, c: Command) -> None:
        self.vars.store(c.value if self.dialect == SIDE else self.value_text(c), self.target_text(c))

    def _extract(
        self, c: Command, name: str, read: str, target: Target | None = None, *, attribute: str = "", script: str = ""
    ) -> DemoStep:
        """A value the runner reads from the page into ``${name}``: an ``extract`` into the
        placeholder the later commands use."""
        if not name:
            raise NotImported("no variable to store it in")
        self.blank_first()
        self.sync()
        into = self.vars.read_at_run_time(name)
        extract = {"into": into, "read": read, **({"attribute": attribute} if attribute else {})}
        return self.add(DemoStep("extract", target=target, value=script, extract=extract), c)

    def _do_storeText(self, c: Command) -> None:
        self._extract(c, c.value, "text", self.target(c))

    def _do_storeValue(self, c: Command) -> None:
        self._extract(c, c.value, "value", self.target(c))

    def _do_storeAttribute(self, c: Command) -> None:
        text = self.target_text(c)
        at = text.rfind("@")
        if at <= 0 or at == len(text) - 1:
            raise NotImported("not an element locator followed by @attribute")
        target = self.element(c, text[:at], *self._alternatives(c.name))
        attribute = text[at + 1 :]
        if self.dialect == SIDE:  # WebDriver's getAttribute: a property, the style's text... (a script of the element)
            self._extract(c, c.value, "js", target, attribute=attribute, script=webdriver_attribute(attribute))
            return
        self._extract(c, c.value, "text", target, attribute=attribute)

    def _do_storeTitle(self, c: Command) -> None:
        # Its variable is the target (side-migrate's 3.0 "title" migration; Selenium Core's
        # accessor with no argument reads it there too).
        self._extract(c, c.target.strip() or c.value.strip(), "js", script="document.title")

    def _do_storeElementCount(self, c: Command) -> None:
        if self.frame:
            raise NotImported("counts elements in a frame (the format's script runs in the page)")
        self._extract(c, c.value, "js", script=f"String({all_matches(self.target_text(c), self.dialect)})")

    def _do_storeXpathCount(self, c: Command) -> None:
        if self.frame:
            raise NotImported("counts elements in a frame (the format's script runs in the page)")
        self._extract(c, c.value, "js", script=f"String({all_matches('xpath=' + self.target_text(c), self.dialect)})")

    def _do_storeEval(self, c: Command) -> None:
        """Selenium Core's getEval: the script's value (``null`` for none), as text."""
        script = self._script_text(c)
        js = f"(() => {{ const v = (0, eval)({_js_string(script)}); return v == null ? 'null' : String(v); }})()"
        self._extract(c, c.value, "js", script=js)

    def _script_text(self, c: Command) -> str:
        if self.frame:
            raise NotImported("a script in a frame (the format's script runs in the page)")
        if self.dialect == KATALON and re.search(r"\bstoredVars\b|\bthis\.|\bselenium\.|\bbrowserbot\b", c.target):
            raise NotImported("a script reading Selenium Core's own objects (storedVars, browserbot)")
        return self.vars.script(c.target) if self.dialect == KATALON else c.target

    def _do_executeScript(self, c: Command) -> None:
        if self.dialect == KATALON:
            raise NotImported("Katalon Recorder has no such command: never guessed")
        if self.frame:
            raise NotImported("a script in a frame (the format's script runs in the page)")
        body, args = self.vars.script_parts(c.target)
        if c.value.strip():
            self._extract(c, c.value.strip(), "js", script=as_stored(body, args))
            return
        self.act(DemoStep("eval", value=as_function(body, args), words="Run a script in the page"), c)

    def _do_executeAsyncScript(self, c: Command) -> None:
        if self.dialect == KATALON:
            raise NotImported("Katalon Recorder has no such command: never guessed")
        if self.frame:
            raise NotImported("a script in a frame (the format's script runs in the page)")
        body, args = self.vars.script_parts(c.target)
        if c.value.strip():
            self._extract(c, c.value.strip(), "js", script=as_stored(body, args, asynchronous=True))
            return
        self.act(DemoStep("eval", value=as_async_function(body, args), words="Run a script in the page"), c)

    def _do_runScript(self, c: Command) -> None:
        if self.dialect == SIDE:
            if self.frame:
                raise NotImported("a script in a frame (the format's script runs in the page)")
            body, args = self.vars.script_parts(c.target)
            self.act(DemoStep("eval", value=as_function(body, args), words="Run a script in the page"), c)
            return
        self.act(DemoStep("eval", value=self._script_text(c), words="Run a script in the page"), c)

    # ------------------------------------------------------------------ checks

    def _check(self, how: str, what: str, c: Command) -> bool:
        """An assert/verify/waitFor command as the check it means; False for no such command."""
        built = self._side_check(how, what, c) if self.dialect == SIDE else self._katalon_check(what, c)
        if built is None:
            return False
        checks, timeout = built
        endless = False
        if how == "waitFor":
            timeout = self._wait_time(c, what) if self.dialect == SIDE else _KATALON_WAIT_S
            endless = timeout < 0
        self.blank_first()
        self.sync()
        if not self.demo.steps:
            raise NotImported("a check before the test opens a page")
        step = self.demo.steps[-1]
        for check in checks:
            self.demo.add_check(check, c.text())
            sources = self.loc_sources.get(json.dumps(_element_of(check), sort_keys=True))
            if sources:
                step.check_sources[len(step.checks) - 1] = sources
        if timeout > 0:
            step.check_timeout = max(step.check_timeout, timeout)
        if endless:
            step.caveats.append(
                f"{c.text()}: with no wait time Selenium IDE waits without end; here the workflow's check_timeout"
            )
        if how == "verify":
            step.caveats.append(
                f"{c.text()}: {'Selenium IDE' if self.dialect == SIDE else 'Katalon'} goes on after a failed "
                "verify and fails the test at its end; here the run stops at this check (the format has no "
                "check that goes on)"
            )
        if self.notes:
            step.unexpressed.extend(self.notes)
            self.notes = []
        return True

    def _wait_time(self, c: Command, what: str) -> float:
        if what == "Text":
            return 0.0  # waitForText waits the implicit wait, 5 s: the workflow's own check_timeout
        text = self.value_text(c).strip()
        if not text:
            return -1.0  # driver.wait(condition, 0): no end
        if not re.fullmatch(r"\d+", text):
            raise NotImported("a wait time that is no number of milliseconds")
        return int(text) / 1000

    def _side_check(self, how: str, what: str, c: Command) -> tuple[list[dict[str, Any]], float] | None:
        if what == "" and how != "waitFor":
            return self._variable_check(c), 0.0
        if what not in (_SIDE_WAITS if how == "waitFor" else _SIDE_ASSERTS):
            return None
        if what in ("Alert", "Confirmation", "Prompt"):
            return [{"dialog": {"equals": self.target_text(c)}}], 0.0
        if what == "Title":
            return [{"title": {"equals": self.target_text(c)}}], 0.0
        return _SIDE_CHECKS[what](self, c, self.value_text(c)), 0.0

    def _do_assert(self, c: Command) -> None:
        """side-runtime's assert and verify: the variable named as written (not filled), as text,
        equals the value (filled). A value read at run time is a ``variable`` check of its
        placeholder; one known when importing decides the command here, and is said."""
        if self.dialect != SIDE:
            raise NotImported("compares a stored variable (Katalon's Selenium Core has no such command)")
        self._check("verify" if c.name == "verify" else "assert", "", c)  # _side_check: _variable_check

    _do_verify = _do_assert

    def _variable_check(self, c: Command) -> list[dict[str, Any]]:
        name, expected = c.target, self.value_text(c)
        if name in self.vars.lost:
            self.vars.get(name)  # said: stored by a command not imported
        if not self.vars.has(name) or name.startswith("env:"):
            # side-runtime reads an unknown name as undefined: the text 'undefined'.
            raise NotImported(f"${{{name}}} is not stored before it (the runner compares the text 'undefined')")
        stored = self.vars.get(name)
        placeholder = only_ref(stored)
        if placeholder is not None:
            return [{"variable": {"name": placeholder, "equals": expected}}]
        if holds_ref(stored):
            raise NotImported(f"${{{name}}} holds text around values read at run time (a check compares one value)")
        if holds_ref(expected) or stored != expected:
            # Known here and unequal: the runner fails at this command in every run; not written as
            # a workflow that always fails.
            if not holds_ref(expected):
                raise NotImported(f"${{{name}}} is {stored!r} when the test stores it: it never equals {expected!r}")
            raise NotImported(f"${{{name}}}, known when importing, against a value read at run time")
        raise NotImported(f"${{{name}}} is {stored!r} when the test stores it: it holds in every run, nothing to check")

    def _katalon_check(self, what: str, c: Command) -> tuple[list[dict[str, Any]], float] | None:
        negated = what.startswith("Not") and what[3:] in _KATALON_CHECKS
        base = what[3:] if negated else what
        if base.endswith("NotPresent"):
            negated, base = True, base.replace("NotPresent", "Present")
        if base in ("Alert", "Confirmation", "Prompt") and not negated:
            return [{"dialog": {"equals": self.target_text(c)}}], 0.0
        build = _KATALON_CHECKS.get(base)
        if build is None:
            return None
        checks = build(self, c)
        if negated:
            checks = _negated(checks)
        return checks, 0.0


def _stored_name(c: Command) -> str:
    """The variable a command stores into (side-model's ``variableName`` argument), or ""."""
    if c.name == "storeTitle":  # its variable is the target (side-migrate 3.0), or Katalon's value
        return c.target.strip() or c.value.strip()
    if c.name == "storeWindowHandle":
        return c.target.strip()
    if c.name.startswith("store") or c.name in ("executeScript", "executeAsyncScript", "forEach"):
        return c.value.strip()
    if c.opens_window and c.window_name:
        return c.window_name
    return ""


def _element_of(check: dict[str, Any]) -> dict[str, Any]:
    """The locator of the element a check reads (inside ``not``), without what it expects."""
    key, arg = next(iter(check.items()))
    if key == "not":
        return _element_of(arg)
    if not isinstance(arg, dict):
        return {}
    return {k: v for k, v in arg.items() if k not in ("equals", "contains", "matches")}


def _js_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _negated(checks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Selenium Core's inverted predicate: the element must be there when the check reads it."""
    (check,) = checks[-1:]
    key, arg = next(iter(check.items()))
    flipped = {"attached": "detached", "visible": "hidden", "checked": "unchecked"}
    if key in flipped:
        return [{flipped[key]: arg}]
    if key in ("title", "url") or arg.get("selector") == "css=body":
        return [{"not": check}]
    loc = {k: v for k, v in arg.items() if k not in ("equals", "contains", "matches")}
    return [{"attached": loc}, {"not": check}]


def _option(reader: CommandReader, c: Command) -> dict[str, Any]:
    """The option a select shows chosen (side-runtime: the first option of the select's value)."""
    return reader.loc(c, suffix=" >> css=option:checked >> nth=0")


# What side-runtime's doAssertX (and doVerifyX) and doWaitForX exist for.
_SIDE_ASSERTS = {
    *("Text", "NotText", "Value", "NotValue", "SelectedValue", "NotSelectedValue", "SelectedLabel"),
    *("NotSelectedLabel", "Checked", "NotChecked", "Editable", "NotEditable", "ElementPresent"),
    *("ElementNotPresent", "Title", "Alert", "Confirmation", "Prompt"),
}
_SIDE_WAITS = {
    *("ElementVisible", "ElementNotVisible", "ElementPresent", "ElementNotPresent", "ElementEditable"),
    *("ElementNotEditable", "Text"),
}
_SIDE_CHECKS: dict[str, Any] = {
    "Text": lambda r, c, v: [{"text": {**r.loc(c), "equals": v}}],
    "NotText": lambda r, c, v: [{"attached": r.loc(c)}, {"not": {"text": {**r.loc(c), "equals": v}}}],
    "Value": lambda r, c, v: [{"value": {**r.loc(c), "equals": v}}],
    "NotValue": lambda r, c, v: [{"attached": r.loc(c)}, {"not": {"value": {**r.loc(c), "equals": v}}}],
    "SelectedValue": lambda r, c, v: [{"value": {**r.loc(c), "equals": v}}],
    "NotSelectedValue": lambda r, c, v: [{"attached": r.loc(c)}, {"not": {"value": {**r.loc(c), "equals": v}}}],
    "SelectedLabel": lambda r, c, v: [{"text": {**_option(r, c), "equals": v}}],
    "NotSelectedLabel": lambda r, c, v: [{"attached": r.loc(c)}, {"not": {"text": {**_option(r, c), "equals": v}}}],
    "Checked": lambda r, c, v: [{"checked": r.loc(c)}],
    "NotChecked": lambda r, c, v: [{"unchecked": r.loc(c)}],
    "Editable": lambda r, c, v: [{"editable": r.loc(c)}],
    "NotEditable": lambda r, c, v: [{"attached": r.loc(c)}, {"not": {"editable": r.loc(c)}}],
    "ElementPresent": lambda r, c, v: [{"attached": r.loc(c)}],
    "ElementNotPresent": lambda r, c, v: [{"detached": r.loc(c)}],
    "ElementVisible": lambda r, c, v: [{"visible": r.loc(c)}],
    "ElementNotVisible": lambda r, c, v: [{"hidden": r.loc(c)}],
    "ElementEditable": lambda r, c, v: [{"editable": r.loc(c)}],
    "ElementNotEditable": lambda r, c, v: [{"attached": r.loc(c)}, {"not": {"editable": r.loc(c)}}],
}


def _pattern(reader: CommandReader, text: str) -> dict[str, str]:
    return text_match(text, reader.dialect)


def _contains(reader: CommandReader, text: str) -> dict[str, str]:
    """A globContains pattern (isTextPresent): anywhere in the text."""
    match = text_match(text, reader.dialect)
    if "equals" in match:
        return {"contains": match["equals"]}
    return {"matches": match["matches"].removeprefix("^").removesuffix("$")}


_KATALON_CHECKS: dict[str, Any] = {
    "Text": lambda r, c: [{"text": {**r.loc(c), **_pattern(r, r.value_text(c))}}],
    "Value": lambda r, c: [{"value": {**r.loc(c), **_pattern(r, r.value_text(c))}}],
    "Title": lambda r, c: [{"title": _pattern(r, r.target_text(c))}],
    "Location": lambda r, c: [{"url": _pattern(r, r.target_text(c))}],
    "SelectedLabel": lambda r, c: [{"text": {**_option(r, c), **_pattern(r, r.value_text(c))}}],
    "SelectedValue": lambda r, c: [{"value": {**r.loc(c), **_pattern(r, r.value_text(c))}}],
    "Checked": lambda r, c: [{"checked": r.loc(c)}],
    "Editable": lambda r, c: [{"editable": r.loc(c)}],
    "ElementPresent": lambda r, c: [{"attached": r.loc(c)}],
    "Visible": lambda r, c: [{"visible": r.loc(c)}],
    "TextPresent": lambda r, c: [{"text": {"selector": "css=body", **_contains(r, r.target_text(c))}}],
}
