"""Chrome DevTools Recorder exports (the ``@puppeteer/replay`` schema) as demonstrations.

A recording is ``{"title", "steps": [...]}``; each step has a ``type``. Every selector of a
step is kept (``aria/``, CSS, ``xpath/``, ``pierce/``, ``text/``), in the recording's order:
the first that works is the step's, the others its fallbacks. Low-level events are folded as a
person writes them: a ``keyDown``/``keyUp`` pair is one ``press``, a click that only focused the
field typed into next is dropped; ``setViewport`` and ``scroll`` are the browser's, not the user's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from . import limits
from .demo import Demonstration, DemoStep, Target, UnreadableInput
from .selectors import from_puppeteer, to_loc

# Every step type of the schema (Schema.ts StepType), and what each becomes.
_ACTIONS = {"navigate": "goto", "click": "click", "doubleClick": "dblclick", "change": "fill", "hover": "hover"}
_CHECKS = {"waitForElement", "waitForExpression"}
_SKIPPED = {"setViewport", "scroll", "keyUp", "close", "emulateNetworkConditions"}
_KNOWN = {*_ACTIONS, *_CHECKS, *_SKIPPED, "keyDown", "customStep"}


def looks_like(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("steps"), list) and "title" in data


def read(path: Path) -> Demonstration:
    text = limits.read_text(path)
    try:
        data = limits.loads(text, str(path))
    except ValueError as exc:
        raise UnreadableInput(f"{path}: not JSON ({exc.__class__.__name__}): not a Chrome recording") from None
    if not looks_like(data):
        raise UnreadableInput(f"{path}: JSON without a title and a list of steps: not a Chrome DevTools recording")
    limits.check_count(path, data["steps"], limits.MAX_STEPS, "steps in one recording")
    demo = Demonstration(title=str(data.get("title") or path.stem), source=str(path))
    for n, step in enumerate(data["steps"]):
        if not isinstance(step, dict) or step.get("type") not in _KNOWN:
            kind = step.get("type") if isinstance(step, dict) else type(step).__name__
            raise UnreadableInput(f"{path}: steps[{n}] has the type {kind!r}, which this release does not know")
        limits.check_count(path, step.get("selectors"), limits.MAX_SELECTORS, f"selectors in steps[{n}]")
        _one(demo, step, f"{path}: steps[{n}]")
    if not demo.steps:
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
    inside = "".join(f"iframe >> nth={int(i)} >> internal:control=enter-frame >> " for i in step.get("frame") or [])
    return Target([inside + s for s in selectors])


def _not_an_action(demo: Demonstration, kind: str, step: dict[str, Any]) -> bool:
    """Steps that are no element's action: skipped, a key, or a check. True when ``step`` was one."""
    if kind in _SKIPPED:
        return True
    if kind == "customStep":
        demo.add_check(None, f"customStep {step.get('name')!r} (a Puppeteer extension: not in the format)")
    elif kind == "keyDown":
        demo.steps.append(DemoStep("press", value=str(step.get("key") or "")))
    elif kind == "waitForElement":
        demo.add_check(*_wait_for_element(step))
    elif kind == "waitForExpression":
        demo.add_check({"js": str(step.get("expression") or "true")}, "waitForExpression")
    else:
        return False
    return True


def _one(demo: Demonstration, step: dict[str, Any], where: str) -> None:
    kind = str(step["type"])
    if _not_an_action(demo, kind, step):
        return
    target = _target(step, field=kind == "change")
    if kind != "navigate" and target is None:
        raise UnreadableInput(f"{where}: a {kind} step with no selector this release can use")
    demo_step = DemoStep(_ACTIONS[kind], target=target)
    demo_step.origin = json.dumps(step.get("selectors"))
    if kind == "navigate":
        demo_step.value = str(step.get("url") or "")
    elif kind == "change":
        demo_step.value = str(step.get("value") or "")
        previous = demo.steps[-1] if demo.steps else None
        if previous is not None and previous.kind == "click" and previous.origin == demo_step.origin:
            demo.steps.pop()  # that click only focused this field
    demo.steps.append(demo_step)
    _asserted_events(demo, step)


def _asserted_events(demo: Demonstration, step: dict[str, Any]) -> None:
    for event in step.get("assertedEvents") or []:
        if isinstance(event, dict) and event.get("type") == "navigation":
            if event.get("url"):
                demo.add_check({"url": {"equals": str(event["url"])}}, "assertedEvents navigation url")
            if event.get("title"):
                demo.add_check({"title": {"equals": str(event["title"])}}, "assertedEvents navigation title")


def _wait_for_element(step: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    target = _target(step, field=False)
    words = f"waitForElement {step.get('selectors')}"
    if target is None:
        return None, words
    loc = to_loc(target.selectors[0])
    operator, count = str(step.get("operator") or ">="), int(step.get("count", 1))
    if step.get("attributes") or step.get("properties"):
        return None, f"{words} (its attributes and properties: not in the format yet)"
    if step.get("visible") is False:
        return {"hidden": loc}, words
    if operator == ">=" and count == 1:
        return {"visible": loc}, words
    bound = {"==": "equals", ">=": "min", "<=": "max"}.get(operator, "equals")
    return {"count": {**loc, bound: count}}, words
