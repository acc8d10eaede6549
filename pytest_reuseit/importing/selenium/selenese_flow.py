"""A Selenium IDE or Katalon Recorder test's commands in the order its runner plays them.

Selenium IDE's runner plays a test as a tree (SeleniumHQ/selenium-ide, ``packages/side-runtime/
src/playback-tree``): ``if``/``elseIf``/``else``/``end``, ``while``/``end``, ``times``/``end``,
``forEach``/``end``, ``do``/``repeatIf``; a command whose name starts with ``//`` or marked
``skip`` is not played; ``run`` plays another test of the project in place, with the same
variables, window and frame. Katalon Recorder's blocks (katalon-studio/katalon-recorder,
``panel/js/background/playback/service/actions/play/play-actions.js``) are ``if``/``endIf``,
``while``/``endWhile`` and ``loadVars``/``endLoadVars`` (a data file's rows), and ``label``,
``gotoIf``, ``gotoLabel`` jump anywhere in the test.

The format has no conditional steps, no loops and no jumps, so a block is imported only where its
meaning is known when importing: ``times`` with a count written in the test (its body repeated, as
the runner repeats it). Every command of any other block is said, with the reason, and so is every
command of a test that jumps; ``run`` is the other test's commands, imported in place.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..values import is_secret_field
from .selenese import NotImported

# Each dialect's blocks: the command opening one -> the one closing it; commands inside an ``if``.
SIDE_BLOCKS = {"if": "end", "while": "end", "times": "end", "forEach": "end", "do": "repeatIf"}
KATALON_BLOCKS = {"if": "endIf", "while": "endWhile", "loadVars": "endLoadVars"}
INNER = ("else", "elseIf")
JUMPS = ("label", "gotoIf", "gotoLabel")
# Commands whose value is typed into their element.
_TYPING = ("type", "sendKeys", "typeKeys", "editContent", "answerPrompt", "answerOnNextPrompt")
_WHY = {
    "if": "the format has no conditional steps",
    "while": "the format has no loops",
    "do": "the format has no loops",
    "forEach": "the format has no loops",
    "loadVars": "a loop over a data file's rows: the format has no loops",
}
# A body repeated more often than this is said: it would be a workflow of thousands of steps.
MAX_UNROLLED = 200
# ``run`` inside ``run``: a test that runs itself would never end.
MAX_RUN_DEPTH = 8
# Commands played for one test, ``run`` and ``times`` unrolled: a few tests that run each other
# many times would otherwise be millions of steps read before the step limit refuses them.
MAX_PLAYED = 2_000


class TooLong(Exception):
    """A test whose commands, played as its runner plays them, are more than MAX_PLAYED."""


@dataclass
class Command:
    """One command as the file holds it (target and value before any interpolation)."""

    name: str
    target: str = ""
    value: str = ""
    comment: str = ""
    # Alternatives the file keeps, by key (targetFallback, targets, fallbackTargets, valueFallback).
    fallbacks: dict[str, list[str]] = field(default_factory=dict)
    opens_window: bool = False
    window_name: str = ""
    where: str = ""  # in the file: "tests[0].commands[3]"
    skip: bool = False

    def text(self) -> str:
        """The command as a person reads it in the recorder: name, target, value; what it types
        into a field named like a password or a token is not repeated (a comment is no place for it)."""
        value = self.value
        if self.name in _TYPING and value and is_secret_field({}, [self.target]):
            value = "***"
        parts = [p if len(p) <= 120 else p[:117] + "..." for p in (self.name, self.target, value) if p]
        return " ".join(parts)

    @property
    def skipped(self) -> bool:
        return self.skip or not self.name.strip()


class Flow:
    """Plays ``commands`` in order through ``one`` (a command) and ``say`` (a command not
    imported, with the reason); ``count`` fills a ``times`` count, raising NotImported when it is
    not known when importing."""

    def __init__(
        self,
        one: Callable[[Command], None],
        say: Callable[[str], None],
        count: Callable[[Command], int],
        tests: dict[str, list[Command]],
        test_name: Callable[[Command], str],
        blocks: dict[str, str],
        forget: Callable[[Command], None] = lambda c: None,
    ) -> None:
        self.blocks = blocks
        self.forget = forget
        self.closers = set(blocks.values()) | set(INNER)
        self.one = one
        self.say = say
        self.count = count
        self.tests = tests
        self.test_name = test_name
        self.running: list[str] = []
        self.played = 0

    def play(self, commands: list[Command]) -> None:
        if self.blocks is KATALON_BLOCKS and any(c.name in JUMPS for c in commands):
            self._said(commands, "in a test that jumps with label and goto: the format has no jumps")
            return
        i = 0
        while i < len(commands):
            c = commands[i]
            i += 1
            if c.skipped:
                continue
            self.played += 1
            if self.played > MAX_PLAYED:
                raise TooLong(f"more than {MAX_PLAYED} commands played (run and times repeat them), the limit")
            if c.name in self.blocks:
                end = block_end(commands, i - 1, self.blocks)
                if end is None:
                    self._said(
                        commands[i - 1 :], f"an '{c.name}' block with no end: the recorder does not run the test"
                    )
                    return
                self._block(commands[i - 1 : end + 1])
                i = end + 1
            elif c.name in self.closers:
                self.say(f"{c.text()} (outside any block: the recorder does not run the test)")
            elif c.name == "run":
                self._run(c)
            else:
                self.one(c)

    def _block(self, block: list[Command]) -> None:
        opener, body = block[0], block[1:-1]
        if opener.name == "times":
            try:
                n = self.count(opener)
                if any(c.name in self.blocks or c.name in self.closers for c in body if not c.skipped):
                    raise NotImported("a block inside it")
                if n * len(body) > MAX_UNROLLED:
                    raise NotImported(f"{n} times {len(body)} commands, over {MAX_UNROLLED}")
            except NotImported as exc:
                self._said(block, f"in 'times {opener.target}': {exc}")
                return
            for _ in range(n):
                self.play(body)
            return
        self._said(block, f"in the '{opener.text()}' block: {_WHY[opener.name]}")

    def _said(self, block: list[Command], why: str) -> None:
        for c in block:
            if not c.skipped:
                self.say(f"{c.text()} ({why})")
                self.forget(c)

    def _run(self, c: Command) -> None:
        try:
            name = self.test_name(c)
        except NotImported as exc:
            self.say(f"{c.text()} ({exc})")
            return
        if name not in self.tests:
            self.say(f"{c.text()} (no test of that name in the project: Selenium IDE stops there)")
            return
        if name in self.running or len(self.running) >= MAX_RUN_DEPTH:
            self.say(f"{c.text()} (runs itself: Selenium IDE would never end)")
            return
        self.running.append(name)
        try:
            self.play(self.tests[name])
        finally:
            self.running.pop()


def block_end(commands: list[Command], start: int, blocks: dict[str, str]) -> int | None:
    """The index of the command closing the block opened at ``start``, pairing openers and
    closers as the runner does; None when it is never closed (or closed by the wrong one)."""
    stack: list[str] = []
    closers = set(blocks.values())
    for i in range(start, len(commands)):
        c = commands[i]
        if c.skipped:
            continue
        if c.name in blocks:
            stack.append(c.name)
        elif c.name in closers and stack and blocks[stack[-1]] == c.name:
            stack.pop()
        elif c.name in closers:
            return None
        if not stack:
            return i
    return None
