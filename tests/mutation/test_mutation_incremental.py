"""reuseit mutate --incremental: the last report's verdicts are kept for the mutants whose
workflow file, target and pages did not change; only the others run (mutation/incremental.py)."""

from __future__ import annotations

import dataclasses
import functools
import shutil
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from pytest_reuseit.mutation import incremental
from pytest_reuseit.mutation.operators import Target
from pytest_reuseit.mutation.plan import Mutant
from pytest_reuseit.mutation.touches import RunTouches
from tests.support import paths
from tests.support.mutate_command import mutate, report_of
from tests.support.mutation_workflows import RERENDER, WORKFLOWS
from tests.support.serve import Served

PAGES = paths.PAGES / "mutation"


class _QuietFiles(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


def _by_file(report: dict[str, Any]) -> dict[str, list[tuple[str, str, bool]]]:
    out: dict[str, list[tuple[str, str, bool]]] = {}
    for m in report["reuseit"]["mutants"]:
        out.setdefault(m["target"]["file"], []).append((m["operator"], m["outcome"], m["reused"]))
    return out


@pytest.mark.browser
@pytest.mark.slow
def test_only_what_changed_runs_again(tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(PAGES, site / "mutation")
    work = tmp_path / "work"
    work.mkdir()
    (work / "strong.reuseit.yaml").write_text(WORKFLOWS["strong"], encoding="utf-8")
    (work / "rerender.reuseit.yaml").write_text(RERENDER, encoding="utf-8")
    with Served(functools.partial(_QuietFiles, directory=str(site))) as served:

        def run(*flags: str, operators: str = "element_removed,banner", sample: int = 4) -> tuple[dict[str, Any], str]:
            proc = mutate(
                work,
                ".",
                "--operators",
                operators,
                # One mutant of each operator for each file (the sample is the same every time):
                # what is kept or run again is decided file by file, not mutant by mutant. A
                # breaking and a benign operator: a kill's verdict depends on the run that killed
                # it, any other on every run that reaches its target (incremental.py).
                "--max-mutants",
                str(sample),
                *flags,
                pytest_args=("--base-url", served.url, "--reuseit-llm", "off"),
            )
            return report_of(work), proc.stdout + proc.stderr

        first, out = run("--incremental")  # no earlier report: every mutant runs
        assert "incremental: no earlier report at reuseit-output/mutation.json: every mutant runs" in out, out
        assert not any(m["reused"] for m in first["reuseit"]["mutants"])
        verdicts = {f: [(op, o) for op, o, _ in ms] for f, ms in _by_file(first).items()}
        assert set(verdicts) == {"strong.reuseit.yaml", "rerender.reuseit.yaml"}
        assert all(sorted(op for op, _ in v) == ["banner", "element_removed"] for v in verdicts.values())

        # Nothing changed: every verdict kept, no mutant runs, the same outcomes.
        same, out = run("--incremental")
        total = len(same["reuseit"]["mutants"])
        assert f"incremental: {total} of {total} verdicts kept" in out and "; 0 mutant(s) to run" in out, out
        assert {f: [(op, o) for op, o, _ in ms] for f, ms in _by_file(same).items()} == verdicts
        assert all(m["reused"] for m in same["reuseit"]["mutants"])
        assert same["reuseit"]["summary"]["reused"] == total
        assert same["reuseit"]["summary_line"].startswith(first["reuseit"]["summary_line"].split(";")[0])

        # One workflow file edited: its mutants run again, the other file's are kept.
        edited = RERENDER.replace("name: Rerender", "name: Rerender (edited)")
        (work / "rerender.reuseit.yaml").write_text(edited, encoding="utf-8")
        after_edit, out = run("--incremental")
        by_file = _by_file(after_edit)
        assert not any(reused for _, _, reused in by_file["rerender.reuseit.yaml"]), by_file
        assert all(reused for _, _, reused in by_file["strong.reuseit.yaml"]), by_file

        # The page under one workflow changed: only its mutants run again.
        shop = site / "mutation" / "shop.html"
        shop.write_text(shop.read_text(encoding="utf-8").replace("<h1>Basket</h1>", "<h1>Your basket</h1>"))
        after_page, out = run("--incremental")
        by_file = _by_file(after_page)
        assert not any(reused for _, _, reused in by_file["strong.reuseit.yaml"]), by_file
        assert all(reused for _, _, reused in by_file["rerender.reuseit.yaml"]), by_file
        # Without --incremental, everything runs again: here each file's breaking mutant, whose
        # verdict the last report holds on the same basis (--incremental would keep both).
        last = {m["incremental"]["identity"]: m["incremental"]["basis"] for m in after_page["reuseit"]["mutants"]}
        full, out = run(operators="element_removed", sample=2)
        mutants = full["reuseit"]["mutants"]
        assert {m["target"]["file"] for m in mutants} == {"strong.reuseit.yaml", "rerender.reuseit.yaml"}, out
        assert all(last[m["incremental"]["identity"]] == m["incremental"]["basis"] for m in mutants), (last, mutants)
        assert not any(m["reused"] for m in mutants) and "incremental:" not in out, out


def _two_files(tmp_path: Path) -> tuple[Mutant, dict[str, RunTouches]]:
    """A mutant of the Add button in a.reuseit.yaml, which b.reuseit.yaml also clicks."""
    for name in ("a", "b"):
        (tmp_path / f"{name}.reuseit.yaml").write_text(f"name: {name}\n", encoding="utf-8")
    target = Target("op", 0, 3, "css='#add'", detail={"css": "#add", "page": "http://127.0.0.1/shop.html"})
    covering = (
        ("a.reuseit.yaml", "a.reuseit.yaml::a[default]", target),
        ("b.reuseit.yaml", "b.reuseit.yaml::b[default]", target),
    )
    m = Mutant("m1", "element_removed", "breaking", "a.reuseit.yaml", covering[0][1], target, covering)
    runs = {nodeid: RunTouches(nodeid, file, "default") for file, nodeid, _ in covering}
    return m, runs


def _record(m: Mutant, outcome: str, tried: list[str], basis: str) -> dict[str, dict[str, object]]:
    tries = [{"nodeid": f"{nodeid}@{m.id}", "outcome": outcome} for nodeid in tried]
    record = {"outcome": outcome, "runs": tries, "run": tries[-1], "incremental": {"basis": basis}}
    return {incremental.identity(m): record}


def test_a_killed_verdict_depends_on_the_runs_that_killed_it_only(tmp_path: Path) -> None:
    """Killed by its own workflow's run: another workflow that clicks the same button being edited
    changes nothing of that verdict (kept); its own file edited, it runs again."""
    m, runs = _two_files(tmp_path)
    own = ["a.reuseit.yaml::a[default]"]
    last = _record(m, "killed", own, incremental.basis(m, runs, tmp_path, own))
    assert incremental.reuse(m, runs, tmp_path, last) is not None
    (tmp_path / "b.reuseit.yaml").write_text("name: b, edited\n", encoding="utf-8")
    kept = incremental.reuse(m, runs, tmp_path, last)
    assert kept is not None and kept.outcome == "killed" and kept.reused
    (tmp_path / "a.reuseit.yaml").write_text("name: a, edited\n", encoding="utf-8")
    assert incremental.reuse(m, runs, tmp_path, last) is None


def test_a_killed_verdict_depends_on_the_first_run_that_killed_it_not_on_those_it_survived(tmp_path: Path) -> None:
    """Survived a's run, killed by b's (tried against both): a edited, the kill by b still holds
    (kept); b edited, it runs again."""
    m, runs = _two_files(tmp_path)
    tries = [
        {"nodeid": f"a.reuseit.yaml::a[default]@{m.id}", "outcome": "survived"},
        {"nodeid": f"b.reuseit.yaml::b[default]@{m.id}", "outcome": "killed"},
    ]
    assert incremental.decided_by("killed", tries, m) == ["b.reuseit.yaml::b[default]"]
    basis = incremental.basis(m, runs, tmp_path, ["b.reuseit.yaml::b[default]"])
    last = {
        incremental.identity(m): {"outcome": "killed", "runs": tries, "run": tries[-1], "incremental": {"basis": basis}}
    }
    (tmp_path / "a.reuseit.yaml").write_text("name: a, edited\n", encoding="utf-8")
    kept = incremental.reuse(m, runs, tmp_path, last)
    assert kept is not None and kept.outcome == "killed" and kept.tries == tries
    (tmp_path / "b.reuseit.yaml").write_text("name: b, edited\n", encoding="utf-8")
    assert incremental.reuse(m, runs, tmp_path, last) is None


def test_a_number_in_the_target_s_text_is_no_change_but_the_word_a_fault_changes_is(tmp_path: Path) -> None:
    """The admin's "2 of 10 selected": how many books the other workflows left (10) depends on the
    order they ran in; the word a fault replaces and the number it moves by one are its own."""
    m, runs = _two_files(tmp_path)
    own = ["a.reuseit.yaml::a[default]"]

    def word_fault(text: str, word: str = "selected") -> Mutant:
        detail = {**m.target.detail, "text": text, "word": word}
        target = dataclasses.replace(m.target, detail=detail)
        return Mutant(m.id, "word_replaced", m.kind, m.file, m.nodeid, target, m.covering)

    first = incremental.basis(word_fault("2 of 10 selected"), runs, tmp_path, own)
    assert incremental.basis(word_fault("2 of 11 selected"), runs, tmp_path, own) == first
    assert incremental.basis(word_fault("2 of 10 chosen"), runs, tmp_path, own) != first
    assert incremental.basis(word_fault("2 of 10 selected", word="2"), runs, tmp_path, own) != first


def test_a_survivor_depends_on_every_run_that_reaches_its_target(tmp_path: Path) -> None:
    """Survived both workflows: either one edited, or a third one reaching the button, may catch
    it now: it runs again."""
    m, runs = _two_files(tmp_path)
    both = ["a.reuseit.yaml::a[default]", "b.reuseit.yaml::b[default]"]
    last = _record(m, "survived", both, incremental.basis(m, runs, tmp_path, both))
    assert incremental.reuse(m, runs, tmp_path, last) is not None
    (tmp_path / "b.reuseit.yaml").write_text("name: b, edited\n", encoding="utf-8")
    assert incremental.reuse(m, runs, tmp_path, last) is None
    (tmp_path / "b.reuseit.yaml").write_text("name: b\n", encoding="utf-8")
    assert incremental.reuse(m, runs, tmp_path, last) is not None
    third = ("c.reuseit.yaml", "c.reuseit.yaml::c[default]", m.target)
    (tmp_path / "c.reuseit.yaml").write_text("name: c\n", encoding="utf-8")
    runs[third[1]] = RunTouches(third[1], third[0], "default")
    wider = Mutant(m.id, m.operator, m.kind, m.file, m.nodeid, m.target, (*m.covering, third))
    assert incremental.reuse(wider, runs, tmp_path, last) is None


def test_a_killed_verdict_whose_killing_run_is_gone_runs_again(tmp_path: Path) -> None:
    m, runs = _two_files(tmp_path)
    other = ["b.reuseit.yaml::b[default]"]  # killed in the second round, by b's run
    last = _record(m, "killed", other, incremental.basis(m, runs, tmp_path, other))
    assert incremental.reuse(m, runs, tmp_path, last) is not None
    del runs["b.reuseit.yaml::b[default]"]  # b's run no longer passes clean (or was deleted)
    assert incremental.reuse(m, runs, tmp_path, last) is None


def test_a_report_that_cannot_be_read_is_said_so_and_every_mutant_runs(tmp_path: Path) -> None:
    from pytest_reuseit.mutation.session import MutateOptions, _kept

    m, runs = _two_files(tmp_path)
    said: list[str] = []
    opts = MutateOptions(paths=["."], root=tmp_path, incremental=True)
    assert _kept(opts, [m], runs, said.append) == {}
    assert said == ["incremental: no earlier report at reuseit-output/mutation.json: every mutant runs"]
    (tmp_path / opts.report).parent.mkdir(parents=True)
    (tmp_path / opts.report).write_text("{not json", encoding="utf-8")
    assert _kept(opts, [m], runs, said.append) == {}
    assert said[-1] == (
        "incremental: reuseit-output/mutation.json cannot be read as a mutation report: every mutant runs"
    )


def test_a_page_s_texts_and_values_are_no_change_its_elements_are(tmp_path: Path) -> None:
    """The Django admin shows a password's salt and hash, new each session, as text: the same page.
    A button renamed, a heading gone, a link elsewhere: another page."""
    from pytest_reuseit.mutation.touches import StepState

    m, runs = _two_files(tmp_path)
    own = ["a.reuseit.yaml::a[default]"]
    run = runs[own[0]]

    def page(*lines: str) -> None:
        run.steps = [StepState(0, 3, "Open", url_after="http://127.0.0.1:8123/admin/user/1/", aria="\n".join(lines))]

    base = ['- heading "Change user" [level=1]', '- link "History":', "  - /url: /admin/user/1/history/"]
    page(*base, '- text: ": Eh********"', '- textbox "Email": ada@example.com', '- button "Save"')
    last = _record(m, "killed", own, incremental.basis(m, runs, tmp_path, own))
    page(*base, '- text: ": CY********"', '- textbox "Email": bob@example.com', '- button "Save"')
    assert incremental.reuse(m, runs, tmp_path, last) is not None
    for changed in (
        [*base, '- text: ": CY"', '- textbox "Email": ada@example.com', '- button "Save and continue"'],
        [*base[1:], '- text: ": CY"', '- textbox "Email": ada@example.com', '- button "Save"'],
        [*base[:2], "  - /url: /admin/user/1/log/", '- textbox "Email": ada', '- button "Save"'],
    ):
        page(*changed)
        assert incremental.reuse(m, runs, tmp_path, last) is None, changed
