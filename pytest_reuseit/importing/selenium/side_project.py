"""A Selenium IDE project (``.side``) as its own tools read it: the shape, checked; older versions
upgraded.

The shape is side-model's ``types.ts`` (SeleniumHQ/selenium-ide, ``packages/side-model``):
``{id, version, name, url, tests: [{id, name, commands: [{id, command, target, targets, value,
comment, opensWindow, windowHandleName, ...}]}], suites: [...]}``. A file comes from anywhere, so
every field the import reads is checked for its type before anything is imported, and a wrong one
is refused in one line naming the file and where (``tests[0].commands[3].target``); keys the
import does not read are ignored (real files carry ``frameLocation``, ``insertBeforeLastCommand``).

Versions 1.0 to 3.0 are read; an older file is upgraded as side-migrate's migrations upgrade it
(``packages/side-migrate/src/migrations``: implicit locators, ``pause``'s argument, scripts'
quoted variables, variable names, ``waitForVisible``, ``win_ser_`` window names, ``storeTitle``'s
argument, ``storeXpathCount``, ``targets`` as ``targetFallback``), so that each command then
means what side-runtime does with it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .. import limits
from ..demo import UnreadableInput

VERSIONS = ("1.0", "1.1", "2.0", "3.0")
MAX_TESTS = 1_000
MAX_SUITES = 1_000
# The lists of alternatives a command may carry (pairs [locator, how it was found]).
FALLBACK_KEYS = ("targets", "targetFallback", "fallbackTargets", "valueFallback", "values")

# side-model's Commands.ts: each command's target and value argument types, as the migrations
# read them ("locator", "script", "variableName"...).
COMMAND_ARGS: dict[str, tuple[str | None, str | None]] = {
    "acceptAlert": (None, None),
    "acceptConfirmation": (None, None),
    "addSelection": ("locator", None),
    "answerPrompt": ("answer", None),
    "assert": ("variableName", "expectedValue"),
    "assertAlert": ("alertText", None),
    "assertChecked": ("locator", None),
    "assertConfirmation": ("alertText", None),
    "assertEditable": ("locator", None),
    "assertElementPresent": ("locator", None),
    "assertElementNotPresent": ("locator", None),
    "assertNotChecked": ("locator", None),
    "assertNotEditable": ("locator", None),
    "assertNotSelectedValue": ("selectLocator", "pattern"),
    "assertNotText": ("locator", "pattern"),
    "assertPrompt": ("alertText", None),
    "assertSelectedValue": ("selectLocator", "pattern"),
    "assertSelectedLabel": ("selectLocator", "pattern"),
    "assertText": ("locator", "pattern"),
    "assertTitle": ("pattern", None),
    "assertValue": ("locator", "pattern"),
    "dismissConfirmation": (None, None),
    "dismissPrompt": (None, None),
    "check": ("locator", None),
    "click": ("locator", None),
    "clickAt": ("locator", "coord"),
    "close": (None, None),
    "debugger": (None, None),
    "do": (None, None),
    "doubleClick": ("locator", None),
    "doubleClickAt": ("locator", "coord"),
    "dragAndDropToObject": ("locatorOfObjectToBeDragged", "locatorOfDragDestinationObject"),
    "echo": ("message", None),
    "editContent": ("locator", "value"),
    "else": (None, None),
    "elseIf": ("conditionalExpression", None),
    "end": (None, None),
    "executeScript": ("script", "variableNameOptional"),
    "executeAsyncScript": ("script", "variableNameOptional"),
    "forEach": ("arrayVariableName", "iteratorVariableName"),
    "if": ("conditionalExpression", None),
    "mouseDown": ("locator", None),
    "mouseDownAt": ("locator", "coord"),
    "mouseMoveAt": ("locator", "coord"),
    "mouseOut": ("locator", None),
    "mouseOver": ("locator", None),
    "mouseUp": ("locator", None),
    "mouseUpAt": ("locator", "coord"),
    "open": ("url", None),
    "pause": ("waitTime", None),
    "removeSelection": ("locator", "optionLocator"),
    "repeatIf": ("conditionalExpression", "loopLimit"),
    "run": ("testCase", None),
    "runScript": ("script", None),
    "select": ("selectLocator", "optionLocator"),
    "selectFrame": ("locator", None),
    "selectWindow": ("handle", None),
    "sendKeys": ("locator", "keySequence"),
    "setSpeed": ("waitTime", None),
    "setWindowSize": ("resolution", None),
    "store": ("text", "variableName"),
    "storeAttribute": ("attributeLocator", "variableName"),
    "storeElementCount": ("locator", "variableName"),
    "storeJson": ("json", "variableName"),
    "storeText": ("locator", "variableName"),
    "storeTitle": ("variableName", None),
    "storeValue": ("locator", "variableName"),
    "storeWindowHandle": ("handle", None),
    "times": ("times", "loopLimit"),
    "type": ("locator", "value"),
    "uncheck": ("locator", None),
    "verify": ("variableName", "expectedValue"),
    "verifyChecked": ("locator", None),
    "verifyEditable": ("locator", None),
    "verifyElementPresent": ("locator", None),
    "verifyElementNotPresent": ("locator", None),
    "verifyNotChecked": ("locator", None),
    "verifyNotEditable": ("locator", None),
    "verifyNotSelectedValue": ("selectLocator", "optionLocator"),
    "verifyNotText": ("locator", "text"),
    "verifySelectedLabel": ("selectLocator", "pattern"),
    "verifySelectedValue": ("selectLocator", "optionLocator"),
    "verifyText": ("locator", "text"),
    "verifyTitle": ("text", None),
    "verifyValue": ("locator", "pattern"),
    "waitForElementEditable": ("locator", "waitTime"),
    "waitForElementNotEditable": ("locator", "waitTime"),
    "waitForElementNotPresent": ("locator", "waitTime"),
    "waitForElementNotVisible": ("locator", "waitTime"),
    "waitForElementPresent": ("locator", "waitTime"),
    "waitForElementVisible": ("locator", "waitTime"),
    "waitForText": ("locator", "text"),
    "while": ("conditionalExpression", "loopLimit"),
}


def looks_like(data: Any) -> bool:
    return (
        isinstance(data, dict) and isinstance(data.get("tests"), list) and "commands" in str(data.get("tests"))[:4096]
    )


def read(path: Path) -> dict[str, Any]:
    """The project in ``path``, its shape checked and its version upgraded to 3.0."""
    text = limits.read_text(path)
    try:
        data = limits.loads(text, str(path))
    except ValueError as exc:
        raise UnreadableInput(f"{path}: not JSON ({exc.__class__.__name__}): not a Selenium IDE project") from None
    if not isinstance(data, dict) or not isinstance(data.get("tests"), list):
        raise UnreadableInput(f"{path}: JSON without a list of tests: not a Selenium IDE project")
    check_project(data, path)
    return upgrade(data)


# ----------------------------------------------------------------------------- the shape


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _wrong(path: Path, where: str, what: str, value: Any) -> UnreadableInput:
    return UnreadableInput(f"{path}: {where} must be {what}, got {type(value).__name__} {_short(value)}")


def _string(path: Path, data: dict[str, Any], key: str, where: str, *, required: bool = False) -> None:
    if key not in data or data[key] is None:
        if required:
            raise UnreadableInput(f"{path}: {where}.{key} is missing".replace(": .", ": "))
        return
    if not isinstance(data[key], str):
        raise _wrong(path, f"{where}.{key}".lstrip("."), "a string", data[key])


def _pairs(path: Path, value: Any, where: str) -> None:
    """A list of alternatives: ``[[locator, how], ...]`` (strings), at most MAX_SELECTORS."""
    if not isinstance(value, list):
        raise _wrong(path, where, "a list of [locator, strategy] pairs", value)
    limits.check_count(path, value, limits.MAX_SELECTORS, f"alternatives in {where}")
    for n, pair in enumerate(value):
        if not (isinstance(pair, list) and 1 <= len(pair) <= 2 and all(isinstance(p, str) for p in pair)):
            raise _wrong(path, f"{where}[{n}]", "a [locator, strategy] pair of strings", pair)


def check_project(data: dict[str, Any], path: Path) -> None:
    """Refuse, in one line, a project whose fields are not of the types side-model writes."""
    version = data.get("version", "1.0")
    if not isinstance(version, str):
        raise _wrong(path, "version", "a string", version)
    if version not in VERSIONS:
        newer = _number(version) > _number(VERSIONS[-1])
        words = "newer than this release reads" if newer else "not one Selenium IDE wrote"
        raise UnreadableInput(f"{path}: a Selenium IDE project of version {version!r}, {words} (it reads 1.0 to 3.0)")
    for key in ("id", "name", "url"):
        _string(path, data, key, "")
    # Selenium IDE 4 names a plugin by the path to its code; the browser extension (3.x) by
    # {id, name, version}.
    plugins = data.get("plugins", [])
    if not isinstance(plugins, list):
        raise _wrong(path, "plugins", "a list", plugins)
    limits.check_count(path, plugins, MAX_SUITES, "plugins in one project")
    for n, plugin in enumerate(plugins):
        if isinstance(plugin, dict):
            _string(path, plugin, "name", f"plugins[{n}]")
            _string(path, plugin, "id", f"plugins[{n}]")
        elif not isinstance(plugin, str):
            raise _wrong(path, f"plugins[{n}]", "a path or a mapping", plugin)
    limits.check_count(path, data["tests"], MAX_TESTS, "tests in one project")
    for t, test in enumerate(data["tests"]):
        where = f"tests[{t}]"
        if not isinstance(test, dict):
            raise _wrong(path, where, "a mapping", test)
        _string(path, test, "id", where)
        _string(path, test, "name", where, required=True)
        commands = test.get("commands")
        if not isinstance(commands, list):
            raise _wrong(path, f"{where}.commands", "a list", commands)
        limits.check_count(path, commands, limits.MAX_STEPS, f"commands in {where}")
        for c, command in enumerate(commands):
            _check_command(path, command, f"{where}.commands[{c}]")
    _check_suites(data, path)


def _check_suites(data: dict[str, Any], path: Path) -> None:
    suites = data.get("suites", [])
    if not isinstance(suites, list):
        raise _wrong(path, "suites", "a list", suites)
    limits.check_count(path, suites, MAX_SUITES, "suites in one project")
    for s, suite in enumerate(suites):
        where = f"suites[{s}]"
        if not isinstance(suite, dict):
            raise _wrong(path, where, "a mapping", suite)
        _string(path, suite, "name", where)
        if not isinstance(suite.get("tests", []), list) or not all(isinstance(i, str) for i in suite.get("tests", [])):
            raise _wrong(path, f"{where}.tests", "a list of test ids", suite.get("tests"))
        if not isinstance(suite.get("persistSession", False), bool):
            raise _wrong(path, f"{where}.persistSession", "true or false", suite.get("persistSession"))


def _check_command(path: Path, command: Any, where: str) -> None:
    if not isinstance(command, dict):
        raise _wrong(path, where, "a mapping", command)
    _string(path, command, "command", where, required=True)
    for key in ("id", "target", "value", "comment", "windowHandleName"):
        _string(path, command, key, where)
    for key in FALLBACK_KEYS:
        if command.get(key) is not None:
            _pairs(path, command[key], f"{where}.{key}")
    for key in ("opensWindow", "skip", "isBreakpoint"):
        if command.get(key) is not None and not isinstance(command[key], bool):
            raise _wrong(path, f"{where}.{key}", "true or false", command[key])
    timeout = command.get("windowTimeout")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))):
        raise _wrong(path, f"{where}.windowTimeout", "a number of milliseconds", timeout)


def _number(version: str) -> float:
    try:
        return float(version)
    except ValueError:
        return 0.0


# ----------------------------------------------------------------------------- side-migrate


def upgrade(project: dict[str, Any]) -> dict[str, Any]:
    """The project as side-migrate upgrades it to 3.0 (each migration of a version above the
    file's, in order); the file's own data is not changed."""
    version = _number(str(project.get("version", "1.0")))
    tests = []
    for test in project["tests"]:
        commands = [dict(c) for c in test["commands"]]
        if version < 1.1:
            commands = [_v1_1(c) for c in commands]
        if version < 2.0:
            commands = _select_window(commands)
        if version < 3.0:
            commands = [_v3_0(c) for c in commands]
        tests.append({**test, "commands": commands})
    return {**project, "tests": tests, "version": "3.0"}


def _v1_1(c: dict[str, Any]) -> dict[str, Any]:
    """pause (its time moved to the target), implicit locators, scripts' quoted variables,
    variable names without ``${}``, waitForVisible/waitForEditable."""
    if c["command"] == "pause" and not c.get("target"):
        c = {**c, "target": c.get("value"), "value": ""}
    args = COMMAND_ARGS.get(c["command"])
    if args is not None:
        for key, kind in zip(("target", "value"), args, strict=True):
            if not isinstance(c.get(key), str):
                continue
            if kind == "locator":
                c[key] = _explicit_locator(c[key])
            elif kind in ("script", "conditionalExpression") and key == "target":
                c[key] = re.sub(r"(['`\"])\$\{(\w+)\}\1", r"${\2}", c[key])
            elif kind in ("variableName", "variableNameOptional"):
                c[key] = re.sub(r"\$\{(\w+)\}", r"\1", c[key])
        if c.get("targets"):
            c["targets"] = [[_explicit_locator(p[0]), *p[1:]] for p in c["targets"]]
    if c["command"] in ("waitForVisible", "waitForEditable"):
        c["command"] = c["command"].replace("waitFor", "waitForElement")
    return c


def _explicit_locator(locator: str) -> str:
    if re.match(r"^([A-Za-z]+)=.+", locator, re.S):
        return locator
    return f"{'xpath' if '//' in locator else 'id'}={locator}"


def _select_window(commands: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Windows named ``win_ser_N`` become handles stored by the command before the first switch
    to each (``opensWindow``); ``win_ser_local`` is the first window (``${root}``, stored after the
    first command); ``close`` takes no target."""
    names: dict[str, str] = {}
    root = False
    for i, c in enumerate(commands):
        target = c.get("target") or ""
        if c["command"] == "selectWindow":
            if target == "win_ser_local":
                root = True
                commands[i] = {**c, "target": "handle=${root}"}
            elif target.startswith("win_ser_"):
                if target not in names:
                    # side-migrate draws a random name; any name the project does not use does.
                    names[target] = f"win_ser_{len(names) + 1}_handle"
                    if i > 0:
                        commands[i - 1] = {
                            **commands[i - 1],
                            "opensWindow": True,
                            "windowHandleName": names[target],
                            "windowTimeout": 2000,
                        }
                commands[i] = {**c, "target": f"handle=${{{names[target]}}}"}
        elif c["command"] == "close":
            commands[i] = {**c, "target": ""}
    if root:
        commands.insert(1, {"command": "storeWindowHandle", "id": "", "target": "root", "value": ""})
    return commands


def _v3_0(c: dict[str, Any]) -> dict[str, Any]:
    """storeTitle's variable moved to the target; storeXpathCount is storeElementCount; a
    command's targets are its targetFallback."""
    if c["command"] == "storeTitle":
        c = {**c, "target": c.get("value"), "value": ""}
    if c["command"] == "storeXpathCount":
        target = c.get("target") or ""
        c = {**c, "command": "storeElementCount", "target": f"xpath={target}" if target.startswith("//") else target}
    if "targets" in c:
        c = {**c, "targetFallback": c["targets"]}
        del c["targets"]
    return c
