"""What Python teams' own suites meet: pytest-playwright traces of Streamlit, Gradio, Dash and
NiceGUI tools, imported into workflows that pass 3 runs of 3.

Each framework's small tool (tests/support/apps/) is served on 127.0.0.1 by a process of its
own; its flows (tests/suites/frameworks/test_<framework>.py: a greeting, an orders file
uploaded, for Streamlit a quantity edited in its canvas data grid by a double-click at a cell)
are run by pytest-playwright with ``--tracing on`` as the team runs them; ``reuseit import``
reads the traces, and the workflows are run three times with pytest against the same tool.
What each one meets: Streamlit's page asks data.streamlit.io for usage statistics (aborted and
counted, the import goes on); every upload's file is copied beside the workflows; the grid's
cell is double-clicked where the test did; Streamlit's and Gradio's generic test ids give way
to what a person reads.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.frameworks import available, missing_reason, serve_app
from tests.support.paths import ROOT

SUITE = ROOT / "tests" / "suites" / "frameworks"
PYTEST_PLAYWRIGHT = ROOT / ".suites" / "pytest-playwright"
# The flows of each tool's suite.
FLOWS = {"streamlit": 3, "gradio": 2, "dash": 2, "nicegui": 2}

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not PYTEST_PLAYWRIGHT.is_dir(), reason="pytest-playwright is not installed: bash ci/install.sh"),
]


def _run(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, cwd=cwd, env={**os.environ, **env}, timeout=timeout)


def _trace_the_suite(name: str, url: str, results: Path) -> None:
    """The tool's pytest-playwright suite, run as its team runs it: ``--tracing on``."""
    ran = _run(
        [sys.executable, "-m", "pytest", f"test_{name}.py", "-p", "no:reuseit", "-p", "no:dash", "--tracing", "on"]
        + ["--output", str(results), "-p", "no:cacheprovider", "-q", "--confcutdir=.", "-c", "/dev/null"]
        + ["--rootdir=."],
        SUITE,
        {"APP_URL": url, "PYTHONPATH": str(PYTEST_PLAYWRIGHT)},
    )
    assert f"{FLOWS[name]} passed" in ran.stdout, ran.stdout[-3000:] + ran.stderr[-2000:]


def _passes_three_runs(name: str, folder: Path, url: str) -> list[float]:
    """The written workflows run three times with pytest against the tool; seconds per run."""
    seconds = []
    for run in range(3):
        started = time.monotonic()
        result = _run(
            [sys.executable, "-m", "pytest", str(folder), f"--base-url={url}", "-p", "no:cacheprovider", "-q"],
            folder,
            {"PYTHONPATH": str(ROOT)},  # this checkout's package, whatever folder the run starts in
        )
        seconds.append(time.monotonic() - started)
        summary = f"{FLOWS[name]} passed, 0 recovered, 0 healed, 0 failed, 0 broken"
        assert summary in result.stdout, f"run {run + 1} of 3:\n{result.stdout[-4000:]}"
    return seconds


@pytest.mark.parametrize("name", list(FLOWS))
def test_a_frameworks_pytest_playwright_traces_import_and_pass_three_runs_of_three(name: str, tmp_path: Path) -> None:
    if not available(name):
        pytest.skip(missing_reason(name))
    work = tmp_path / name
    with serve_app(name, work / "app") as url:
        _trace_the_suite(name, url, work / "results")
        out = work / "imported"
        done = _run(
            [sys.executable, "-m", "pytest_reuseit.cli", "import", str(work / "results"), "-o", str(out)]
            + ["--runs", "2"],
            ROOT,
            {},
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"imported {FLOWS[name]} workflows:" in done.stdout, done.stdout
        text = "\n".join(f.read_text() for f in sorted(out.glob("*.reuseit.yaml")))
        # The file the suite uploaded, beside the workflows, as the workflows name it.
        assert (out / "files" / "orders.csv").read_bytes() == (SUITE / "data" / "orders.csv").read_bytes()
        assert "files: [files/orders.csv]" in text, text
        assert "{click: {role: button, name: Greet" in text, text  # what a person reads
        if name == "streamlit":
            # The page's own request for usage statistics: aborted, counted, and the import went on.
            aborted = re.search(r"(\d+) requests the pages made by themselves to other origins aborted", done.stdout)
            assert aborted and "(https://data.streamlit.io " in done.stdout, done.stdout
            # The grid's cell, double-clicked where the test did (the middle is another cell).
            assert "{dblclick: {test_id: stDataFrame}, position: {x: 240, y: 88}}" in text, text
            assert "{test_id: stBaseButton-primary}" in text  # the test's own test id: the fallback
        seconds = _passes_three_runs(name, out, url)
    print(f"{name}: 3 of 3 runs passed in {', '.join(f'{s:.1f}' for s in seconds)} s")
