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

from . import limits
from .demo import Demonstration, DemoStep, Target, UnreadableInput
from .selectors import to_loc

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
_IGNORED = {"openPage", "closePage"}


def looks_like(path: Path) -> bool:
    """A ``.jsonl`` file whose first line is one of the recorder's actions."""
    try:  # its first lines, from at most the file's first 64 KB
        lines = [json.loads(line) for line in limits.peek(path).splitlines()[:2]]
    except (ValueError, RecursionError):
        return False
    return any(isinstance(x, dict) and "name" in x and "signals" in x for x in lines)


def read(path: Path) -> Demonstration:
    demo = Demonstration(title=path.stem.replace("_", " ").replace("-", " "), source=str(path))
    lines = limits.read_text(path).splitlines()
    limits.check_count(path, lines, limits.MAX_STEPS * 2, "lines in one codegen file")
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
        _one(demo, action, f"{path}:{n}")
    if not demo.steps:
        raise UnreadableInput(f"{path}: no recorded action in it")
    return demo


def _one(demo: Demonstration, action: dict[str, Any], where: str) -> None:
    name = str(action["name"])
    selector = str(action.get("selector") or "")
    if name in _IGNORED:
        return
    if name.startswith("assert"):
        demo.add_check(*_assertion(name, selector, action))
        return
    kind = _ACTIONS.get(name)
    if kind is None:
        raise UnreadableInput(f"{where}: a recorded action '{name}' this release does not know")
    step = DemoStep(kind, target=Target([selector]) if selector else None)
    if kind == "goto":
        step.value = str(action.get("url") or "")
    elif kind == "fill":
        step.value = str(action.get("text") or "")
    elif kind == "press":
        step.value = str(action.get("key") or "")
    elif kind == "select":
        step.value = ", ".join(str(o) for o in action.get("options") or [])
    elif kind == "upload":
        step.value = ", ".join(Path(str(f)).name for f in action.get("files") or [])
    if kind == "click" and int(action.get("clickCount") or 1) == 2:
        step.kind = "dblclick"
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
