"""The ``reuseit`` command: schema and validate (no browser)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from pytest_reuseit.cli import main
from pytest_reuseit.workflow.model import SCHEMA_ID
from pytest_reuseit.workflow.schema import schema_text
from tests.support.paths import ROOT

SHIPPED_SCHEMA = ROOT / "pytest_reuseit" / "schema" / "workflow.json"
WORKFLOWS = ROOT / "workflows"

GOOD = """\
name: Good
task: t
start_url: "{base_url}/"
variations: [{id: a}, {id: b}]
steps:
  - action: click
    do: [{click: "#go"}]
"""

BAD = """\
name: Bad
task: t
start_url: "{base_url}/"
steps:
  - action: click
    do:
      - clik: "#go"
  - action: more
    psot: []
"""


def reuseit_command() -> list[str]:
    found = shutil.which("reuseit") or (
        str(Path(sys.executable).parent / "reuseit") if (Path(sys.executable).parent / "reuseit").exists() else None
    )
    return [found] if found else [sys.executable, "-m", "pytest_reuseit.cli"]


def test_schema_prints_json_with_id(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    out = capsys.readouterr().out
    schema = json.loads(out)
    assert schema["$id"] == SCHEMA_ID
    assert schema["title"] == "pytest-reuseit guarded workflow"
    assert out == schema_text()


@pytest.mark.slow
def test_schema_as_a_real_command() -> None:
    proc = subprocess.run([*reuseit_command(), "schema"], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["$id"] == SCHEMA_ID
    assert proc.stdout == schema_text()


@pytest.mark.slow
def test_module_entry_point() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest_reuseit.cli", "schema"], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["$id"] == SCHEMA_ID


def test_schema_output_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "workflow.json"
    assert main(["schema", "-o", str(target)]) == 0
    assert capsys.readouterr().out == f"wrote {target}\n"
    assert target.read_text(encoding="utf-8") == schema_text()


def test_shipped_schema_is_current() -> None:
    assert SHIPPED_SCHEMA.is_file(), "regenerate with: reuseit schema -o pytest_reuseit/schema/workflow.json"
    assert SHIPPED_SCHEMA.read_text(encoding="utf-8") == schema_text(), (
        "pytest_reuseit/schema/workflow.json is stale: reuseit schema -o pytest_reuseit/schema/workflow.json"
    )


def test_validate_every_shipped_workflow(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # validate also checks that every {secret.X} is set: the demo login's is exported by the CI scripts.
    monkeypatch.setenv("DEMO_PASSWORD", "demo-pass")
    monkeypatch.setenv("ADMIN_PASSWORD", "admin-pass")  # the example admin site's, likewise
    files = sorted(WORKFLOWS.rglob("*.reuseit.y*ml"))
    assert files
    assert main(["validate", str(WORKFLOWS)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == f"{len(files)} valid, 0 invalid"
    assert [line for line in out.splitlines() if line.startswith("ok      ")] == [
        line for line in out.splitlines()[:-1]
    ]
    assert len(out.splitlines()) == len(files) + 1
    assert "INVALID" not in out


def test_validate_bad_file_lists_problems_with_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.reuseit.yaml"
    bad = tmp_path / "bad.reuseit.yml"
    good.write_text(GOOD, encoding="utf-8")
    bad.write_text(BAD, encoding="utf-8")
    assert main(["validate", str(tmp_path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        f"INVALID {bad}",
        f"  {bad}:7: steps[0].do[0].clik: unknown key 'clik' (did you mean 'click'?)",
        f"  {bad}:9: steps[1].psot: unknown key 'psot' (did you mean 'post'?)",
        f"ok      {good}: 'Good', 1 steps, 2 variation(s)",
        "1 valid, 1 invalid",
    ]


def test_validate_names_the_conftest_whose_own_ops_it_does_not_know(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "conftest.py").write_text(
        "def pytest_reuseit_ops(registry):\n"
        "    registry.register('clear_cookies', None, 'Forget every cookie.', lambda ctx, arg: None, bare=True)\n",
        encoding="utf-8",
    )
    flows = tmp_path / "flows"
    flows.mkdir()
    own = GOOD.replace("steps:", "steps:\n  - action: Forget\n    do: [clear_cookies]", 1)
    (flows / "own.reuseit.yaml").write_text(own, encoding="utf-8")
    (flows / "good.reuseit.yaml").write_text(GOOD, encoding="utf-8")
    assert main(["validate", str(flows)]) == 1
    out = capsys.readouterr().out
    assert "INVALID" in out and "'clear_cookies'" in out, out
    assert out.splitlines()[-1] == (
        f"note: {tmp_path.resolve() / 'conftest.py'} registers the suite's own ops (pytest_reuseit_ops), "
        "which this command does not know: run pytest on the files to check them with those ops (an invalid file "
        "fails at once, before a browser starts)"
    )
    # Only an invalid file calls for it: the valid one alone gets no note.
    assert main(["validate", str(flows / "good.reuseit.yaml")]) == 0
    assert "note:" not in capsys.readouterr().out


def test_validate_single_files_and_unparseable_yaml(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.reuseit.yaml"
    broken.write_text("name: n\ntask: [t\n", encoding="utf-8")
    assert main(["validate", str(broken)]) == 1
    out = capsys.readouterr().out
    assert out.splitlines() == [
        f"INVALID {broken}",
        f"  {broken}:3:1: invalid YAML: expected ',' or ']', but got '<stream end>'",
        "0 valid, 1 invalid",
    ]
    good = tmp_path / "good.reuseit.yaml"
    good.write_text(GOOD, encoding="utf-8")
    assert main(["validate", str(good)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1 valid, 0 invalid"


def test_validate_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.reuseit.yaml"
    assert main(["validate", str(missing)]) == 1
    out = capsys.readouterr().out
    assert f"  {missing}:1: cannot read the file" in out


def test_validate_empty_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "other.yaml").write_text("name: not a workflow\n", encoding="utf-8")
    assert main(["validate", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.err == "no workflow files found (*.reuseit.yaml / *.reuseit.yml)\n"
    assert captured.out == ""


@pytest.mark.slow
def test_validate_as_a_real_command_exit_codes(tmp_path: Path) -> None:
    (tmp_path / "bad.reuseit.yaml").write_text(BAD, encoding="utf-8")
    proc = subprocess.run(
        [*reuseit_command(), "validate", str(tmp_path)], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 1
    assert f"{tmp_path / 'bad.reuseit.yaml'}:7: steps[0].do[0].clik" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr


def test_no_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([])
    assert info.value.code == 2
    assert "usage: reuseit" in capsys.readouterr().err


def test_the_readme_example_workflow_is_valid() -> None:
    """The README's example is what users copy first: it must load with the real loader."""
    import re

    from pytest_reuseit.sites import LocalSites
    from pytest_reuseit.workflow.loader import parse

    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```yaml\n(.*?)```", readme, re.S)
    assert block, "README.md has no yaml example"
    loaded = parse(block.group(1), "README.md example", builtin_names=LocalSites.NAMES)
    assert [v.id for v in loaded.workflow.all_variations()] == ["original", "attribute"]
    assert loaded.workflow.steps[0].fallback and loaded.workflow.steps[0].do


@pytest.mark.parametrize(
    ("content", "why"),
    [
        pytest.param(b"root:x:0:0:root:/root:/bin/bash\n", "not a zip", id="text"),
        pytest.param(b"", "empty", id="empty"),
        pytest.param(None, "a zip of something else", id="other-zip"),
    ],
)
def test_trace_of_a_file_that_is_no_trace_is_refused_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | None, why: str
) -> None:
    path = tmp_path / "trace.zip"
    if content is None:
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("notes.txt", "hello")
    else:
        path.write_bytes(content)
    # The viewer would start and serve an empty page for ever; the command says what is wrong.
    assert main(["trace", str(path), "--no-open"]) == 2, why
    assert f"{path} is not a Playwright trace (a zip with trace.trace in it)" in capsys.readouterr().err
