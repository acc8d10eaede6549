"""Big downloads stay out of the report (issue: a 200 MB export left 201 MB in allure-results).

A download up to --reuseit-attach-max (1 MB by default) is attached whole; a larger one is listed
by name, size and path. Through a real pytest session with --alluredir, on a site served on
127.0.0.1 that sends a 5 MB export and a small one.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import shutil
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler
from pathlib import Path

import pytest

from pytest_reuseit import cli
from tests.support.serve import Served

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Exports</title></head><body>
<a href="big.csv" download>Export all</a> <a href="small.csv" download>Export one</a>
</body></html>"""
WORKFLOW = """\
name: Exports
task: Download both exports
start_url: "{base_url}/exports.html"
settings: {action_timeout: 20}
steps:
  - action: Download the small export
    do:
      - download: {role: link, name: Export one}
    post:
      - expect: {download: {name: {equals: small.csv}, contains: "id,name"}}
  - action: Download the big export
    do:
      - download: {role: link, name: Export all}
    post:
      - expect: {download: {name: {equals: big.csv}}}
"""
BIG = 5_000_000


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass


@pytest.fixture(scope="module")
def export_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("exports")
    (folder / "exports.html").write_text(PAGE)
    (folder / "small.csv").write_text("id,name\n1,apple\n")
    row = "1,a fairly long product name for the export,12.50\n"
    (folder / "big.csv").write_text("id,name,price\n" + row * (BIG // len(row) + 1))
    with Served(functools.partial(_Quiet, directory=str(folder))) as served:
        yield served.url


def _results(path: Path) -> tuple[int, list[dict[str, object]]]:
    files = [p for p in path.rglob("*") if p.is_file()]
    tests = [json.loads(p.read_text()) for p in files if p.name.endswith("-result.json")]
    return sum(p.stat().st_size for p in files), tests


def _attachments(test: dict[str, object]) -> list[dict[str, str]]:
    found: list[dict[str, str]] = []
    stack: list[object] = [test]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            found.extend(node.get("attachments", []) or [])  # type: ignore[arg-type]
            stack.extend(node.get("steps", []) or [])  # type: ignore[arg-type]
    return found


@pytest.mark.slow
def test_a_big_download_is_listed_and_a_small_one_attached(pytester: pytest.Pytester, export_site: str) -> None:
    pytester.path.joinpath("exports.reuseit.yaml").write_text(WORKFLOW)
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--base-url", export_site, "--reuseit-llm", "off", "--alluredir", "allure"
    )
    result.assert_outcomes(passed=1)
    size, (test,) = _results(pytester.path / "allure")
    # The run folder keeps the 5 MB file; the report does not copy it.
    assert size < 1_000_000, f"allure-results holds {size} bytes"
    by_name = {a["name"]: a for a in _attachments(test)}
    small = by_name["download: small.csv"]
    assert (pytester.path / "allure" / small["source"]).read_text() == "id,name\n1,apple\n"
    (listed,) = [a for name, a in by_name.items() if name.startswith("download: big.csv (")]
    assert listed["name"] == "download: big.csv (5.0 MB, not attached)"
    text = (pytester.path / "allure" / listed["source"]).read_text()
    assert "over the 1 MB attached whole (--reuseit-attach-max)" in text and "big.csv" in text.splitlines()[1]
    kept = Path(text.splitlines()[1].split("The file: ", 1)[1])
    assert kept.is_file() and kept.stat().st_size >= BIG
    if shutil.which("allure"):
        # `reuseit report` says what the single-file report weighs; it stays small too. Its entry
        # point in this process (pytester's folder is the working one); Allure runs as a program.
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(["report", "--results", "allure", "--output", "rep"])
        assert code == 0, err.getvalue()
        index = pytester.path / "rep" / "index.html"
        said = out.getvalue()
        assert f"rep/index.html: {index.stat().st_size / 1_000_000:.1f} MB" in said.splitlines(), said
        assert index.stat().st_size < 3_000_000

    # A higher limit attaches it whole.
    result = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "--base-url",
        export_site,
        "--reuseit-llm",
        "off",
        "--alluredir",
        "allure2",
        "--reuseit-attach-max",
        "10",
    )
    result.assert_outcomes(passed=1)
    size, _ = _results(pytester.path / "allure2")
    assert size > BIG


def test_a_bad_limit_is_a_usage_error_naming_it(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("-p", "no:cacheprovider", "--reuseit-attach-max", "-1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "reuseit_attach_max: expected a number 0 or more, got '-1'" in result.stderr.str()


# The link's words never match: each of the four looks (the check and three reloads) fails
# whatever it waits, so each waits half a second.
FAILING = """\
name: Price
task: Read a price that is wrong
start_url: "{base_url}/exports.html"
settings: {check_timeout: 0.5}
steps:
  - action: Read the export link
    do: []
    post:
      - expect: {text: {role: link, name: Export all, equals: Export nothing}}
    fallback:
      - do: [reload]
"""


@pytest.mark.slow
def test_a_trace_over_the_limit_is_named_by_its_path(pytester: pytest.Pytester, export_site: str) -> None:
    """A failed run's trace (tens of KB) over a limit of 5 KB: listed with its path, not embedded;
    every other attachment is bounded the same way (the analysis page with its screenshots too)."""
    pytester.path.joinpath("price.reuseit.yaml").write_text(FAILING)
    args = ["-p", "no:cacheprovider", "--base-url", export_site, "--reuseit-llm", "off", "--alluredir", "allure"]
    result = pytester.runpytest(*args, "--reuseit-trace", "on", "--reuseit-attach-max", "0.005")
    result.assert_outcomes(failed=1)
    _, (test,) = _results(pytester.path / "allure")
    by_name = {a["name"]: a for a in _attachments(test)}
    assert not [a for a in by_name.values() if a["source"].endswith(".zip")], by_name
    (listed,) = [a for name, a in by_name.items() if name.startswith("playwright trace (")]
    text = (pytester.path / "allure" / listed["source"]).read_text()
    kept = Path(text.splitlines()[1].split("The file: ", 1)[1])
    assert kept.name == "trace.zip" and kept.is_file() and kept.stat().st_size > 5_000
    for a in by_name.values():
        assert (pytester.path / "allure" / a["source"]).stat().st_size <= 5_000, a["name"]
    # The screenshots over the limit are named with their files in the run folder, and the analysis
    # page lists them instead of embedding them.
    shots = [a for name, a in by_name.items() if name.startswith("post check failed") and "not attached" in name]
    assert len(shots) == 4, by_name.keys()
    for a in shots:
        kept = Path((pytester.path / "allure" / a["source"]).read_text().split("The file: ", 1)[1].strip())
        assert kept.suffix == ".jpg" and kept.is_file()
    page = by_name["challenge analysis [wrong_element_or_value]"]
    assert "<img" not in (pytester.path / "allure" / page["source"]).read_text()


STEPS = """\
name: Two looks
task: Look at the exports page twice
start_url: "{base_url}/exports.html"
steps:
  - action: Look at the page
    do: [{wait: 50}]
  - action: Look at it again
    do: [{wait: 50}]
"""


@pytest.mark.slow
def test_a_picture_the_run_already_attached_is_named_not_attached_again(
    pytester: pytest.Pytester, export_site: str
) -> None:
    """With screenshots before and after every step, a page that does not change gives one picture
    four times: it is attached once, and the other places name it."""
    pytester.path.joinpath("looks.reuseit.yaml").write_text(STEPS)
    args = ["-p", "no:cacheprovider", "--base-url", export_site, "--reuseit-llm", "off", "--alluredir", "allure"]
    pytester.runpytest(*args, "--reuseit-screenshots", "steps").assert_outcomes(passed=1)
    _, (test,) = _results(pytester.path / "allure")
    pictures = [a for a in _attachments(test) if a["source"].endswith(".jpg")]
    assert len(pictures) == 1, pictures
    titles = [st["name"] for st in _walk(test)]
    again = [t for t in titles if t.endswith(f": the same picture as '{pictures[0]['name']}'")]
    assert len(again) == 3, titles


def _walk(node: dict[str, object]) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for st in node.get("steps", []) or []:  # type: ignore[attr-defined]
        out.append(st)
        out.extend(_walk(st))
    return out
