"""What ``playwright codegen --target jsonl`` writes, as a demonstration.

Read in its JSONL form, not its Python: each line is one recorded action as a JSON object with
Playwright's own selector for the element (``internal:role=button[name="Add"i]``) and the
recorder's assertions (``assertText``, ``assertValue``, ``assertChecked``, ``assertVisible``),
where a Python file would have to be parsed as code and its locator calls read back. It is also
what ``reuseit record`` asks the recorder for.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .. import limits
from ..demo import Demonstration, DemoStep, Target, UnreadableInput, Upload
from ..files import base_name
from ..selectors import to_loc
from . import calls

_ACTIONS = {
    "navigate": "goto",
    "click": "click",
    "fill": "fill",
    "press": "press",
    "check": "check",
    "uncheck": "uncheck",
    "select": "select",
    "setInputFiles": "upload",
    "hover": "hover",
}
# The recorder's modifier bits (``modifiersForEvent``).
_MODIFIER_BITS = {1: "Alt", 2: "Control", 4: "Meta", 8: "Shift"}


class _Pages:
    """Which page each action is on (``pageGuid``): the first one opened is the main page, the
    others are numbered in the order they opened, as ``switch_page: N`` counts them."""

    def __init__(self) -> None:
        self.order: list[str] = []
        self.current = ""

    def opened(self, demo: Demonstration, guid: str) -> None:
        if guid and guid not in self.order:
            self.order.append(guid)
        # The first page, or a pop-up the last action opened (its new_page: true makes it current).
        if not self.current or (demo.steps and demo.steps[-1].new_page):
            self.current = guid

    def switch(self, demo: Demonstration, guid: str) -> None:
        """A step making ``guid``'s page current, when an action is on another page than the last."""
        if not guid or guid == self.current or guid not in self.order:
            return
        index = self.order.index(guid)
        value = "main" if index == 0 else str(index)
        demo.steps.append(DemoStep("switch", value=value, words=f"Switch to page {index}" if index else ""))
        self.current = guid


def looks_like(path: Path) -> bool:
    """A ``.jsonl`` file whose first line is one of the recorder's actions."""
    try:  # its first lines, from at most the file's first 64 KB
        lines = [json.loads(line) for line in limits.peek(path).splitlines()[:2]]
    except (ValueError, RecursionError):
        return False
    return any(isinstance(x, dict) and "name" in x and "signals" in x for x in lines)


def in_folder(path: Path) -> bool:
    return path.suffix == ".jsonl" and looks_like(path)


def given(path: Path, head: bytes) -> bool:
    return path.suffix == ".jsonl" or looks_like(path)


def read_file(path: Path) -> list[Demonstration]:
    return [read(path)]


def read(path: Path) -> Demonstration:
    demo = Demonstration(title=path.stem.replace("_", " ").replace("-", " "), source=str(path))
    lines = limits.read_text(path).splitlines()
    limits.check_count(path, lines, limits.MAX_STEPS * 2, "lines in one codegen file")
    pages = _Pages()
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            action = limits.loads(line, f"{path}:{n}")
        except ValueError:
            raise UnreadableInput(
                f"{path}:{n}: not JSON: not a file playwright codegen wrote (--target jsonl)"
            ) from None
        if isinstance(action, dict) and "browserName" in action and "name" not in action:
            continue  # the file's header: the browser and context the recorder opened
        if not isinstance(action, dict) or "name" not in action:
            raise UnreadableInput(f"{path}:{n}: no action name: not a file playwright codegen wrote (--target jsonl)")
        _check_types(action, f"{path}:{n}")
        _one(demo, action, f"{path}:{n}", pages, last=n == len(lines))
    if not demo.steps:
        raise UnreadableInput(f"{path}: no recorded action in it")
    return demo


# The type of each field of a recorded action this reader uses.
_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "name": (str,),
    "selector": (str,),
    "url": (str,),
    "text": (str,),
    "key": (str,),
    "value": (str,),
    "button": (str,),
    "pageGuid": (str,),
    "checked": (bool,),
    "substring": (bool,),
    "clickCount": (int,),
    "modifiers": (int,),
    "options": (list,),
    "files": (list,),
    "signals": (list,),
}


def _check_types(action: dict[str, Any], where: str) -> None:
    """Refuse a field of another type than the recorder writes: ``checked: "false"`` must not tick
    a box, nor ``url: 5`` open a page called "5"."""
    for name, types in _FIELD_TYPES.items():
        value = action.get(name)
        if value is None:
            continue
        if not isinstance(value, types) or (bool not in types and isinstance(value, bool)):
            raise UnreadableInput(
                f"{where}: {name} must be {' or '.join(t.__name__ for t in types)}, got {type(value).__name__} "
                f"{repr(value)[:40]}: not a file playwright codegen wrote"
            )
    for name in ("options", "files"):
        if any(not isinstance(v, str) for v in action.get(name) or []):
            raise UnreadableInput(f"{where}: {name} must be a list of strings: not a file playwright codegen wrote")


def _on_pages(demo: Demonstration, name: str, guid: str, pages: _Pages, *, last: bool) -> bool:
    """A page opened or closed (True: that was the action), or the action's page made current."""
    if name == "openPage":
        pages.opened(demo, guid)
        return True
    if name == "closePage":
        if guid and pages.order and guid != pages.order[0]:
            pages.switch(demo, guid)
            demo.steps.append(DemoStep("close_page"))
            pages.current = pages.order[0]
        elif not last and demo.steps:
            demo.steps[-1].unexpressed.append("closePage of the main page (the run's page stays open to the end)")
        return True
    pages.switch(demo, guid)
    return False


def _one(demo: Demonstration, action: dict[str, Any], where: str, pages: _Pages, *, last: bool) -> None:
    name = str(action["name"])
    selector = str(action.get("selector") or "")
    if _on_pages(demo, name, str(action.get("pageGuid") or ""), pages, last=last):
        return
    modifiers = [word for bit, word in _MODIFIER_BITS.items() if int(action.get("modifiers") or 0) & bit]
    if name == "click" and modifiers and demo.steps:
        demo.steps[-1].unexpressed.append(f"click on {selector} with {'+'.join(modifiers)} held (not in the format)")
        return
    if name.startswith("assert"):
        demo.add_check(*_assertion(name, selector, action))
        return
    kind = _ACTIONS.get(name)
    if kind is None:
        raise UnreadableInput(f"{where}: a recorded action '{name}' this release does not know")
    step = DemoStep(kind, target=Target([selector]) if selector else None)
    step.value = _value(kind, action)
    if kind == "upload":
        step.files = tuple(Upload(base_name(str(f)), path=str(f)) for f in action.get("files") or [])
    if kind == "select":
        options = tuple(str(o) for o in action.get("options") or [])
        if not options:  # Playwright's selectOption([]): nothing selected
            demo.add_check(None, f"every option of {selector} deselected (not in the format)")
            return
        step.chose(options)
    if kind == "click" and int(action.get("clickCount") or 1) == 2:
        step.kind = "dblclick"
    if kind == "click" and action.get("button") in ("right", "middle"):
        step.button = str(action["button"])
    if kind in ("click", "hover"):
        step.position = calls.position(action)  # a point in the element the recorder kept (a canvas)
    step.new_page = any(s.get("name") == "popup" for s in action.get("signals") or [] if isinstance(s, dict))
    previous = demo.steps[-1] if demo.steps else None
    if (
        previous is not None
        and previous.kind == "click"
        and kind == "fill"
        and previous.target is not None
        and previous.target.selectors == [selector]
    ):
        demo.steps.pop()  # the click only focused the field it then typed into
    demo.steps.append(step)


def _value(kind: str, action: dict[str, Any]) -> str:
    """The URL, text, key or files of an action (a select's options: ``DemoStep.chose``)."""
    if kind == "upload":
        return ", ".join(base_name(str(f)) for f in action.get("files") or [])
    field = {"goto": "url", "fill": "text", "press": "key"}.get(kind)
    return str(action.get(field) or "") if field else ""


def _assertion(name: str, selector: str, action: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    loc = to_loc(selector)
    words = f"{name} {selector}"
    if name == "assertText":
        key = "contains" if action.get("substring") else "equals"
        return {"text": {**loc, key: str(action.get("text") or "")}}, words
    if name == "assertValue":
        return {"value": {**loc, "equals": str(action.get("value") or "")}}, words
    if name == "assertChecked":
        return {"checked" if action.get("checked", True) else "unchecked": loc}, words
    if name == "assertVisible":
        return {"visible": loc}, words
    return None, f"{words} (an ARIA snapshot assertion: not in the format yet)"
