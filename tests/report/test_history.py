"""The run record and the nightly history: what goes in, what comes back, and every file fault.

Fast unit tests on synthetic records (tests/support/run_records.py); the faults also through the
``reuseit report`` command (in process, or two processes at once), with ``--no-allure``: Allure's
generation is not what these tests are about.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest

from pytest_reuseit.cli import main
from pytest_reuseit.engine.result import (
    ActionRecord,
    Analysis,
    Attempt,
    HealingSuggestion,
    ModelUsage,
    RunResult,
    Screenshot,
    StepResult,
    Verdict,
)
from pytest_reuseit.report import history, records, since_last
from pytest_reuseit.report.history import HistoryError
from tests.support.paths import ROOT
from tests.support.run_records import DAY, T0, page, record, results_folder

# --------------------------------------------------------------------------- the run record


def _result(**kw: object) -> RunResult:
    base = RunResult(
        workflow="Buy", file="shop/buy.reuseit.yaml", line=1, variation="default", kind="workflow", task="t", params={}
    )
    for key, value in kw.items():
        setattr(base, key, value)
    return base


def test_record_of_a_run_failing_on_an_op_names_its_locator_and_the_first_line_of_the_error() -> None:
    step1 = StepResult(1, "Open the product", 3, status="passed", duration=1.23456)
    step1.after = Screenshot("after", b"x", path="shots/1.jpg")
    step2 = StepResult(2, "Add it to the cart", 5, status="failed", failed_phase="action")
    step2.actions = [
        ActionRecord("click role='button'[name='Add to cart']", "do", ok=False, error="not found"),
        ActionRecord("click text='Close'", "fallback", ok=False, error="not found"),
    ]
    result = _result(
        status="failed",
        steps=[step1, step2],
        failed_step=2,
        failed_phase="action",
        message="step 2 failed: not found\nmore detail",
        started=T0,
        duration=4.5,
        usage=ModelUsage(calls=3, cache_hits=1, prompt_tokens=100, completion_tokens=20, cost=0.0123),
        analysis=Analysis("step 2", "renamed", "x", [], "site_changed"),
    )
    rec = records.record_of(result, "shop/buy.reuseit.yaml::Buy[default]")
    assert rec["status"] == "failed" and rec["step"] == 2 and rec["action"] == "Add it to the cart"
    assert rec["phase"] == "action" and rec["locator"] == "role='button'[name='Add to cart']"
    assert rec["error"] == "step 2 failed: not found"
    assert rec["category"] == "site_changed"
    assert rec["usage"] == {"calls": 3, "cache_hits": 1, "tokens": 120, "cost": 0.0123}
    assert [s["index"] for s in rec["steps"]] == [1, 2]
    assert rec["steps"][0]["screenshot"] == "shots/1.jpg" and rec["steps"][0]["duration"] == 1.235
    assert rec["steps"][0]["aria"] == ""  # not captured (yet): "" rather than a missing key
    assert rec["workflow"] == "shop/buy.reuseit.yaml" and rec["changed"] is None
    json.dumps(rec)  # plain JSON


def test_record_of_a_failing_check_takes_the_last_attempts_verdict_and_its_target() -> None:
    first = Verdict("visible role='heading'[name='Cart']", "post", ok=False, source="dom", expected="a", actual="b")
    last = Verdict(
        "visible role='heading'[name='Cart']", "post", ok=False, source="dom", expected="Cart", actual="Basket"
    )
    step = StepResult(1, "Open the cart", 2, status="failed", post=[first])
    step.attempts = [Attempt(1, "post", "do: click text='Close'", verdicts=[last])]
    rec = records.record_of(_result(status="failed", steps=[step], failed_step=1, failed_phase="post"), "t")
    assert rec["check"] == "visible role='heading'[name='Cart']"
    assert rec["locator"] == "role='heading'[name='Cart']"
    assert (rec["expected"], rec["actual"]) == ("Cart", "Basket")


def test_record_of_a_recovered_and_a_healed_run_says_what_got_past() -> None:
    rec_step = StepResult(1, "Close the overlay", 2, status="recovered")
    rec_step.attempts = [Attempt(1, "post", "do: click text='No thanks'", ok=True)]
    result = _result(steps=[rec_step])
    rec = records.record_of(result, "t")
    assert rec["status"] == "recovered"
    assert rec["recovered"] == [{"step": 1, "action": "Close the overlay", "fallback": "do: click text='No thanks'"}]
    healed = _result(steps=[StepResult(1, "Add", 2, status="healed")], healed=True)
    healed.healing = [HealingSuggestion(1, 0, "text='Add to cart'", "text='Add to basket'")]
    rec2 = records.record_of(healed, "t")
    assert rec2["status"] == "healed"
    assert rec2["recovered"][0]["fallback"] == "healed: text='Add to basket' (was text='Add to cart')"


def test_records_are_written_atomically_and_an_unreadable_one_is_skipped_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = record("a.reuseit.yaml::A[default]")
    path = records.write(tmp_path, a)
    assert path.name == records.file_name(a["test"]) and path.name.startswith("reuseit-run-")
    assert len(path.name) == len("reuseit-run-") + 16 + len(".json")
    (tmp_path / "reuseit-run-0000000000000000.json").write_text("{half")
    (tmp_path / "reuseit-run-1111111111111111.json").write_text("[1, 2]")
    (tmp_path / "reuseit-run-2222222222222222.json").write_text(json.dumps({**a, "test": "z", "format": 99}))
    assert records.read_all(tmp_path) == [a]
    err = capsys.readouterr().err
    assert err.count("warning:") == 3 and "0000000000000000" in err and "newer" not in err
    assert not list(tmp_path.glob(".*tmp"))  # no temp file left behind


# --------------------------------------------------------------------------- the history


def _night(
    path: Path, recs: list[dict[str, object]], *, keep_runs: int = history.KEEP_RUNS, sweep_every: int = 1
) -> history.SuiteRun:
    with history.writing(path) as h:
        since_last.annotate(recs)  # type: ignore[arg-type]
        suite = h.append(recs)  # type: ignore[arg-type]
        h.trim(keep_runs=keep_runs, now=T0 + 30 * DAY, sweep_every=sweep_every)
    return suite


def test_a_new_history_is_marked_as_ours_and_a_pass_comes_back_with_its_pages(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "history.sqlite"
    assert history.last_pass(path, "t") is None  # no file: no baseline, and no file made
    assert not path.exists()
    _night(path, [record("t", aria=page("Add to cart"))])
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == history.APPLICATION_ID
    assert conn.execute("PRAGMA user_version").fetchone()[0] == history.VERSION
    conn.close()
    passed = history.last_pass(path, "t")
    assert passed is not None and passed.status == "passed" and sorted(passed.steps) == [1, 2, 3]
    assert passed.steps[2].page.aria == page("Add to cart")
    assert passed.steps[2].page.url.endswith("product.html?id=1") and passed.steps[2].page.title == "Trail Hiking Shoes"
    assert passed.when.startswith("2023-11-14")
    assert passed.earlier is None  # one pass known: nothing to tell churn by
    assert history.last_pass(path, "another test") is None


def test_last_pass_skips_failures_and_takes_the_newest_pass(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    _night(path, [record("t", aria=page("Add to cart"), night=0)])
    _night(path, [record("t", aria=page("Buy now"), night=1)])
    _night(path, [record("t", "failed", locator="text='Buy now'", aria=page("Gone"), night=2)])
    passed = history.last_pass(path, "t")
    assert passed is not None and passed.steps[1].page.aria == page("Buy now")
    assert passed.started == pytest.approx(T0 + DAY + sum(map(ord, "t")) % 100)
    # The pass before it comes along (what churns between the two is no change), and no further.
    assert passed.earlier is not None and passed.earlier.steps[1].page.aria == page("Add to cart")
    assert passed.earlier.started == pytest.approx(T0 + sum(map(ord, "t")) % 100)
    assert passed.earlier.earlier is None
    # A failure between two passes is skipped too: the earlier one is the pass before, not the failure.
    _night(path, [record("t", aria=page("Order now"), night=3)])
    latest = history.last_pass(path, "t")
    assert latest is not None and latest.steps[1].page.aria == page("Order now")
    assert latest.earlier is not None and latest.earlier.steps[1].page.aria == page("Buy now")


def test_unchanged_pages_are_kept_once(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    for night in range(5):
        _night(path, [record(f"w{n}", night=night, aria=page(f"Button {n}")) for n in range(4)])
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM steps").fetchone()[0] == 5 * 4 * 3
    assert conn.execute("SELECT count(*) FROM snapshots").fetchone()[0] == 4  # one per distinct page
    stored = conn.execute("SELECT aria FROM snapshots LIMIT 1").fetchone()[0]
    assert zlib.decompress(stored).decode().startswith("- banner:")
    conn.close()


def test_the_same_results_folder_reported_twice_is_recorded_once(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    recs = [record("a"), record("b", "failed", locator="text='x'")]
    first = _night(path, json.loads(json.dumps(recs)))
    again = _night(path, json.loads(json.dumps(recs)))
    assert first.new and not again.new and again.id == first.id
    other = _night(path, [record("a", night=1), record("b", night=1)])
    assert other.new and other.id != first.id
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM suite_runs").fetchone()[0] == 2
    assert conn.execute("SELECT count(*) FROM runs").fetchone()[0] == 4
    conn.close()


def test_trimming_keeps_the_last_runs_and_drops_pages_nothing_refers_to(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    for night in range(6):
        _night(path, [record("w", night=night, aria=page(f"Label {night}"))], keep_runs=3)
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM suite_runs").fetchone()[0] == 3
    assert conn.execute("SELECT count(*) FROM runs").fetchone()[0] == 3
    assert conn.execute("SELECT count(*) FROM steps").fetchone()[0] == 9
    assert conn.execute("SELECT count(*) FROM snapshots").fetchone()[0] == 3  # nights 3, 4, 5
    conn.close()
    # Orphan pages are swept once enough nights have gone, not every night.
    for night in range(6, 8):
        _night(path, [record("w", night=night, aria=page(f"Label {night}"))], keep_runs=3, sweep_every=3)
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM snapshots").fetchone()[0] == 5  # 2 nights dropped, not swept yet
    conn.close()
    _night(path, [record("w", night=8, aria=page("Label 8"))], keep_runs=3, sweep_every=3)
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM snapshots").fetchone()[0] == 3  # the third: swept
    conn.close()
    # Age: nothing older than keep_days.
    with history.writing(path) as h:
        dropped = h.trim(keep_days=1, now=T0 + 8 * DAY + 1000)
    assert dropped == 2


def test_the_history_keeps_the_records_strings_as_given_and_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The records are masked by the run; the history must add nothing, from the environment least.
    monkeypatch.setenv("SHOP_PASSWORD", "hunter2-very-secret")
    rec = record("t", aria=page() + '- textbox "Password": "••••••"\n')
    rec["error"] = "login failed for ••••••"
    path = tmp_path / "h.sqlite"
    _night(path, [rec])
    raw = path.read_bytes()
    assert b"hunter2-very-secret" not in raw
    conn = sqlite3.connect(path)
    texts = [t for (t,) in conn.execute("SELECT text FROM texts")]
    pages = [zlib.decompress(a).decode() for (a,) in conn.execute("SELECT aria FROM snapshots")]
    conn.close()
    assert pages == [rec["steps"][0]["aria"]]
    assert set(texts) == {"Step 1", "Step 2", "Step 3", rec["steps"][0]["url"], "Trail Hiking Shoes"}
    assert b"SHOP_PASSWORD" not in raw


# --------------------------------------------------------------------------- file faults


def _foreign_db(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE contacts (name TEXT, phone TEXT)")
    conn.execute("INSERT INTO contacts VALUES ('Ann', '555')")
    conn.commit()
    conn.close()


def _newer(path: Path) -> None:
    _night(path, [record("t")])
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value = ? WHERE key = 'version'", (str(history.VERSION + 1),))
    conn.commit()
    conn.close()


def _corrupt(path: Path) -> None:
    path.write_bytes(b"this is a log file, not a database\n" * 100)


def _damaged(path: Path) -> None:
    # A history whose pages past the first were overwritten: the header still says SQLite.
    _night(path, [record(f"w{n}", aria=page(f"B{n}") * 20) for n in range(30)])
    data = bytearray(path.read_bytes())
    data[4096:] = b"\xff" * (len(data) - 4096)
    path.write_bytes(bytes(data))


FAULTS = {
    "corrupt": (_corrupt, "not an SQLite database"),
    "foreign": (_foreign_db, "another program's SQLite database"),
    "newer": (_newer, "written by a newer reuseit"),
    "damaged": (_damaged, "history"),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_file_that_is_not_a_history_is_refused_and_left_byte_for_byte(tmp_path: Path, fault: str) -> None:
    make, words = FAULTS[fault]
    path = tmp_path / "h.sqlite"
    make(path)
    before = path.read_bytes()
    with pytest.raises(HistoryError) as exc:
        _night(path, [record("t", night=3)])
    assert str(path) in str(exc.value) and words in str(exc.value) and "\n" not in str(exc.value)
    if fault != "damaged":  # the runtime's read before a run refuses it too (a damaged file may still read)
        with pytest.raises(HistoryError):
            history.last_pass(path, "t")
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.sqlite"]  # no journal, no backup left


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_report_on_a_file_that_is_not_a_history_exits_2_with_one_line_and_leaves_it(
    tmp_path: Path, fault: str, capsys: pytest.CaptureFixture[str]
) -> None:
    make, _ = FAULTS[fault]
    path = tmp_path / "h.sqlite"
    make(path)
    before = path.read_bytes()
    results = results_folder(tmp_path / "results", [record("t", night=3)])
    code = main(["report", "--results", str(results), "--output", str(tmp_path / "out"), "--history", str(path)])
    out, err = capsys.readouterr()
    assert code == 2
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and str(path) in lines[0], err
    assert "since the last run" not in out
    assert path.read_bytes() == before
    assert not (tmp_path / "out").exists()  # nothing else written either


def _v1(path: Path) -> None:
    """A history as version 1 wrote it: the first migration only, one night in it."""
    conn = sqlite3.connect(path, isolation_level=None)
    for statement in history.MIGRATIONS[0]:
        conn.execute(statement)
    conn.execute(f"PRAGMA application_id = {history.APPLICATION_ID}")
    conn.execute("PRAGMA user_version = 1")
    conn.execute("INSERT INTO meta VALUES ('version', '1')")
    conn.execute("INSERT INTO suite_runs VALUES (1, 'k1', ?, ?, 1)", (T0, T0))
    conn.execute("INSERT INTO tests VALUES (1, 't', 'w.yaml', 'default')")
    conn.execute(
        "INSERT INTO runs VALUES (1, 1, 1, 'T', 'passed', ?, 3.0, NULL, '', '', '', '', '', '', '', '', '', '[]', 0, 0, 0, 0.0, NULL)",
        (T0,),
    )
    conn.execute("INSERT INTO snapshots VALUES (1, x'00', ?)", (zlib.compress(page("Old label").encode()),))
    conn.execute("INSERT INTO steps VALUES (1, 1, NULL, 'passed', 1.0, NULL, NULL, 1, '')")
    conn.close()


def test_an_older_history_is_upgraded_in_place_after_a_backup_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    _v1(path)
    old = path.read_bytes()
    assert history.check(path) == 1
    _night(path, [record("t", "failed", night=1, step=1, locator="text='Old label'", aria=page("New label"))])
    backup = tmp_path / "h.sqlite.v1.bak"
    assert backup.read_bytes() == old
    assert history.check(path) == history.VERSION
    passed = history.last_pass(path, "t")  # the old night is still there
    assert passed is not None and passed.steps[1].page.aria == page("Old label")
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT cause FROM runs WHERE id = 2").fetchone()[0]  # the new column is used
    conn.close()


@pytest.mark.slow
def test_two_reports_at_once_on_one_history_both_keep_their_nights(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    _night(path, [record("a", night=0), record("b", night=0)])
    folders = [
        results_folder(tmp_path / f"r{n}", [record("a", night=n), record("b", "failed", night=n, locator="text='x'")])
        for n in (1, 2)
    ]
    # Hold the write lock while both start, so that both wait on it and then race for it.
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "pytest_reuseit.cli", "report", "--results", str(folder), "--output", str(tmp_path / f"o{n}"),
             "--history", str(path), "--no-allure"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for n, folder in enumerate(folders)
    ]  # fmt: skip
    time.sleep(1.5)
    blocker.execute("COMMIT")
    blocker.close()
    outs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert all("since the last run:" in out for out, _ in outs)
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM suite_runs").fetchone()[0] == 3
    assert conn.execute("SELECT count(*) FROM runs").fetchone()[0] == 6
    conn.close()


@pytest.mark.parametrize("multi_file", [False, True], ids=["single-file", "multi-file"])
def test_an_allure_that_fails_exits_1_saying_why_and_the_night_is_still_reported(
    tmp_path: Path, multi_file: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    # An Allure that cannot run (here: no Java): the single-file report runs two generates side by
    # side (the report, and a classic one for its history); each failure is shown, none is hidden.
    allure = tmp_path / "allure"
    allure.write_text('#!/bin/sh\necho "JAVA_HOME is not set ($4)" >&2\nexit 3\n', encoding="utf-8")
    allure.chmod(0o755)
    results = results_folder(tmp_path / "results", [record("t", night=3)])
    out_dir = tmp_path / "out"
    argv = ["report", "--results", str(results), "--output", str(out_dir), "--history", str(tmp_path / "h.sqlite")]
    code = main([*argv, "--allure", str(allure), *(["--multi-file"] if multi_file else [])])
    out, err = capsys.readouterr()
    assert code == 1
    failures = [line for line in err.splitlines() if line.startswith("allure generate failed (3):")]
    assert len(failures) == (1 if multi_file else 2), err
    assert f"JAVA_HOME is not set ({out_dir})" in err  # Allure's own words, for the report it was to write
    assert "since the last run:" in out
    assert (out_dir / "since-last.json").is_file()  # the monitoring files do not depend on Allure
    assert not (out_dir / "index.html").exists()
