"""Selenium IDE projects (``.side``): one demonstration per test, each command as Selenium IDE's
own runner runs it (``selenese_commands.py``) or said.

The project's ``url`` is where a relative ``open`` goes (side-runtime's ``absolutifyUrl``); the
pages of that site are then written from ``{base_url}`` as every source's are, so ``--base-url``
and ``pytest --base-url`` move the workflows elsewhere. A suite's order and a shared session
(``persistSession``) are said in the summary: each workflow runs on its own browser context.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..demo import Demonstration
from . import side_project
from .selenese import SIDE
from .selenese_commands import CommandReader
from .selenese_flow import Command, TooLong

# The alternatives side-runtime reads, by the key the file holds them under.
_ALTERNATIVES = ("targetFallback", "targets", "fallbackTargets", "valueFallback")


def looks_like(path: Path) -> bool:
    return path.suffix == ".side"


def given(path: Path, head: bytes) -> bool:
    return looks_like(path)


def read(path: Path) -> list[Demonstration]:
    project = side_project.read(path)
    tests = project["tests"]
    by_name: dict[str, list[Command]] = {}
    commands_of: list[list[Command]] = []
    for t, test in enumerate(tests):
        commands = [_command(c, f"tests[{t}].commands[{n}]") for n, c in enumerate(test["commands"])]
        commands_of.append(commands)
        by_name.setdefault(str(test["name"]), commands)
    base = str(project.get("url") or "")
    # A plugin adds commands of its own: named by the path to its code (as side-runner loads it),
    # or by its name (the 3.x extension's {id, name, version}).
    plugins = tuple(
        p.rstrip("/").rsplit("/", 1)[-1] if isinstance(p, str) else str(p.get("name") or p.get("id") or "")
        for p in project.get("plugins") or []
    )
    demos: list[Demonstration] = []
    titles: set[str] = set()
    for test, commands in zip(tests, commands_of, strict=True):
        name = str(test["name"]) or "Untitled"
        title = _unique(name, titles)
        demo = Demonstration(title=title, source=f"{path} (test {name!r})")
        try:
            CommandReader(demo, SIDE, base, by_name, plugins=plugins).play(commands)
        except TooLong as exc:
            demo.refused = str(exc)
        demos.append(demo)
    if demos:
        demos[0].remarks.extend(_suites(project))
    return demos


def _command(c: dict[str, Any], where: str) -> Command:
    return Command(
        name=str(c["command"]),
        target=str(c.get("target") or ""),
        value=str(c.get("value") or ""),
        comment=str(c.get("comment") or ""),
        fallbacks={k: [str(p[0]) for p in c[k]] for k in _ALTERNATIVES if c.get(k)},
        opens_window=bool(c.get("opensWindow")),
        window_name=str(c.get("windowHandleName") or ""),
        where=where,
        # A command commented out (``//click``) is not played, as one marked skip.
        skip=bool(c.get("skip")) or str(c["command"]).startswith("//"),
    )


def _unique(title: str, taken: set[str]) -> str:
    out, n = title, 1
    while out in taken:
        n += 1
        out = f"{title} {n}"
    taken.add(out)
    return out


def _suites(project: dict[str, Any]) -> list[str]:
    """What the project's suites say that the workflows do not: their order, a shared session."""
    names = {str(t.get("id")): str(t["name"]) for t in project["tests"]}
    out = []
    for suite in project.get("suites") or []:
        order = [names.get(i, i) for i in suite.get("tests") or []]
        if not order:
            continue
        line = f"suite {suite.get('name', '')!r} runs {', '.join(repr(n) for n in order)} in that order"
        if suite.get("persistSession"):
            line += " in one browser session (persistSession: each workflow starts its own)"
        out.append(line)
    return out
