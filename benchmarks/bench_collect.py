"""Collection of 500 workflow files: how long pytest takes to collect a large suite, in CPU
seconds (collection is single-threaded) and wall time; a row of run.py.

    python benchmarks/run.py --only collect
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import bench_engine
from table import ROWS, Row, log, med, pytest_env

COLLECT_CHILD = r"""
import json, resource, sys, time
import pytest

class Clock:
    def pytest_collection(self, session):
        self.wall, self.cpu = time.perf_counter(), time.process_time()
    def pytest_collection_finish(self, session):
        self.wall, self.cpu = time.perf_counter() - self.wall, time.process_time() - self.cpu
        self.items = len(session.items)

started = time.perf_counter()
clock = Clock()
code = pytest.main(["-p", "no:cacheprovider", "--collect-only", "-q", *sys.argv[2:]], plugins=[clock])
usage = resource.getrusage(resource.RUSAGE_SELF)
result = {"code": int(code), "items": clock.items, "collect_wall": clock.wall, "collect_cpu": clock.cpu,
          "process_cpu": usage.ru_utime + usage.ru_stime, "process_wall": time.perf_counter() - started}
open(sys.argv[1], "w").write(json.dumps(result))
"""


def write_corpus(folder: Path, files: int, variations: int) -> None:
    """``files`` copies of the benchmark workflow with ``variations`` variations each; and the same
    number of plain pytest files with one test parametrized ``variations`` times (the baseline)."""
    text = bench_engine.WORKFLOW.read_text(encoding="utf-8")
    block = "variations:\n" + "".join(
        f'  - id: v{i}\n    kind: attribute\n    params: {{product: "product {i}"}}\n' for i in range(variations)
    )
    text = text.replace("tags: [benchmark]\n", "tags: [benchmark]\n" + block)
    (folder / "workflows").mkdir(parents=True)
    (folder / "plain").mkdir()
    for i in range(files):
        (folder / "workflows" / f"flow{i:03d}.reuseit.yaml").write_text(
            text.replace("name: Benchmark", f"name: Benchmark {i}"), encoding="utf-8"
        )
        (folder / "plain" / f"test_flow{i:03d}.py").write_text(
            f"import pytest\n\n\n@pytest.mark.parametrize('v', range({variations}))\ndef test_flow{i}(v):\n    assert v >= 0\n",
            encoding="utf-8",
        )


def collect_once(folder: Path, target: str, expect: int) -> dict[str, float]:
    result_file = folder / f"result-{target}.json"
    proc = subprocess.run(
        [sys.executable, "-c", COLLECT_CHILD, str(result_file), target],
        cwd=folder,
        env=pytest_env(),
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise SystemExit(f"collection of {target} failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    data: dict[str, float] = json.loads(result_file.read_text())
    if data["items"] != expect:
        raise SystemExit(f"collection of {target}: {data['items']} items, expected {expect}")
    return data


def row_collect(quick: bool, files: int = 500, variations: int = 10) -> None:
    repeats = 1 if quick else 3
    with tempfile.TemporaryDirectory(prefix="reuseit-run-collect-") as tmp:
        folder = Path(tmp)
        write_corpus(folder, files, variations)
        ours, plain = [], []
        for i in range(repeats):
            pair = [
                ("workflows", ours),
                ("plain", plain),
            ]
            for target, into in pair if i % 2 == 0 else reversed(pair):
                into.append(collect_once(folder, target, files * variations))
    cpu = med([d["collect_cpu"] for d in ours])
    wall = med([d["collect_wall"] for d in ours])
    proc_cpu = med([d["process_cpu"] for d in ours])
    base_cpu = med([d["collect_cpu"] for d in plain])
    ROWS.append(
        Row(
            f"collection of {files} workflow files ({files * variations:,} items)",
            "≤ 3 s",
            f"{cpu:.2f} s CPU",
            cpu <= 3,
            f"{cpu / base_cpu:.2f}× pytest collecting {files} plain test files with the same items ({base_cpu:.2f} s CPU); "
            f"wall {wall:.2f} s at this load; whole process {proc_cpu:.2f} s CPU",
        )
    )
    log(f"collect: {cpu:.2f} s cpu ({cpu / base_cpu:.2f}x plain)")
