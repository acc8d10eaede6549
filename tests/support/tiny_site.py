"""The tiny site: one page (``PAGE``: a query field and its Go button, a Prepare button, a password
field echoed on Echo) served on 127.0.0.1 by the module fixture ``tiny_site`` (its URL), and the
workflows the plugin's tests run on it: ``PASS_WF``, ``FAIL_WF``, ``RECOVER_WF``, and ``FIXTURE_WF``
with the conftest whose fixtures it uses (``FIXTURE_CONFTEST``).

A test module takes the fixture by importing it (``from tests.support.tiny_site import
tiny_site``); tests/support/pytest_sessions.py runs pytest against it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.serve import Served, files

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>Tiny shop</title></head>
<body>
  <label>Query <input id="q"></label>
  <button id="go">Go</button>
  <button id="prep">Prepare</button>
  <label>Password <input id="pw" type="password"></label>
  <button id="echo">Echo</button>
  <p id="out">idle</p>
  <p id="state">not prepared</p>
  <script>
    let prepared = false;
    const $ = (id) => document.getElementById(id);
    $("prep").onclick = () => { prepared = true; $("state").textContent = "prepared"; };
    // Go shows the query, but only once "Prepare" was clicked when the query is "needs-prep".
    $("go").onclick = () => {
      const q = $("q").value;
      $("out").textContent = q === "needs-prep" && !prepared ? "not yet" : (q || "clicked");
    };
    $("echo").onclick = () => { $("out").textContent = $("pw").value; };
  </script>
</body></html>
"""


@pytest.fixture(scope="module")
def tiny_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The tiny page served on 127.0.0.1 from a temp folder (tests/pages belongs to other tests)."""
    root = tmp_path_factory.mktemp("tiny")
    (root / "index.html").write_text(PAGE, encoding="utf-8")
    with Served(files(root)) as site:
        yield site.url


# The tiny site's page changes only when clicked: a check that fails would fail after any wait, so
# it waits 0.1 s; a check that holds is judged once whatever its timeout (Playwright's assertions
# look once before they wait).

PASS_WF = """\
name: Type and read back
task: Type {word} and read it back
start_url: "{base_url}/index.html"
params: {word: hello}
steps:
  - action: Type {word} and press Go
    do:
      - fill: {css: "#q", value: "{word}"}
      - click: "#go"
    post:
      - expect: {text: {css: "#out", equals: "{word}"}}
"""

FAIL_WF = """\
name: Expects the wrong text
task: Press Go and expect a text that never comes
start_url: "{base_url}/index.html"
settings: {retries: 1, check_timeout: 0.1}
steps:
  - action: Press Go
    do:
      - click: "#go"
    post:
      - check: The page says goodbye
        expect: {text: {css: "#out", equals: goodbye}}
    fallback:
      - do: [{wait: 1}]
        redo: true
"""

RECOVER_WF = """\
name: Needs preparing first
task: Search for needs-prep
start_url: "{base_url}/index.html"
settings: {retries: 2, check_timeout: 0.1}
steps:
  - action: Search for needs-prep
    do:
      - fill: {css: "#q", value: needs-prep}
      - click: "#go"
    post:
      - expect: {text: {css: "#out", equals: needs-prep}}
    fallback:
      - do: [{click: "#prep"}]
        redo: true
"""

# Uses the fixtures of FIXTURE_CONFTEST (seeded, greeting), which note their set-up and tear-down and
# the run's start and end in order.log beside it.
FIXTURE_WF = """\
name: Types what the fixtures seeded
task: Type {seeded.word} and {greeting}
start_url: "{base_url}/index.html"
usefixtures: [seeded, greeting]
settings: {retries: 0, check_timeout: 0.5}  # the run with another fixture value waits this out
steps:
  - action: Type {seeded.word}-{greeting} and press Go
    do:
      - fill: {css: "#q", value: "{seeded.word}-{greeting}-{seeded}"}
      - click: "#go"
    post:
      - expect: {text: {css: "#out", contains: "planted-hi-"}}
"""

FIXTURE_CONFTEST = """
import pathlib
import pytest

LOG = pathlib.Path(__file__).parent / "order.log"

def note(what):
    with LOG.open("a") as f:
        f.write(what + "\\n")

@pytest.fixture
def seeded():
    note("seed set up")
    yield {"word": "planted", "count": 3}
    note("seed torn down")

@pytest.fixture
def greeting(seeded):
    return "hi"

def pytest_reuseit_run_start(item, page):
    note("run start")

def pytest_reuseit_run_end(item, result):
    note("run end " + result.status)
"""
