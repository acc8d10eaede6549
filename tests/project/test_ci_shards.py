"""The nightly templates' sharding: pytest-split picks each shard's workflows, every shard's
Allure results, new cache entries and durations are merged by ci/merge_shards.py for one report
and the next run.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.paths import ROOT


def merge_shards() -> ModuleType:
    spec = importlib.util.spec_from_file_location("merge_shards", ROOT / "ci" / "merge_shards.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_merge_takes_every_result_the_first_answer_of_a_key_and_the_newest_durations(tmp_path: Path) -> None:
    old_cache, shards = tmp_path / "cache", tmp_path / "shards"
    write(old_cache / "aa" / "aa1.json", '{"answer": "old"}')
    write(tmp_path / ".test_durations", json.dumps({"t::a": 1.0, "t::b": 2.0, "t::gone": 9.0}))
    write(shards / "shard-1" / "allure-results" / "u1-result.json", "{}")
    write(shards / "shard-1" / "cache" / "aa" / "aa1.json", '{"answer": "shard 1 again"}')
    write(shards / "shard-1" / "cache" / "bb" / "bb1.json", '{"answer": "1"}')
    write(shards / "shard-1" / "cache" / "bb" / "bb1.json.lock", "")
    write(shards / "shard-1" / "durations.json", json.dumps({"t::a": 1.5}))
    write(shards / "shard-2" / "allure-results" / "u2-result.json", "{}")
    write(shards / "shard-2" / "allure-results" / "u2-attachment.png", "png")
    write(shards / "shard-2" / "cache" / "bb" / "bb1.json", '{"answer": "2"}')
    write(shards / "shard-2" / "cache" / "cc" / ".cc1.json.123.tmp", "half")
    write(shards / "shard-2" / "durations.json", json.dumps({"t::b": 2.5, "t::new": 0.5}))

    code = merge_shards().main(
        [
            str(shards / "shard-1"),
            str(shards / "shard-2"),
            str(shards / "shard-3"),  # a shard that left nothing (cancelled): merged without it
            "--results",
            str(tmp_path / "allure-results"),
            "--cache",
            str(old_cache),
            "--durations",
            str(tmp_path / ".test_durations"),
        ]
    )
    assert code == 0
    assert sorted(p.name for p in (tmp_path / "allure-results").iterdir()) == [
        "u1-result.json",
        "u2-attachment.png",
        "u2-result.json",
    ]
    files = sorted(str(p.relative_to(old_cache)) for p in old_cache.rglob("*") if p.is_file())
    assert files == ["aa/aa1.json", "bb/bb1.json"]  # no lock file, no half-written temporary file
    assert json.loads((old_cache / "aa" / "aa1.json").read_text()) == {"answer": "old"}  # kept
    assert json.loads((old_cache / "bb" / "bb1.json").read_text()) == {"answer": "1"}  # first shard's
    durations = json.loads((tmp_path / ".test_durations").read_text())
    assert durations == {"t::a": 1.5, "t::b": 2.5, "t::gone": 9.0, "t::new": 0.5}


SHARDED = (
    'name: sharded\ntask: open the demo shop\nstart_url: "{demo_url}/index.html?cookies=never"\n'
    "variations: [{id: a}, {id: b}, {id: c}, {id: d}, {id: e}]\n"
    "steps:\n  - action: look\n    do: [{wait: 1}]\n    post: [{expect: {title: {contains: Trailhead}}}]\n"
)


@pytest.mark.slow
def test_two_shards_run_every_workflow_once_and_merge_into_one_result_set(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytest.importorskip("pytest_split")
    pytester.path.joinpath("sharded.reuseit.yaml").write_text(SHARDED)
    shards = tmp_path / "shards"
    # The two shards run at the same time, as CI's parallel jobs do (and in the time of one): each
    # has its own durations file, results folder and base temporary folder.
    running = []
    for group in (1, 2):
        shard = shards / f"shard-{group}"
        log = tmp_path / f"shard-{group}.log"
        with log.open("w") as out:
            proc = pytester.popen(
                [
                    sys.executable, "-m", "pytest", f"--basetemp={tmp_path / f'basetemp-{group}'}",
                    "-p", "no:cacheprovider", "--reuseit-llm", "off",
                    "--splits", "2", "--group", str(group),
                    "--durations-path", str(shard / "durations.json"), "--store-durations", "--clean-durations",
                    "--alluredir", str(shard / "allure-results"),
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=pytester.path,
            )  # fmt: skip
        running.append((proc, log))
    for proc, log in running:
        assert proc.wait(timeout=300) == 0, log.read_text()[-2000:]
    ran = [set(json.loads((shards / f"shard-{g}" / "durations.json").read_text())) for g in (1, 2)]
    assert ran[0] and ran[1] and not ran[0] & ran[1]  # each shard ran some, none ran twice
    proc = subprocess.run(
        [sys.executable, str(ROOT / "ci" / "merge_shards.py"), str(shards / "shard-1"), str(shards / "shard-2")],
        cwd=pytester.path,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    results = [json.loads(p.read_text()) for p in (pytester.path / "allure-results").glob("*-result.json")]
    assert sorted(r["name"] for r in results) == [f"sharded [{v}]" for v in "abcde"]
    assert all(r["status"] == "passed" for r in results)
    assert set(json.loads((pytester.path / ".test_durations").read_text())) == ran[0] | ran[1]
