"""Katalon Recorder test suites (its HTML file): one demonstration per test case.

The file is the HTML Katalon Recorder saves and reads (katalon-studio/katalon-recorder,
``panel/js/UI/services/helper-service/parser.js``: ``marshall`` and ``unmarshall``): one
``<table>`` per test case, its name in ``<thead>``, one ``<tr>`` per command with three cells:
the command, the target (its text, then a ``<datalist>`` of the alternatives the recorder kept,
one ``<option>`` each) and the value. The parser reads each cell's text (the entities it holds
are characters: ``ii&lt;5`` is ``ii<5``). The same table without a ``<datalist>`` is a test case
Selenium IDE 1 wrote; its ``<link rel="selenium.base">`` is where relative addresses go.

Each command means what Katalon Recorder's Selenium Core does with it (``selenese_commands.py``):
a ``type`` sets the value, an expected text is a pattern, a confirmation is answered OK and a
prompt with nothing unless the test chose otherwise (``content/selenium-browserbot.js``: the
workflow's ``dialog`` setting).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from .. import limits
from ..demo import Demonstration, UnreadableInput
from .selenese import KATALON
from .selenese_commands import CommandReader
from .selenese_flow import Command, TooLong
from .side_project import MAX_TESTS

# What marks a test case's table: its name's cell spans the three columns.
_SIGNATURE = re.compile(r"<td[^>]*colspan=\"?3\"?[^>]*>", re.I)
# Selenium Core's answers to dialogs nobody chose an answer for: OK, and nothing typed.
_DIALOGS = {"accept": True, "text": ""}


def looks_like(path: Path) -> bool:
    start = limits.peek(path)
    return "<table" in start.lower() and bool(_SIGNATURE.search(start)) and "<tbody" in start.lower()


def in_folder(path: Path) -> bool:
    return path.suffix in (".html", ".htm") and looks_like(path)


def given(path: Path, head: bytes) -> bool:
    return path.suffix in (".html", ".htm")


class _Tables(HTMLParser):
    """The test cases of the file: (name, [(command, target, alternatives, value)])."""

    def __init__(self, path: Path) -> None:
        super().__init__(convert_charrefs=True)
        self.path = path
        self.base = ""
        self.cases: list[tuple[str, list[tuple[str, str, list[str], str]]]] = []
        self._in: list[str] = []  # open elements of interest: table, thead, tbody, tr, td, datalist, option
        self._cells: list[list[str]] = []  # per cell of the row: its text before the datalist, then each option
        self._name: list[str] = []
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "link" and dict(attrs).get("rel") == "selenium.base":
            self.base = dict(attrs).get("href") or ""
        if tag == "table":
            if len(self.cases) >= MAX_TESTS:
                raise UnreadableInput(f"{self.path}: more than {MAX_TESTS} test cases in one file, the limit")
            self.cases.append(("", []))
        if tag in ("thead", "tbody", "tr", "td", "datalist", "option") and self.cases:
            self._in.append(tag)
        if tag == "td" and "tbody" in self._in:
            self._cells.append([""])
        if tag == "td" and "thead" in self._in:
            self._name = []
        if tag == "option" and "datalist" in self._in and self._cells:
            if len(self._cells[-1]) > limits.MAX_SELECTORS:
                raise UnreadableInput(f"{self.path}: a target with more than {limits.MAX_SELECTORS} alternatives")
            self._cells[-1].append("")

    def handle_endtag(self, tag: str) -> None:
        if tag not in ("thead", "tbody", "tr", "td", "datalist", "option") or tag not in self._in:
            return
        while self._in and self._in.pop() != tag:
            pass
        if tag == "tr" and "tbody" in self._in and self._cells:
            self._row()
        if tag == "td" and "thead" in self._in and self.cases and not self.cases[-1][0]:
            self.cases[-1] = ("".join(self._name).strip(), self.cases[-1][1])

    def handle_data(self, data: str) -> None:
        if not self.cases or not self._in:
            return
        if "thead" in self._in and self._in[-1] == "td":
            self._name.append(data)
        elif "tbody" in self._in and self._cells:
            cell = self._cells[-1]
            if self._in[-1] == "option":
                cell[-1] += data
            elif self._in[-1] == "td" and len(cell) == 1:
                cell[0] += data  # the target's own text: what comes before its datalist

    def _row(self) -> None:
        cells, self._cells = self._cells, []
        if len(cells) < 3:
            return
        rows = self.cases[-1][1]
        if len(rows) >= limits.MAX_STEPS:
            raise UnreadableInput(f"{self.path}: a test case of more than {limits.MAX_STEPS} commands, the limit")
        rows.append((cells[0][0].strip(), cells[1][0], cells[1][1:], cells[2][0]))


def read(path: Path) -> list[Demonstration]:
    text = limits.read_text(path)
    if not _SIGNATURE.search(text):
        raise UnreadableInput(f"{path}: no test case table in it: not a Katalon Recorder test suite")
    tables = _Tables(path)
    tables.feed(text)
    tables.close()
    cases = [c for c in tables.cases if c[1]]
    if not cases:
        raise UnreadableInput(f"{path}: no command in its tables: not a Katalon Recorder test suite")
    by_name: dict[str, list[Command]] = {}
    demos: list[tuple[Demonstration, list[Command]]] = []
    taken: set[str] = set()
    for t, (name, rows) in enumerate(cases):
        commands = [
            Command(name=c, target=target, value=value, fallbacks={"targets": alts} if alts else {}, where=f"{t}:{n}")
            for n, (c, target, alts, value) in enumerate(rows)
        ]
        title = name or f"{path.stem} {t + 1}"
        n = 1
        while title in taken:
            n += 1
            title = f"{name or path.stem} {n}"
        taken.add(title)
        by_name.setdefault(name, commands)
        demos.append((Demonstration(title=title, source=f"{path} (test case {title!r})"), commands))
    for demo, commands in demos:
        demo.settings["dialog"] = dict(_DIALOGS)
        try:
            CommandReader(demo, KATALON, "", by_name, start=tables.base).play(commands)
        except TooLong as exc:
            demo.refused = str(exc)
    return [demo for demo, _ in demos]
