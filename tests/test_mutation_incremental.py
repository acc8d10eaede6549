"""reuseit mutate --incremental: the last report's verdicts are kept for the mutants whose
workflow file, target and pages did not change; only the others run (mutation/incremental.py)."""

from __future__ import annotations

import functools
import shutil
import time
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from tests.support.serve import Served
from tests.test_mutation import WORKFLOWS, mutate, report_of
from tests.test_mutation_rerender import RERENDER

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PAGES = Path(__file__).parent / "pages" / "mutation"


class _QuietFiles(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


def _by_file(report: dict[str, Any]) -> dict[str, list[tuple[str, str, bool]]]:
    out: dict[str, list[tuple[str, str, bool]]] = {}
    for m in report["reuseit"]["mutants"]:
        out.setdefault(m["target"]["file"], []).append((m["operator"], m["outcome"], m["reused"]))
    return out


def test_only_what_changed_runs_again(tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(PAGES, site / "mutation")
    work = tmp_path / "work"
    work.mkdir()
    (work / "strong.reuseit.yaml").write_text(WORKFLOWS["strong"], encoding="utf-8")
    (work / "rerender.reuseit.yaml").write_text(RERENDER, encoding="utf-8")
    with Served(functools.partial(_QuietFiles, directory=str(site))) as served:

        def run(*flags: str) -> tuple[float, dict[str, Any], str]:
            started = time.monotonic()
            proc = mutate(
                work,
                ".",
                "--operators",
                "element_removed,number_off_by_one,banner",
                # One mutant of each operator for each file (the sample is the same every time):
                # what is kept or run again is decided file by file, not mutant by mutant.
                "--max-mutants",
                "6",
                *flags,
                pytest_args=("--base-url", served.url, "--reuseit-llm", "off"),
            )
            return time.monotonic() - started, report_of(work), proc.stdout + proc.stderr

        _, first, out = run("--incremental")  # no earlier report: every mutant runs
        assert "incremental: no earlier report at reuseit-output/mutation.json: every mutant runs" in out, out
        assert not any(m["reused"] for m in first["reuseit"]["mutants"])
        verdicts = {f: [(op, o) for op, o, _ in ms] for f, ms in _by_file(first).items()}
        assert set(verdicts) == {"strong.reuseit.yaml", "rerender.reuseit.yaml"}
        assert all(
            sorted(op for op, _ in v) == ["banner", "element_removed", "number_off_by_one"] for v in verdicts.values()
        )

        # Nothing changed: every verdict kept, no mutant runs, the same outcomes.
        _, same, out = run("--incremental")
        total = len(same["reuseit"]["mutants"])
        assert f"incremental: {total} of {total} verdicts kept" in out and "; 0 mutant(s) to run" in out, out
        assert {f: [(op, o) for op, o, _ in ms] for f, ms in _by_file(same).items()} == verdicts
        assert all(m["reused"] for m in same["reuseit"]["mutants"])
        assert same["reuseit"]["summary"]["reused"] == total
        assert same["reuseit"]["summary_line"].startswith(first["reuseit"]["summary_line"].split(";")[0])

        # One workflow file edited: its mutants run again, the other file's are kept.
        edited = RERENDER.replace("name: Rerender", "name: Rerender (edited)")
        (work / "rerender.reuseit.yaml").write_text(edited, encoding="utf-8")
        _, after_edit, out = run("--incremental")
        by_file = _by_file(after_edit)
        assert not any(reused for _, _, reused in by_file["rerender.reuseit.yaml"]), by_file
        assert all(reused for _, _, reused in by_file["strong.reuseit.yaml"]), by_file

        # The page under one workflow changed: only its mutants run again.
        shop = site / "mutation" / "shop.html"
        shop.write_text(shop.read_text(encoding="utf-8").replace("<h1>Basket</h1>", "<h1>Your basket</h1>"))
        _, after_page, out = run("--incremental")
        by_file = _by_file(after_page)
        assert not any(reused for _, _, reused in by_file["strong.reuseit.yaml"]), by_file
        assert all(reused for _, _, reused in by_file["rerender.reuseit.yaml"]), by_file
        # Without --incremental, everything runs again.
        _, full, _ = run()
        assert not any(m["reused"] for m in full["reuseit"]["mutants"])
