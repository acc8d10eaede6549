"""A real Playwright Test suite holding the constructs real suites hold (tests/suites/constructs:
``expect.poll`` of lists, objects, strings, booleans and null; an edit ended by
``dispatchEvent('blur')`` and by ``locator.blur()``; the web-first matchers; keyboard, mouse and
screenshot calls), traced with ``playwright test --trace on`` on the project's Chromium, imported:
every workflow passes on the unchanged app served elsewhere, and each construct is either in the
file as a step or check or counted as a ``# not imported`` comment."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from tests.importing.test_import_suites import PLAYWRIGHT_TEST, ROOT, TODOMVC, _pytest, _reuseit, _summary, todo_sites

SUITE = ROOT / "tests" / "suites" / "constructs"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not (TODOMVC / "examples").is_dir(), reason="TodoMVC is not installed: bash ci/install.sh"),
    pytest.mark.skipif(not PLAYWRIGHT_TEST.exists(), reason="@playwright/test is not installed: bash ci/install.sh"),
]
__all__ = ["todo_sites"]  # the sites, shared with the suites' tests

# What each construct of the suite becomes in the written files: a step or a check (as loaded, in
# JSON), the scripts of expect.poll compared in the page as JavaScript compares (no ", ").
MAPPED = [
    # an edit ended by a dispatched blur, by locator.blur(); the focus given, keys typed where it is
    '"dispatch": {',
    '"event": "blur"}',
    '"blur": {',
    '"focus": {',
    '"type": {',
    # the page's wheel, a script the test ran in the page (its braces kept braces)
    '"button": "right"}',  # a right click keeps its button
    '{"scroll": {"by": 100}}',
    '{"eval": "(() => {{\\n    window.scrollTo(0, 0);\\n  }})()"}',
    # the web-first matchers
    '"focused": {',
    '"editable": {',
    '"not": {"focused": {',
    '"detached": {',
    '"attached": {',
    '"attr": "class", "equals": "completed", "nth": 0}',
    '"attr": "class", "matches": "\\\\S", "nth": 1}',
    '"attr": "href", "equals": "#/"',
    '"attr": "autofocus", "matches": "^"}',
    '"style": {',
    '"property": "display", "equals": "block"}}',
    '"enabled": {',
    '"texts": {',
    '"contains": ["cheese", "cat"]}',
    '"empty": {',
    '"checked": {',
    '"count": {',
    '"title": {"equals": "VanillaJS • TodoMVC"}',
    '"url": {"matches": "vanillajs"}',
    '"js_property": {',
    '"property": "value", "equals": ""}}',
    '"accessible_name": {',
]
POLLS = [
    'eq(v, ["{what_needs_to_be_done}","{what_needs_to_be_done_2}","{what_needs_to_be_done_3}"], false)',
    "Object.is(v, 3)",
    'eq(v, {{"title":"{what_needs_to_be_done}","completed":false,"tags":[],"note":null,"nested":{{"n":1.5}}}}, true)',
    'Object.is(v, "1 item left")',
    "Object.is(v, true)",
    "v === null",
    'Array.isArray(v) && v.includes("{what_needs_to_be_done_2}")',
]
NOT_IMPORTED = [
    "# not imported: expect.poll(() => JSON.parse(localStorage['todos-vanillajs']).todos.map(t => t.title))"
    ".not.toEqual([feed the cat])",
    '# not imported: page.mouseClick({"x": 5, "y": 5}) (a click at coordinates: the format clicks elements)',
    "# not imported: page.expectScreenshot(",
]


@pytest.mark.slow
def test_each_construct_of_a_real_suite_is_imported_exactly_or_counted(
    todo_sites: dict[str, str], tmp_path: Path
) -> None:
    results = tmp_path / "results"
    ran = subprocess.run(
        # 20 s per test: a loaded machine does not fail a passing test (it did at 8 s, at a load of 20).
        [str(PLAYWRIGHT_TEST), "test", "--trace", "on", "--timeout", "20000", "--workers", "2"]
        + ["--update-snapshots=all"],  # toHaveScreenshot's reference, made by this run
        capture_output=True,
        text=True,
        cwd=SUITE,
        env={**os.environ, "TODO_URL": todo_sites["ran"], "RESULTS_DIR": str(results), "CI": "1"},
        timeout=300,
    )
    assert "6 passed" in ran.stdout, ran.stdout[-3000:]
    out = tmp_path / "imported"
    done = _reuseit("import", str(results), "-o", str(out), "--base-url", todo_sites["elsewhere"], "--runs", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    total = re.search(r"(\d+) calls, steps or assertions not imported \(comments in the files\)", done.stdout)
    assert total and int(total.group(1)) == len(NOT_IMPORTED), done.stdout
    files = sorted(out.glob("*.reuseit.yaml"))
    assert len(files) == 6
    text = "\n".join(f.read_text() for f in files)
    items = [
        item
        for f in files
        for step in YAML(typ="safe").load(f.read_text())["steps"]
        for item in [*step.get("do", []), *(c["expect"] for c in [*step.get("pre", []), *step.get("post", [])])]
    ]
    written = "\n".join(json.dumps(item, ensure_ascii=False) for item in items)
    assert [m for m in MAPPED if m not in written] == [], written
    scripts = [item["js"] for item in items if isinstance(item, dict) and "js" in item]
    assert [m for m in POLLS if not any(m in js for js in scripts)] == [], scripts
    assert not any('", "' in js for js in scripts)
    assert [m for m in NOT_IMPORTED if m not in text] == [], text
    assert text.count("# not imported:") == len(NOT_IMPORTED)

    for _ in range(3):
        elsewhere = _pytest(out, todo_sites["elsewhere"])
        assert _summary(elsewhere.stdout) == {"passed": 6, "recovered": 0, "healed": 0, "failed": 0, "broken": 0}, (
            elsewhere.stdout[-3000:]
        )
