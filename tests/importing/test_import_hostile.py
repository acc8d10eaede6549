"""reuseit import on hostile and broken inputs: the red team's table.

Every input, however made, ends in one line naming it and exit 2, or in a written workflow that
means what the source meant: text typed stays the text typed, a comment stays one line, a
secret's value is written nowhere. What is read is bounded before it is read. The import's own
runs open only the origins the source visited (docs/import.md, "Limits" and "Safe on hostile input").
"""

from __future__ import annotations

import json
import os
import re
import struct
import subprocess
import sys
import zipfile
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from pytest_reuseit.cli import main
from pytest_reuseit.importing import limits
from pytest_reuseit.synthesis.compile import op_for
from pytest_reuseit.synthesis.explore import RecordedAction
from pytest_reuseit.workflow.loader import parse
from pytest_reuseit.workflow.placeholders import Values
from pytest_reuseit.workflow.writer import WorkflowWriteError, check, one_line
from tests.support.paths import ROOT
from tests.support.serve import Served

SITE = "http://127.0.0.1:1"
NAV = {"type": "navigate", "url": f"{SITE}/"}


def _recording(*steps: dict[str, Any], title: str = "t") -> bytes:
    return json.dumps({"title": title, "steps": [NAV, *steps]}).encode()


def _click(selector: str = "#go") -> dict[str, Any]:
    return {"type": "click", "offsetX": 1, "offsetY": 1, "selectors": [[selector]]}


def _trace_zip(path: Path, members: dict[str, str]) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in members.items():
            z.writestr(name, text)


def _bomb(path: Path, blocks: int = limits.MAX_EVENTS_BYTES // (8 * limits.MB) + 1) -> None:
    """A small zip whose one event file is ``blocks`` x 8 MB uncompressed (line breaks compress 1000:1)."""
    with (
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z,
        z.open("0-trace.trace", "w", force_zip64=True) as f,
    ):
        block = b"\n" * (8 * limits.MB)
        for _ in range(blocks):
            f.write(block)


def _many_members(path: Path) -> None:
    """A small zip whose end record states 60000 members (the count zipfile would list first)."""
    _trace_zip(path, {"0-trace.trace": "{}"})
    data = bytearray(path.read_bytes())
    at = data.rfind(b"PK\x05\x06")
    struct.pack_into("<HH", data, at + 8, 60000, 60000)
    path.write_bytes(bytes(data))


def _damaged(path: Path) -> None:
    _trace_zip(path, {"0-trace.trace": json.dumps({"type": "context-options", "version": 8}) * 50})
    path.write_bytes(path.read_bytes()[:60])


def _bad_member(path: Path) -> None:
    _trace_zip(path, {"0-trace.trace": json.dumps({"type": "context-options", "version": 8}) * 50})
    data = bytearray(path.read_bytes())
    data[30:38] = b"\xff" * 8  # the member's local header no longer names it
    path.write_bytes(bytes(data))


def _too_large(path: Path) -> None:
    with path.open("wb") as f:
        f.truncate(limits.MAX_RECORDING_BYTES + 1)


def _write(content: bytes) -> Callable[[Path], None]:
    return lambda path: path.write_bytes(content)


def _trace(*calls: dict[str, Any], title: Any = "t", member: str = "trace.trace") -> Callable[[Path], None]:
    """A pytest-playwright trace (``trace.trace`` alone) opening the page, then ``calls``."""
    options = {"type": "context-options", "version": 8, "title": title, "options": {}}
    goto = {"type": "before", "callId": "c0", "class": "Frame", "method": "goto", "params": {"url": f"{SITE}/"}}
    events = [options, goto, *({"type": "before", "callId": f"c{n}", **c} for n, c in enumerate(calls, 1))]
    return lambda path: _trace_zip(path, {member: "\n".join(json.dumps(e) for e in events)})


def _frame_call(method: str, **params: Any) -> dict[str, Any]:
    return {"class": "Frame", "method": method, "params": params}


# input -> (file name, how it is made, the line's words after "cannot import PATH: ")
REFUSED: dict[str, tuple[str, Callable[[Path], None], str]] = {
    "zip bomb": (
        "bomb.zip",
        _bomb,
        "its member 0-trace.trace is 72 MB uncompressed, over the limit of 64 MB",
    ),
    "zip of 60000 members": ("many.zip", _many_members, "a zip of 60000 or more members, over the limit of 20000"),
    "truncated zip": ("cut.zip", _damaged, "not a zip file (BadZipFile): not a Playwright trace"),
    "damaged zip member": ("bad.zip", _bad_member, "this release cannot read it (BadZipFile: "),
    "deeply nested JSON": (
        "deep.json",
        _write(b'{"title": "x", "steps": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
        "JSON nested deeper than 256 levels, the limit",
    ),
    "recording over 10 MB": ("big.json", _too_large, "10,485,761 bytes, over the limit of 10 MB for a recording"),
    "501 steps": ("long.json", _write(_recording(*[_click()] * 501)), "502 steps in one recording, over the limit"),
    "33 selectors in a step": (
        "sels.json",
        _write(_recording({"type": "click", "offsetX": 1, "offsetY": 1, "selectors": [["#a"]] * 33})),
        "33 selectors in steps[1], over the limit of 32",
    ),
    "a 5000-character value": (
        "text.json",
        _write(_recording({"type": "change", "value": "x" * 5000, "selectors": [["#a"]]})),
        "step 2 holds a text of 5000 characters, over the limit of 4096",
    ),
    "binary junk": ("junk.json", _write(bytes(range(256)) * 16), "not UTF-8 text (byte 128): not a recording"),
    "empty file": ("empty.json", _write(b""), "an empty file"),
    "wrong field type": (
        "frame.json",
        _write(_recording({"type": "click", "offsetX": 1, "offsetY": 1, "selectors": [["#a"]], "frame": ["x"]})),
        "frame must be a list of whole numbers",
    ),
    "JSON that is a list": ("list.json", _write(b"[1, 2]"), "not a Chrome DevTools recording"),
    # A trace's fields of the wrong type are refused as a recording's are, never written changed.
    "a trace's url that is a number": (
        "url.zip",
        _trace(_frame_call("goto", url=5)),
        "trace.trace: the goto call c1: its url must be a string, got int 5",
    ),
    "a trace's selector that is a number": (
        "sel.zip",
        _trace(_frame_call("click", selector=12)),
        "trace.trace: the click call c1: its selector must be a string, got int 12",
    ),
    "a trace's value that is a list": (
        "fill.zip",
        _trace(_frame_call("fill", selector="#a", value=["x"])),
        "trace.trace: the fill call c1: its value must be a string, got list ['x']",
    ),
    "a trace's title that is a list": (
        "title.zip",
        _trace(_frame_call("click", selector="#a"), title=["a", "b"]),
        "trace.trace: the test's title must be a string, got list ['a', 'b']",
    ),
    # A message about a member of the zip names the zip too.
    "a trace member that is no JSON": (
        "junk.zip",
        lambda path: _trace_zip(path, {"trace.trace": "not json"}),
        "trace.trace line 1 is not JSON: not a trace Playwright wrote",
    ),
    "a trace member nested deep": (
        "deep.zip",
        lambda path: _trace_zip(path, {"trace.trace": "[" * 300 + "]" * 300}),
        "trace.trace line 1: JSON nested deeper than 256 levels",
    ),
    "codegen line nested deep": (
        "deep.jsonl",
        _write(b'{"name": "navigate", "signals": []}\n' + b"[" * 5000 + b"]" * 5000 + b"\n"),
        ":2: JSON nested deeper than 256 levels",
    ),
}


def _import(out: Path, *args: str) -> int:
    return main(["import", *args, "--no-derive", "-o", str(out)])


@pytest.mark.parametrize("case", REFUSED, ids=list(REFUSED))
def test_a_hostile_or_broken_input_is_one_line_and_exit_2(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name, make, says = REFUSED[case]
    path = tmp_path / name
    make(path)
    assert _import(tmp_path / "out", str(path)) == 2
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    line, total = out.out.splitlines()
    assert line.startswith(f"cannot import {path}") and says in line, line
    assert total.endswith("; 1 not imported")
    assert not (tmp_path / "out").exists()


def test_a_folder_given_as_a_source_file_and_a_link_loop_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "x.json").mkdir()
    (tmp_path / "x.json" / "loop").symlink_to(tmp_path / "x.json")
    assert _import(tmp_path / "out", str(tmp_path / "x.json")) == 2
    err = capsys.readouterr().err
    assert err == f"reuseit import: no trace, recording or codegen file in {tmp_path / 'x.json'}\n"


def test_an_output_folder_that_is_a_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = tmp_path / "rec.json"
    rec.write_bytes(_recording(_click()))
    (tmp_path / "out").write_text("a file")
    assert _import(tmp_path / "out", str(rec)) == 2
    line = capsys.readouterr().out.splitlines()[0]
    assert line == f"cannot import {rec}: File exists: {tmp_path / 'out'}"


def test_in_a_folder_the_bad_sources_get_their_line_and_the_good_ones_are_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "test-results"
    (src / "a").mkdir(parents=True)
    (src / "a" / "good.json").write_bytes(_recording(_click(), title="good one"))
    (src / "b.json").write_bytes(b'{"title": "x", "steps": ' + b"[" * 10_000 + b"]" * 10_000 + b"}")
    _damaged(src / "trace.zip")
    (src / "package.json").write_text('{"name": "app"}')  # not a recording: not looked at
    (src / "loop").symlink_to(src)
    # Neither a pipe (reading it would wait for ever) nor a link to nowhere stops the others.
    os.mkfifo(src / "a" / "pipe.json")
    (src / "a" / "gone.json").symlink_to(src / "nowhere.json")
    _trace(_frame_call("goto", url=5))(src / "c.zip")
    (src / "d").mkdir()
    (src / "d" / "good.json").write_bytes(_recording(_click(), title="good two"))
    assert _import(tmp_path / "out", str(src)) == 2
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"wrote {tmp_path / 'out' / 'good_one.reuseit.yaml'}: 1 steps")
    assert lines[1] == f"cannot import {src / 'b.json'}: JSON nested deeper than 256 levels, the limit"
    assert lines[2].startswith(f"cannot import {src / 'c.zip'}: trace.trace: the goto call c1: its url must be")
    assert lines[3].startswith(f"wrote {tmp_path / 'out' / 'good_two.reuseit.yaml'}: 1 steps")
    assert lines[4].startswith(f"cannot import {src / 'trace.zip'}: not a zip file")
    assert lines[5].startswith("imported 2 workflows: 2 steps") and lines[5].endswith("; 3 not imported")
    assert len(lines) == 6


def test_a_source_that_breaks_the_import_in_a_way_nobody_foresaw_is_one_line_and_the_next_is_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_reuseit.importing import pipeline

    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_bytes(_recording(_click(), title="first"))
    second.write_bytes(_recording(_click(), title="second"))
    real = pipeline.read_source

    def read(path: Path) -> Any:
        if path == first:
            raise MemoryError("the source made the reader run out of memory")
        return real(path)

    monkeypatch.setattr(pipeline, "read_source", read)
    assert _import(tmp_path / "out", str(first), str(second)) == 2
    lines = capsys.readouterr().out.splitlines()
    says = "this release cannot read it (MemoryError: the source made the reader run out of memory)"
    assert lines[0] == f"cannot import {first}: {says}"
    assert lines[1].startswith(f"wrote {tmp_path / 'out' / 'second.reuseit.yaml'}")


# ----------------------------------------------------------------------------- what is written


def _written(tmp_path: Path, source: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, str, Any]:
    assert _import(tmp_path / "out", str(source)) == 0
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    (path,) = (tmp_path / "out").iterdir()
    text = path.read_text(encoding="utf-8")
    return text, out.out + out.err, parse(text, str(path), builtin_names=("base_url", "unique"))


def test_a_navigation_asserted_on_a_key_is_carried_as_on_a_click(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """replay waits for the navigation a step asserts whatever the step is: Enter in a form too."""
    landed = {"type": "navigation", "url": f"{SITE}/done#x", "title": "Done"}
    rec = tmp_path / "rec.json"
    rec.write_bytes(
        _recording(
            {"type": "change", "value": "q", "selectors": [["#q"]]},
            {"type": "keyDown", "key": "Enter", "assertedEvents": [landed]},
            {"type": "keyUp", "key": "Enter"},
            {"type": "keyDown", "key": "Tab"},
            {"type": "keyUp", "key": "Tab", "assertedEvents": [{"type": "navigation", "url": f"{SITE}/next"}]},
            _click("#go"),
            {**_click("#go"), "assertedEvents": [landed]},
        )
    )
    text, said, loaded = _written(tmp_path, rec, capsys)
    checks = {
        s.action: [list(c.model_dump(exclude_none=True, by_alias=True)["expect"]) for c in s.post]
        for s in loaded.workflow.steps
    }
    on_enter = checks["Press Enter"]
    assert on_enter == [[{"url": {"matches": r"^{base_url}/done(#.*)?$"}}], [{"title": {"equals": "Done"}}]], checks
    assert checks["Press Tab"] == [[{"url": {"matches": r"^{base_url}/next(#.*)?$"}}]], checks
    assert list(checks.values())[-1] == on_enter  # the same as on a click
    assert "not imported" not in said


def test_typed_text_that_looks_like_a_placeholder_is_typed_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = tmp_path / "rec.json"
    typed = ["{env.HOME}", "{secret.X}", "{base_url}/x", "}{", "{{unique}}"]
    rec.write_bytes(
        _recording(*({"type": "change", "value": v, "selectors": [[f"#f{n}"]]} for n, v in enumerate(typed)))
    )
    text, _, loaded = _written(tmp_path, rec, capsys)
    assert os.environ["HOME"] not in text
    values = Values(dict(loaded.workflow.params), environ={"HOME": "/home/someone", "X": "a-secret-value"})
    # A change on an element the import never saw (--no-derive) is the recorder's change op.
    fills = [op.fill or op.change for step in loaded.workflow.steps for op in step.do or ()]
    assert [values.render(str(f.value), reveal=True) for f in fills if f is not None] == typed


@pytest.mark.parametrize(
    "brk", ["\r", "\x85", "\u2028", "\u2029", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\r\n", "\n"]
)
def test_a_comment_stays_one_line_whatever_breaks_its_source_holds(
    brk: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    evil = f"x{brk}- action: evil{brk}  do: [{{goto: 'http://127.0.0.1:9/'}}]{brk}#"
    rec = tmp_path / "rec.json"
    rec.write_bytes(_recording(_click(), {"type": "customStep", "name": evil}, _click("#two")))
    text, said, loaded = _written(tmp_path, rec, capsys)
    comments = [line for line in text.splitlines() if "not imported" in line]
    assert len(comments) == 1 and comments[0].lstrip().startswith("# not imported: customStep")
    assert "evil" not in "".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    assert len(loaded.workflow.steps) == 2
    assert "2 steps" in said.splitlines()[0] and "1 not imported" in said.splitlines()[0]


def test_a_password_typed_then_asserted_is_a_secret_in_the_check_and_nowhere_else(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    password = "hunter2-{not}-a-placeholder"
    field = 'internal:label="Password"i'
    lines = [
        {"name": "navigate", "url": f"{SITE}/login", "signals": []},
        {"name": "fill", "selector": field, "text": password, "signals": []},
        {"name": "assertValue", "selector": field, "value": password, "signals": []},
        {"name": "assertText", "selector": "#echo", "text": f"you typed {password}", "substring": True, "signals": []},
        {"name": "navigate", "url": f"{SITE}/welcome?pw={password}", "signals": []},
        {"name": "navigate", "url": f"{SITE}/again?pw={quote(password, safe='')}", "signals": []},
    ]
    rec = tmp_path / "login.jsonl"
    rec.write_text("\n".join(json.dumps(x) for x in lines))
    text, said, loaded = _written(tmp_path, rec, capsys)
    assert password not in text + said and "hunter2" not in text + said
    assert quote(password, safe="") not in text
    assert "{secret.PASSWORD}" in said or "PASSWORD" in said
    checks = [c for s in loaded.workflow.steps for c in s.post]
    written = json.dumps([c.model_dump(exclude_none=True) for c in checks])
    assert written.count("{secret.PASSWORD}") == 2, written
    assert "welcome?pw={secret.PASSWORD}" in text and "again?pw={secret.PASSWORD}" in text


def test_braces_in_a_title_a_name_and_a_selector_make_a_valid_file_that_means_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = tmp_path / "rec.json"
    rec.write_bytes(
        _recording(
            {"type": "click", "offsetX": 1, "offsetY": 1, "selectors": [["aria/Save {draft}"], ["#a{b}"]]},
            {"type": "click", "offsetX": 1, "offsetY": 1, "selectors": [["div[data-x='{y}'] > .z"]]},
            {"type": "keyDown", "key": "}"},
            {"type": "navigate", "url": f"{SITE}/items/{{id}}?q={{x}}"},
            title="Edit {id} and {{more}}",
        )
    )
    text, _, loaded = _written(tmp_path, rec, capsys)
    wf = loaded.workflow
    values = Values({})
    assert values.render(wf.name) == "Edit {id} and {{more}}"
    first, second, third, fourth = wf.steps
    assert values.render(str(first.do[0].click.text)) == "Save {draft}"
    assert values.render(str(first.fallback[0].do[0].click.selector)) == "#a{b}"
    assert values.render(str(second.do[0].click.selector)) == "div[data-x='{y}'] > .z"
    assert values.render(str(third.do[0].press)) == "}"
    assert Values({}, builtins={"base_url": SITE}).render(str(fourth.do[0].goto)) == f"{SITE}/items/{{id}}?q={{x}}"


# ----------------------------------------------------------------------------- the writer itself


def test_one_line_escapes_every_line_break_and_what_yaml_does_not_allow() -> None:
    text = "a\rb\nc\x85d\u2028e\u2029f\x0bg\x0ch\x1ci\x1dj\x1ek\x00l\ufeffm"
    line = one_line(text)
    assert line.splitlines() == [line]
    assert line == r"a\x0db\x0ac\x85d\u2028e\u2029f\x0bg\x0ch\x1ci\x1dj\x1ek\x00l\ufeffm"


def test_the_writer_refuses_a_text_that_reads_back_as_other_steps_or_holds_a_secret() -> None:
    meant = {"name": "n", "task": "t", "start_url": "http://127.0.0.1:1/", "steps": [{"action": "a", "do": ["reload"]}]}
    one = "name: n\ntask: t\nstart_url: http://127.0.0.1:1/\nsteps:\n  - action: a\n    do: [reload]\n"
    assert len(check(one, meant, "w.yaml").workflow.steps) == 1
    two = one + "  - action: b\n    do: [reload]\n"
    with pytest.raises(WorkflowWriteError, match="reads back as other steps than were meant"):
        check(two, meant, "w.yaml")
    with pytest.raises(WorkflowWriteError, match="would hold the value of the secret PW"):
        check(one, meant, "w.yaml", secrets={"PW": "action: a"})


def test_the_synthesizer_writes_what_the_agent_typed_pressed_and_answered_as_text() -> None:
    def act(n: int, action: str, value: str, locator: str = 'role=textbox[name="Q"]') -> RecordedAction:
        return RecordedAction(n, action, "e1", value, locator, True, "", "", "", "", "")

    ops = [
        op_for(act(1, "fill", "{env.HOME} {a}"), {"a": "{a}"}),
        op_for(act(2, "press", "}"), {}),
        op_for(act(3, "upload", "{x}.txt"), {}),
    ]
    assert ops == [
        {"fill": {"selector": 'role=textbox[name="Q"]', "value": "{{env.HOME}} {a}"}},
        {"press": {"selector": 'role=textbox[name="Q"]', "key": "}}"}},
        {"upload": {"selector": 'role=textbox[name="Q"]', "files": "{{x}}.txt"}},
    ]
    values = Values({"a": "{{a}}"})
    assert values.render(ops[0]["fill"]["value"]) == "{env.HOME} {a}"


# ----------------------------------------------------------------------------- cost, in a process of its own


def _peak(args: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """The import run in a process of its own: its result, peak RSS (MB) and CPU seconds."""
    import resource  # noqa: PLC0415 - Unix only, as the measurement

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-m", "pytest_reuseit.cli", "import", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return done, after.ru_maxrss / 1024, cpu


@pytest.mark.slow
def test_a_zip_bomb_and_a_50_mb_recording_cost_little(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.zip"
    _bomb(bomb, blocks=224)  # 1.75 GB of line breaks in a 1.7 MB zip
    big = tmp_path / "big.json"
    big.write_bytes(_recording(*[_click()] * 1_000_000))
    assert big.stat().st_size > 30 * limits.MB
    for source, says in ((bomb, "over the limit of 64 MB"), (big, "over the limit of 10 MB for a recording")):
        done, mb, cpu = _peak([str(source), "--no-derive", "-o", str(tmp_path / "out")], tmp_path)
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert done.stdout.startswith(f"cannot import {source}: ") and says in done.stdout.splitlines()[0]
        assert mb < 600 and cpu < 30, (source.name, mb, cpu)


# ----------------------------------------------------------------------------- the import's own runs


class _Seen:
    def __init__(self) -> None:
        self.requests: list[str] = []

    def handler(self, body: Callable[[str], str]) -> type[BaseHTTPRequestHandler]:
        seen = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
                seen.requests.append(self.path)
                page = body(self.path).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                pass

        return Handler


@pytest.mark.slow
def test_the_imports_runs_type_braces_literally_and_open_no_other_origin(tmp_path: Path) -> None:
    other = _Seen()
    site = _Seen()
    with Served(other.handler(lambda _: "elsewhere")) as elsewhere:
        page = (
            "<!doctype html><title>Form</title><input id=q aria-label=Query>"
            "<button onclick=\"fetch('/typed?v=' + encodeURIComponent(q.value))\">Send</button>"
        )
        leaky = page + f"<img src='{elsewhere.url}/pixel.gif'>"
        away = page.replace(
            "fetch('/typed?v=' + encodeURIComponent(q.value))", f"location.href = '{elsewhere.url}/gone'"
        )

        def body(path: str) -> str:
            return leaky if path.startswith("/leaky") else away if path.startswith("/away") else page

        with Served(site.handler(body)) as served:
            good = tmp_path / "good.json"
            good.write_text(
                json.dumps(
                    {
                        "title": "typed",
                        "steps": [
                            {"type": "navigate", "url": f"{served.url}/form"},
                            {"type": "change", "value": "{env.HOME}", "selectors": [["#q"]]},
                            {"type": "click", "offsetX": 1, "offsetY": 1, "selectors": [["#send"], ["button"]]},
                        ],
                    }
                )
            )
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pytest_reuseit.cli",
                    "import",
                    str(good),
                    "--runs",
                    "1",
                    "-o",
                    str(tmp_path / "a"),
                ],
                capture_output=True,
                text=True,
                cwd=ROOT,
                timeout=300,
            )
            assert done.returncode == 0, done.stdout + done.stderr
            typed = [r for r in site.requests if r.startswith("/typed")]
            assert typed and all(r == "/typed?v=%7Benv.HOME%7D" for r in typed), site.requests
            # The page's own request elsewhere (an image): aborted, counted, and the import goes on.
            leak = tmp_path / "leak.json"
            leak.write_text(good.read_text().replace("/form", "/leaky"))
            leaked = _import_cli(leak, tmp_path / "b")
            # A page going elsewhere (the step's own click follows a link there): the run fails, naming it.
            going = tmp_path / "away.json"
            going.write_text(good.read_text().replace("/form", "/away"))
            went = _import_cli(going, tmp_path / "c")
    assert leaked.returncode == 0, leaked.stdout + leaked.stderr
    # One image per page load, one load per run (2 runs); a load retried on a busy machine asks again.
    counted = re.search(
        rf"(\d+) requests the pages made by themselves to other origins aborted, never sent \({re.escape(elsewhere.url)} (\d+)\)",
        leaked.stdout.splitlines()[0],
    )
    assert counted and counted.group(1) == counted.group(2) and int(counted.group(1)) >= 2, leaked.stdout
    assert (
        f"; {counted.group(1)} requests the pages made by themselves to other origins aborted"
        in leaked.stdout.splitlines()[-1]
    )
    assert went.returncode == 2, went.stdout + went.stderr
    line = went.stdout.splitlines()[0]
    assert line.startswith(f"cannot import {going}: the site breaks the import's run to derive checks (navigated to ")
    assert f"{elsewhere.url}/gone, outside the origins this run may open" in line
    assert other.requests == []  # never sent: neither the image nor the page
    assert not (tmp_path / "c").exists()


def _import_cli(source: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_reuseit.cli", "import", str(source), "--runs", "1", "-o", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
