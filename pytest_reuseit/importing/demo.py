"""What every source reads into: a demonstration, as a neutral list of steps.

A Playwright trace, a Chrome DevTools recording and a file ``playwright codegen`` wrote each have
a reader of their own (``playwright/``, ``chrome/``, ``selenium/``, listed in ``registry.py``); they all produce
:class:`Demonstration`, and everything after (locators, secrets, derivation, the file written)
knows only this. A target is a list of Playwright selector strings, the source's own first, then
its alternatives (a Chrome recording's other selectors); the page decides later which form a
person would write (``locate.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import ReuseitError


class UnreadableInput(ReuseitError):
    """An input that cannot be read: one line naming it, exit 2, nothing written for it."""


@dataclass
class Target:
    """An element as the source found it: Playwright selectors, best first (through the frames
    it is in: ``... >> internal:control=enter-frame >> ...``)."""

    selectors: list[str]
    # Read from the page where the source kept it (a trace's DOM): tag, type, name, id, label.
    facts: dict[str, str] = field(default_factory=dict)
    # The accessible names a recorder computed for the element (Chrome's ``aria/NAME``, with no
    # role), tried on the live page as the element's role and that name (``locate.recorded_name``).
    names: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Upload:
    """A file a step uploads, as the source names it: its name, and where its bytes are: the path
    on the machine the source was made on, or the bytes themselves (base64, as a trace keeps a
    buffer the test gave)."""

    name: str
    path: str = ""
    base64: str = ""


@dataclass
class DemoStep:
    kind: str
    target: Target | None = None
    value: str = ""  # the URL, typed text, key, option or file
    # A drag's other element: the one it is dropped on (``target`` is the one dragged).
    to: Target | None = None
    # DOM checks (``expect`` mappings) the source asserted after this step, in order.
    checks: list[dict[str, Any]] = field(default_factory=list)
    # The source's assertions the format cannot say: written as comments, counted.
    unexpressed: list[str] = field(default_factory=list)
    # Per check: (the source's selector, the DOM when it was asserted, its URL), or None.
    check_pages: list[tuple[str, str, str] | None] = field(default_factory=list)
    # Per check (by its index), the source's selectors of its element when no DOM was kept, its
    # own first, then the alternatives its runner tries: a person's locator is looked for on the
    # live page once the check held, and the alternatives that find the same element are kept
    # beside it (derive.Resolver).
    check_sources: dict[int, list[str]] = field(default_factory=dict)
    new_page: bool = False
    # The DOM before the action, where the source kept it (a trace): HTML, for locate.py.
    page_html: str = ""
    page_url: str = ""
    # The source's own words for the element (a recording's selectors), to tell the same one again.
    origin: str = ""
    # A click's mouse button other than the left one (``right``, ``middle``).
    button: str = ""
    # The files an upload sets, as the source names them (``value`` words their names).
    files: tuple[Upload, ...] = ()
    # Where in its element a click, double-click or hover was made (x, y from its top-left
    # corner: a canvas grid's cell); None: its middle.
    position: tuple[float, float] | None = None
    # Where the mouse goes, from the element's middle (x, y pixels), when not the middle itself.
    at: tuple[int, int] | None = None
    # The options a select chose when the source chose several (a list box's; ``value`` words them).
    options: tuple[str, ...] = ()
    # The action in words, when the step's kind does not say it (a scroll done by a script).
    words: str = ""
    # Seconds the source let this step's element, and its own checks, take (0: the workflow's).
    timeout: float = 0.0
    check_timeout: float = 0.0
    # How the op answers the dialogs it raises (the format's ``dialog:``): accept, dismiss or
    # {accept: true, text: ...}; None: the workflow's default.
    dialog: Any = None
    # A value read from the page for later steps (kind ``extract``): {"into": name, "read": "text" |
    # "value" | "js", "attribute": name}; the element is ``target``, a script is ``value``.
    extract: dict[str, str] | None = None
    # Imported, but not quite as the source runs it: written as comments, counted.
    caveats: list[str] = field(default_factory=list)
    # The source's own words about the step (a Selenium IDE command's comment): comments, not counted.
    remarks: list[str] = field(default_factory=list)

    def chose(self, options: tuple[str, ...]) -> None:
        """A select's options, worded in ``value``; kept as ``options`` only when there are
        several (a list box), where one is written as the value it is."""
        self.value = ", ".join(options)
        self.options = options if len(options) > 1 else ()


@dataclass
class Demonstration:
    """One test or recording: its title, where it came from, its steps."""

    title: str
    source: str  # the file (and the test inside it), as the summary names it
    steps: list[DemoStep] = field(default_factory=list)
    # Why this is no demonstration (the test failed): the import skips it with this line.
    failed: str = ""
    # Why this test cannot be read (past a limit, found while reading it): its line, exit 2; the
    # other tests of the same file are still imported.
    refused: str = ""
    # Resources a trace kept (URL -> bytes), so its pages can be shown again without the site.
    resources: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    # The workflow's browser options the source set before its first step (a recording's viewport),
    # and its settings (a recording's own timeout).
    browser: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    # What the summary says about the source as a whole (a suite's order, a shared session).
    remarks: list[str] = field(default_factory=list)
    # What the source did that was not imported, with no step to write it beside (a test whose
    # every command was said): counted in the line that refuses it.
    unplaced: list[str] = field(default_factory=list)
    # Other pages and frames the source was on (a recording's targets): their hosts are the
    # workflow's too (allowed_domains), and the import's own runs may open them.
    visited: list[str] = field(default_factory=list)

    @property
    def start_url(self) -> str:
        return next((s.value for s in self.steps if s.kind == "goto"), "")

    def checks_count(self) -> int:
        return sum(len(s.checks) for s in self.steps)

    def unexpressed_count(self) -> int:
        return sum(len(s.unexpressed) for s in self.steps) + len(self.unplaced)

    def extracted(self) -> set[str]:
        """The placeholders its steps store (``extract``): no parameter may take their names."""
        return {s.extract["into"] for s in self.steps if s.extract}

    def add_check(self, check: dict[str, Any] | None, words: str, page: tuple[str, str, str] | None = None) -> None:
        """An assertion of the source, on the step it followed; ``None``: the format cannot say it.
        ``page``: the selector it asserted on, and the DOM then (a trace), to find a person's locator."""
        if not self.steps:  # before any action: the page as opened
            self.steps.append(DemoStep("goto", value=""))
        if check is None:
            self.steps[-1].unexpressed.append(words)
        else:
            self.steps[-1].checks.append(check)
            self.steps[-1].check_pages.append(page)
