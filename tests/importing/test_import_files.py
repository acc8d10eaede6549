"""The files a source uploads, copied beside the workflow (``files/NAME``), bounded like every
other input: from the bytes a trace keeps or the path it names (under the project or the
trace's own folder), a size limit, plain names only, nothing written through a link; a file
found nowhere is said, with where to put it."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_reuseit.browser.session import BrowserSession, NavigationFence
from pytest_reuseit.importing import files
from pytest_reuseit.importing.demo import Demonstration, DemoStep, UnreadableInput, Upload
from pytest_reuseit.importing.playwright import trace
from tests.support.paths import ROOT
from tests.support.serve import Pages, Served

CSV = b"item,amount\npen,3\nink,4\n"


def _demo(*uploads: Upload) -> Demonstration:
    step = DemoStep("upload", files=tuple(uploads), value=", ".join(u.name for u in uploads))
    return Demonstration("upload", "t.zip", [DemoStep("goto", value="http://127.0.0.1:1/"), step])


def _copy(demo: Demonstration, out: Path, source: Path | None = None, *, force: bool = False) -> list[Path]:
    return files.copy(files.plan(source or out.parent / "trace.zip", demo, out, force=force))


def test_the_bytes_a_trace_keeps_and_a_file_under_the_project_are_copied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "orders.csv").write_bytes(CSV)
    out = tmp_path / "imported"
    given = Upload("notes.txt", base64=base64.b64encode(b"a note").decode())
    created = _copy(_demo(Upload("orders.csv", path=str(tmp_path / "data" / "orders.csv")), given), out)
    assert sorted(p.name for p in created) == ["notes.txt", "orders.csv"]
    assert (out / "files" / "orders.csv").read_bytes() == CSV and (
        out / "files" / "notes.txt"
    ).read_bytes() == b"a note"
    # Again: the same bytes are there already, nothing new.
    assert _copy(_demo(Upload("orders.csv", path="data/orders.csv")), out) == []


def test_a_file_elsewhere_or_missing_is_said_with_where_to_put_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    secret = tmp_path / "id_rsa"
    secret.write_text("not for a workflow folder")
    out = project / "imported"
    with pytest.raises(UnreadableInput, match=r"which is outside .*: not copied from there: put it at .*files/id_rsa"):
        _copy(_demo(Upload("id_rsa", path=str(secret))), out)
    link = project / "data.csv"
    link.symlink_to(secret)  # a link inside the project to a file outside it: the same
    with pytest.raises(UnreadableInput, match="outside"):
        _copy(_demo(Upload("data.csv", path=str(link))), out)
    with pytest.raises(UnreadableInput, match=r"/gone/orders.csv, which cannot be found: put it at .*files/orders.csv"):
        _copy(_demo(Upload("orders.csv", path="/gone/orders.csv")), out)
    assert not (out / "files" / "id_rsa").exists() and not (out / "files" / "data.csv").exists()
    # Put there by hand, as the line said: the import goes on with it.
    (out / "files").mkdir(parents=True)
    (out / "files" / "orders.csv").write_bytes(CSV)
    assert _copy(_demo(Upload("orders.csv", path="/gone/orders.csv")), out) == []


@pytest.mark.parametrize(
    "name", ["../escape.csv", "a/b.csv", "..", "", "x\nname.csv", "C:\\x.csv", ".hidden", "x" * 300]
)
def test_a_name_that_is_no_plain_file_name_is_refused(tmp_path: Path, name: str) -> None:
    given = Upload(name, base64=base64.b64encode(b"x").decode())
    with pytest.raises(UnreadableInput, match="no plain file name"):
        _copy(_demo(given), tmp_path / "out")
    assert not (tmp_path / "escape.csv").exists() and not (tmp_path / "out").exists()


def test_past_the_size_limit_other_bytes_there_and_a_linked_folder_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(files, "MAX_UPLOAD_BYTES", 10)
    big = tmp_path / "big.csv"
    big.write_bytes(b"x" * 11)
    out = tmp_path / "out"
    with pytest.raises(UnreadableInput, match="over the limit of"):
        _copy(_demo(Upload("big.csv", path=str(big))), out)
    with pytest.raises(UnreadableInput, match="over the limit of"):
        _copy(_demo(Upload("big.csv", base64=base64.b64encode(b"x" * 400).decode())), out)
    with pytest.raises(UnreadableInput, match="are not base64"):
        _copy(_demo(Upload("a.csv", base64="%%%")), out)
    (out / "files").mkdir(parents=True)
    (out / "files" / "a.csv").write_bytes(b"mine")
    theirs = Upload("a.csv", base64=base64.b64encode(b"other").decode())
    with pytest.raises(UnreadableInput, match=r"exists with other bytes .*--force replaces it"):
        _copy(_demo(theirs), out)
    _copy(_demo(theirs), out, force=True)
    assert (out / "files" / "a.csv").read_bytes() == b"other"
    (tmp_path / "elsewhere").mkdir()
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "files").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(UnreadableInput, match="not a folder of its own"):
        _copy(_demo(theirs), linked)
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_a_trace_names_each_file_by_its_path_or_keeps_its_bytes() -> None:
    local = {"selector": "#f", "localPaths": ["/home/me/project/data/orders.csv"]}
    step = trace._action_step("Frame", "setInputFiles", local, "")  # noqa: SLF001 - the reader of one call
    assert step is not None and step.files == (Upload("orders.csv", path="/home/me/project/data/orders.csv"),)
    windows = trace._action_step("Frame", "setInputFiles", {"localPaths": ["C:\\data\\orders.csv"]}, "")  # noqa: SLF001
    assert windows is not None and windows.files[0].name == "orders.csv"
    payload = {"selector": "#f", "payloads": [{"name": "a.csv", "mimeType": "text/csv", "buffer": "eA=="}]}
    given = trace._action_step("Frame", "setInputFiles", payload, "")  # noqa: SLF001
    assert given is not None and given.files == (Upload("a.csv", base64="eA=="),) and given.value == "a.csv"
    # A folder, or files streamed to a remote browser: no file by name, said as not imported.
    assert trace._action_step("Frame", "setInputFiles", {"selector": "#f", "localDirectory": "/d"}, "") is None  # noqa: SLF001


_FORM = """<!doctype html><title>Orders</title>
<label for=f>Orders file</label><input type=file id=f>
<p id=out>no file</p>
<script>
f.addEventListener('change', async () => {
  const text = await f.files[0].text();
  out.textContent = f.files[0].name + ': ' + (text.trim().split('\\n').length - 1) + ' orders';
});
</script>"""


@pytest.mark.slow
@pytest.mark.browser
def test_an_uploads_file_is_copied_from_the_trace_and_the_workflow_passes(
    browser_session: BrowserSession, tmp_path: Path
) -> None:
    data = tmp_path / "data" / "orders.csv"
    data.parent.mkdir()
    data.write_bytes(CSV)
    with Served(Pages({"/": _FORM}).handler()) as served:
        for how, folder in (("path", "upload-by-path"), ("bytes", "upload-by-bytes")):
            context = browser_session.new_context({}, NavigationFence(("127.0.0.1",)))
            context.tracing.start(screenshots=True, snapshots=True, sources=True)
            page = context.new_page()
            page.goto(served.url + "/")
            given = {"name": "orders.csv", "mimeType": "text/csv", "buffer": CSV}
            page.get_by_label("Orders file").set_input_files(data if how == "path" else given)  # type: ignore[arg-type]
            page.get_by_text("orders.csv: 2 orders").wait_for()
            context.tracing.stop(path=str(tmp_path / folder / "trace.zip"))
            context.close()
        done = subprocess.run(
            [sys.executable, "-m", "pytest_reuseit.cli", "import", str(tmp_path / "upload-by-path" / "trace.zip")]
            + [str(tmp_path / "upload-by-bytes" / "trace.zip"), "-o", str(tmp_path / "out"), "--runs", "1"],
            capture_output=True,
            text=True,
            cwd=tmp_path,  # the folder the import runs in holds the file the trace names
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            timeout=300,
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "imported 2 workflows" in done.stdout, done.stdout
    assert (tmp_path / "out" / "files" / "orders.csv").read_bytes() == CSV
    text = "\n".join(p.read_text() for p in (tmp_path / "out").glob("*.reuseit.yaml"))
    assert text.count("{upload: {label: Orders file, files: [files/orders.csv]}}") == 2, text
    # Moved elsewhere, the path it names is gone and nothing is there: said, nothing written.
    data.unlink()
    again = subprocess.run(
        [sys.executable, "-m", "pytest_reuseit.cli", "import", str(tmp_path / "upload-by-path" / "trace.zip")]
        + ["-o", str(tmp_path / "elsewhere"), "--no-derive"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
    )
    assert again.returncode == 2, again.stdout + again.stderr
    assert "orders.csv, which cannot be found: put it at " in again.stdout, again.stdout
    assert not (tmp_path / "elsewhere").exists() or not list((tmp_path / "elsewhere").rglob("*.yaml"))
