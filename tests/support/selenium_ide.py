"""Selenium IDE's own example suites (tests/suites/selenium-ide) and the pages they run against,
served on 127.0.0.1 as its CI serves them on ``http://localhost:8080``: as they are, or with a
change of their pages (a bug that breaks what a test asserts, an element renamed).

What each example project's tests become is written down here once (``PROJECTS``: from what
side-runtime does with each command), with a change of its pages that breaks what they assert and
one they pass through; ``tests/importing/test_import_selenium_ide.py`` checks the import and the
workflows it writes against them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler

from tests.support.paths import TESTS
from tests.support.serve import Served

SUITES = TESTS / "suites" / "selenium-ide"
EXAMPLES = SUITES / "examples"
STATIC = SUITES / "static"

# A change of the pages: page (its path under static/) -> (text, what replaces it) in order.
Changes = dict[str, list[tuple[str, str]]]


class _Pages(SimpleHTTPRequestHandler):
    """static/, each page with its ``changes`` made; a folder's address is its index.html."""

    changes: Changes = {}

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass

    def do_GET(self) -> None:
        name = self.path.split("?")[0].split("#")[0].lstrip("/")
        if name == "" or name.endswith("/"):
            name += "index.html"
        path = (STATIC / name).resolve()
        if STATIC.resolve() not in path.parents or not path.is_file():  # its own pages, nothing else
            self.send_error(404)
            return
        text = path.read_text(encoding="utf-8")
        for old, new in self.changes.get(name, []):
            text = text.replace(old, new)
        body = text.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def site(changes: Changes | None = None) -> Served:
    """static/ served on 127.0.0.1; each change must find its text (a change that no longer
    applies would test nothing)."""
    for page, pairs in (changes or {}).items():
        text = (STATIC / page).read_text(encoding="utf-8")
        for old, _ in pairs:
            assert old in text, f"{page}: {old!r} is not in the page"
    return Served(type("Pages", (_Pages,), {"changes": changes or {}}))


@dataclass(frozen=True)
class Example:
    """What one test of an example project becomes: written (its steps, its checks from the
    source, its commands not imported and the reason of each, the same text in each line) or
    refused (the words of its line)."""

    steps: int = 0
    checks: int = 0
    said: tuple[str, ...] = ()  # the reason of each command not imported, in the order written
    differences: int = 0  # commands imported with a difference said
    refused: str = ""


@dataclass(frozen=True)
class Project:
    """An example project: its tests by name; whether its pages are Selenium IDE's own (served
    here, so it is run) or another site's (only read); a change of its pages that breaks what each
    test asserts (and the words of each failure); a rename its tests pass through."""

    file: str
    tests: dict[str, Example]
    served: bool = True
    # A test whose workflow cannot pass, by its name: the words of the line that says so.
    fails: dict[str, str] = field(default_factory=dict)
    breaks: Changes = field(default_factory=dict)
    # The failure of each test on the broken pages: words of its message (the check that failed;
    # a check found by the text it expects says no such element where the text changed).
    broken: dict[str, str] = field(default_factory=dict)
    renamed: Changes = field(default_factory=dict)
    # How each test passes with the rename: "passed" (a person's locator finds the element) or
    # "recovered" (through the alternatives the file carries).
    renamed_status: dict[str, str] = field(default_factory=dict)


_NO_IF = "the format has no conditional steps"
# An assert of a variable a command not imported would have stored.
_LOST = "is stored by a command not imported"
_LOG = "writes a message in Selenium IDE's log (the format has no log op)"
_UPPER = ('id="v"', 'id="v" oninput="this.value = this.value.toUpperCase()"')
_NO_CHECK = ('id="f"', 'id="f" onclick="return false"')  # a click that does not tick it

PROJECTS = [
    Project(
        "check-examples.side",
        {"check-examples": Example(steps=4, checks=4)},
        breaks={"check.html": [_NO_CHECK]},
        broken={"check-examples": "the checkbox was clicked but did not become checked"},
    ),
    Project(
        "control-flow.side",
        {
            name: Example(steps=1, said=(_NO_IF,) * 7 + (_LOST,))
            for name in ("control flow if", "control flow else if", "control flow else")
        },
    ),
    Project(
        "execute-script.side",
        {"execute script": Example(steps=2, checks=1), "execute async script": Example(steps=2, checks=1)},
        breaks={"value.html": [_UPPER]},
        broken={"execute script": "actual: 'SYNC'", "execute async script": "actual: 'ASYNC'"},
    ),
    Project(
        "executescript.side",
        {
            "execute script array": Example(steps=1, said=("a value read at run time", _LOST)),
            "execute script object": Example(steps=1, said=("a value read at run time", _LOST)),
            # Each value a script returns, as the runner's ${...} writes it ('true', '3.14').
            "execute script primitives": Example(steps=3, checks=3),
        },
    ),
    Project(
        "mouse-events.side",
        {"mouse sequence": Example(steps=3, checks=4)},
        breaks={"mouse/index.html": [('e.innerText = "up";', 'e.innerText = "released";')]},
        broken={"mouse sequence": "to equal 'up'"},
    ),
    Project(
        "nginx-examples.side",
        {
            "input type text": Example(steps=2, checks=3),
            "input type checkbox": Example(steps=1, checks=3),
            "input editable": Example(steps=1, checks=6),
            "select": Example(steps=1, checks=2),
            "wait implicit": Example(steps=1, checks=2),
            "popup alert": Example(steps=1, checks=2),
            "popup confirmation": Example(steps=2, checks=4),
            "popup prompt": Example(steps=3, checks=6),
            "form submit": Example(steps=7, checks=3),
            "send keys": Example(steps=1, checks=1),
        },
        breaks={
            "value.html": [_UPPER],
            "check.html": [_NO_CHECK],
            "editable.html": [('<input id="e" type="text" />', '<input id="e" type="text" readonly />')],
            "select.html": [
                ("</select>", "</select><script>select.onchange = () => { select.value = '3'; };</script>")
            ],
            "wait/implicit.html": [('elem.innerText = "selenium";', 'elem.innerText = "Selenium";')],
            "popup/alert.html": [('document.title = "changed";', 'document.title = "moved";')],
            "popup/confirm.html": [('"ok"', '"yes"')],
            "popup/prompt.html": [('document.title = "empty";', 'document.title = "blank";')],
            "success.html": [("Success!", "Failed!")],
        },
        broken={
            "input type text": "actual: 'SELENIUM'",
            "input type checkbox": "to be checked",
            "input editable": "to be editable",
            "select": "actual: '3'",
            "wait implicit": "to equal 'selenium'",
            "popup alert": "actual: 'moved'",
            "popup confirmation": "actual: 'yes'",
            "popup prompt": "actual: 'blank'",
            "form submit": "to equal 'Success!'",
            "send keys": "to equal 'Success!'",
        },
    ),
    Project(
        "plugin.side",
        # customClick is the example suite's own plugin's command: the runner plays it with that
        # plugin loaded; the import does not run a plugin's code, so it is said and the
        # waitForText after it cannot hold: the one example test that does not pass.
        {"Plugin Commands": Example(steps=1, checks=1, said=(_LOG, "a command of the project's plugins"))},
        fails={"Plugin Commands": "step 1 ('Wait 500 ms') failed: post check failed"},
    ),
    Project(
        "select-examples.side",
        {
            "select-verify-labels": Example(steps=1, checks=2, differences=1),
            "select strategies": Example(steps=1, checks=1),
        },
        breaks={
            "select.html": [
                ('<option value="1">One</option>', '<option value="1">Uno</option>'),
                ("</select>", "</select><script>select.onchange = () => { select.value = '3'; };</script>"),
            ]
        },
        broken={"select-verify-labels": "to equal 'One'", "select strategies": "to equal 'Two'"},
    ),
    Project(
        "select-window.side",
        {"select window": Example(steps=3, checks=2)},
        breaks={"windows.html": [("<h1>", "<title>Windows</title><h1>")]},
        broken={"select window": "actual: 'Windows'"},
        renamed={"windows.html": [(">open new window<", ">open a new window<")]},
        renamed_status={"select window": "recovered"},
    ),
    Project(
        "store-examples.side",
        {"attributes": Example(steps=2, checks=1), "xpath count": Example(steps=4, checks=2)},
        breaks={
            "store/attributes.html": [('style="color:blue;"', 'style="color:red;"')],
            "store/nodes.html": [('<input id="test"/>', '<input id="test"/><span>one more</span>')],
        },
        broken={"attributes": "actual: 'color: red;'", "xpath count": "actual: '11'"},
    ),
    Project(
        "text-comparison.side",
        {"text comparison": Example(steps=1, checks=6, differences=2)},
        breaks={"popup/alert.html": [(">show alert<", ">open alert<")]},
        broken={"text comparison": "to equal 'show alert'"},
    ),
    Project(
        "variable-in-conditional.side",
        {
            "If variable": Example(refused="it does nothing the format can say (3 commands not imported)"),
            "Times variable": Example(refused="it does nothing the format can say"),
        },
    ),
]
