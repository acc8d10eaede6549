"""Since the last run: the line, since-last.json, causes, and the alert events, night after night.

Synthetic nights of run records (tests/support/run_records.py) appended to a real history file;
each test states the rule of docs/monitoring.md it holds to.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_reuseit.cli import main
from pytest_reuseit.report import history
from pytest_reuseit.report.alert_policy import Policy
from pytest_reuseit.report.since_last import SinceLast
from tests.support.run_records import Nights, page, record, results_folder

LINE = re.compile(
    r"^since the last run: (\d+) new failures? \((\d+) causes?\), (\d+) still failing, (\d+) fixed, "
    r"(\d+) newly recovered, (\d+) slower$"
)
ADD = "role=button[name='Add to cart']"


@pytest.fixture
def nights(tmp_path: Path) -> Nights:
    return Nights(tmp_path / "history.sqlite")


def _tests(runs: list[dict[str, Any]]) -> list[str]:
    return sorted(str(r["test"]) for r in runs)


def _counts(line: str) -> tuple[int, ...]:
    found = LINE.match(line)
    assert found, line
    return tuple(int(n) for n in found.groups())


def test_the_line_counts_each_list_in_the_contracts_form(nights: Nights) -> None:
    first = nights.report([record(t, night=0) for t in "abcdef"])
    assert (
        first.line
        == "since the last run: 0 new failures (0 causes), 0 still failing, 0 fixed, 0 newly recovered, 0 slower"
    )
    nights.report([record("a", "failed", night=1, locator=ADD), *[record(t, night=1) for t in "bcdef"]])
    helped = [{"step": 2, "action": "Step 2", "fallback": "do: click text='No thanks'"}]
    third = nights.report(
        [
            record("a", "failed", night=2, locator=ADD),  # still failing
            record("b", "failed", night=2, locator=ADD),  # new, same cause as c
            record("c", "broken", night=2, locator=ADD),
            record("d", "recovered", night=2, recovered=helped),
            record("e", night=2),
            record("f", night=2),
        ]
    )
    assert _counts(third.line) == (2, 1, 1, 0, 1, 0)
    assert (
        third.line
        == "since the last run: 2 new failures (1 cause), 1 still failing, 0 fixed, 1 newly recovered, 0 slower"
    )
    data = third.data
    assert _tests(data["new_failures"]) == ["b", "c"]
    assert {r["previous"] for r in data["new_failures"]} == {"passed"}
    (still,) = data["still_failing"]
    assert still["test"] == "a" and still["runs_failing"] == 2 and still["since"] == nights.starts[1]
    (recovered,) = data["newly_recovered"]
    assert recovered["test"] == "d" and recovered["recovered"] == helped
    assert set(data) >= {"new_failures", "still_failing", "fixed", "newly_recovered", "slower", "flaky", "causes"}
    json.dumps(data)
    fourth = nights.report([record(t, night=3) for t in "abcdef"])
    assert _tests(fourth.data["fixed"]) == ["a", "b", "c"]
    assert fourth.data["newly_recovered"] == []  # d passed without help: not "newly" anything
    assert _counts(fourth.line) == (0, 0, 0, 3, 0, 0)


def test_one_failure_reads_in_the_singular(nights: Nights) -> None:
    nights.report([record("a")])
    out = nights.report([record("a", "failed", night=1, locator=ADD)])
    assert out.line.startswith("since the last run: 1 new failure (1 cause), 0 still failing")
    assert LINE.match(out.line)


def test_a_renamed_or_deleted_workflow_is_neither_fixed_nor_failing(nights: Nights) -> None:
    nights.report([record("old::A", "failed", locator=ADD), record("keep::B", "failed", locator=ADD)])
    # Night 2: old::A renamed to new::A (now passing), keep::B deleted altogether.
    out = nights.report([record("new::A", night=1)])
    data = out.data
    assert data["fixed"] == [] and data["still_failing"] == [] and data["new_failures"] == []
    assert out.events == []  # no "fixed" message for a test that did not run
    assert (
        out.line
        == "since the last run: 0 new failures (0 causes), 0 still failing, 0 fixed, 0 newly recovered, 0 slower"
    )
    # The renamed one failing later is a new failure of its own; the deleted one coming back failing
    # is still failing (its own last run failed), not new.
    later = nights.report(
        [record("new::A", "failed", night=2, locator=ADD), record("keep::B", "failed", night=2, locator=ADD)]
    )
    assert _tests(later.data["new_failures"]) == ["new::A"]
    assert _tests(later.data["still_failing"]) == ["keep::B"]


def test_a_new_test_failing_on_its_first_night_is_a_new_failure(nights: Nights) -> None:
    nights.report([record("a")])
    out = nights.report([record("a", night=1), record("brand-new", "failed", night=1, locator=ADD)])
    (new,) = out.data["new_failures"]
    assert new["test"] == "brand-new" and new["previous"] is None


def test_slower_needs_three_earlier_passes_and_twice_the_median_and_five_seconds_more(nights: Nights) -> None:
    for n, duration in enumerate([10, 11, 10]):
        out = nights.report([record("a", night=n, duration=duration), record("quick", night=n, duration=1.0)])
        assert out.data["slower"] == []
    # quick: 1 s -> 4 s is 4x its median but only +3 s: not slower. a: 10 s -> 21 s is both.
    out = nights.report([record("a", night=3, duration=21), record("quick", night=3, duration=4.0)])
    (slow,) = out.data["slower"]
    assert slow["test"] == "a" and slow["duration"] == 21 and slow["usual"] == 10
    # 19 s is under twice the median of 10, 11, 10, 21 (10.5 x 2 = 21): not slower.
    assert nights.report([record("a", night=4, duration=19)]).data["slower"] == []
    # Only two earlier runs: not judged at all.
    fresh = Nights(nights.path.with_name("other.sqlite"))
    fresh.report([record("b", duration=1)])
    fresh.report([record("b", night=1, duration=1)])
    assert fresh.report([record("b", night=2, duration=60)]).data["slower"] == []


def test_flaky_is_three_flips_between_pass_and_fail_in_the_last_ten_runs(nights: Nights) -> None:
    statuses = ["passed", "failed", "passed", "recovered", "passed"]
    for n, status in enumerate(statuses):
        out = nights.report([record("a", status, night=n, locator=ADD), record("b", night=n)])
    assert out.data["flaky"] == []  # two flips so far (pass -> fail -> pass)
    out = nights.report([record("a", "broken", night=5, locator=ADD), record("b", night=5)])
    (flaky,) = out.data["flaky"]
    assert flaky["test"] == "a" and flaky["flips"] == 3
    assert flaky["recent"] == [*statuses, "broken"]


def test_one_renamed_button_met_by_many_workflows_is_one_cause_with_what_changed(nights: Nights) -> None:
    tests = [f"shop/w{n}.reuseit.yaml::W{n}[default]" for n in range(5)]
    nights.report([record(t, aria=page("Add to cart")) for t in tests])
    now = page("Add to basket")
    out = nights.report(
        [
            *[
                record(t, "failed", night=1, locator=ADD, aria=now, url=f"http://127.0.0.1:8000/product.html?id={n}")
                for n, t in enumerate(tests[:4])
            ],
            record(tests[4], "failed", night=1, locator=ADD, aria=now, url="http://127.0.0.1:8000/cart.html"),
        ]
    )
    causes = out.data["causes"]
    assert len(causes) == 2  # the same button on the product page, and on another page
    main_cause = causes[0]
    assert sorted(main_cause["tests"]) == tests[:4] and main_cause["locator"] == ADD and main_cause["step"] == 2
    assert main_cause["changed"]["removed"] == ['- button "Add to cart"']
    assert main_cause["changed"]["added"] == ['- button "Add to basket"']
    assert main_cause["changed"]["since"] == history.iso(record(tests[0])["started"])
    assert "/product.html" in main_cause["summary"] and ADD in main_cause["summary"]
    assert main_cause["first_seen"] == history.iso(min(record(t, night=1)["started"] for t in tests))
    assert re.fullmatch(r"[0-9a-f]{10}", main_cause["id"])
    assert out.line.startswith("since the last run: 5 new failures (2 causes)")
    # The next night the same cause has the same id and keeps its first_seen.
    later = nights.report([record(t, "failed", night=2, locator=ADD, aria=now) for t in tests[:4]])
    (again,) = later.data["causes"]
    assert again["id"] == main_cause["id"] and again["first_seen"] == main_cause["first_seen"]


def test_a_cause_first_seen_restarts_after_a_night_without_it(nights: Nights) -> None:
    nights.report([record("a", "failed", locator=ADD)])
    nights.report([record("a", night=1)])
    out = nights.report([record("a", "failed", night=2, locator=ADD)])
    assert out.data["causes"][0]["first_seen"] == nights.starts[2]


def test_infrastructure_errors_differing_only_in_numbers_are_one_cause(nights: Nights) -> None:
    out = nights.report(
        [
            record("a", "broken", infrastructure="browser closed: connect ECONNREFUSED 127.0.0.1:41231 (pid 8812)"),
            record("b", "broken", infrastructure="browser closed: connect ECONNREFUSED 127.0.0.1:39017 (pid 9120)"),
            record("c", "failed", check="The cart shows 3 items", phase="post"),
        ]
    )
    causes = {c["summary"].split(":")[0]: c for c in out.data["causes"]}
    assert sorted(causes["infrastructure"]["tests"]) == ["a", "b"]
    assert len(out.data["causes"]) == 2
    (check,) = [c for c in out.data["causes"] if c["tests"] == ["c"]]
    assert 'check "The cart shows 3 items"' in check["summary"]


def test_changed_comes_from_the_record_when_the_run_computed_it(nights: Nights) -> None:
    nights.report([record("a")])
    given = {"removed": ['- link "Old"'], "added": [], "url": ["u", "u"], "title": ["t", "t"], "since": "x"}
    out = nights.report([record("a", "failed", night=1, locator=ADD, changed=given)])
    assert out.data["causes"][0]["changed"] == given


def test_the_cause_s_changed_sets_aside_what_differed_between_the_last_two_passes(nights: Nights) -> None:
    sidebar = '- navigation "Sidebar":\n  - link "Books"\n  - link "Publishers"\n'
    nights.report([record("a", aria=page("Add to cart", sidebar))])  # the sidebar open
    nights.report([record("a", night=1, aria=page("Add to cart"))])  # closed: the site did not change
    out = nights.report([record("a", "failed", night=2, locator=ADD, aria=page("Add to basket", sidebar))])
    changed = out.data["causes"][0]["changed"]
    assert changed["removed"] == ['- button "Add to cart"'] and changed["added"] == ['- button "Add to basket"']
    assert changed["set_aside"] == {"removed": 0, "added": 3, "since": nights.starts[0]}
    assert changed["since"] == nights.starts[1]
    # A test with one pass in the history: every line, as before, and no set_aside.
    nights.report([record("b", night=3, aria=page("Add to cart"))])
    alone = nights.report([record("b", "failed", night=4, locator=ADD, aria=page("Add to basket", sidebar))])
    only = alone.data["causes"][0]["changed"]
    assert "set_aside" not in only and len(only["added"]) == 4 and only["removed"] == ['- button "Add to cart"']


def test_no_changed_without_an_earlier_pass_or_a_page_now(nights: Nights) -> None:
    out = nights.report([record("a", "failed", locator=ADD)])
    assert out.data["causes"][0]["changed"] is None
    nights.report([record("b", night=1)])
    out = nights.report([record("b", "failed", night=2, locator=ADD, aria="")])
    assert out.data["causes"][0]["changed"] is None


# --------------------------------------------------------------------------- alerts


def _kinds(out: SinceLast) -> list[tuple[str, str]]:
    return sorted((e["kind"], e["test"]) for e in out.events)


def test_alerts_fire_on_state_changes_only(nights: Nights) -> None:
    assert nights.report([record("a"), record("b")]).events == []
    failing = nights.report([record("a", "failed", night=1, locator=ADD), record("b", night=1)])
    assert _kinds(failing) == [("failing", "a")]
    (event,) = failing.events
    # The contract's keys first, then the policy's: the state, the rule in numbers, the strip.
    assert list(event)[:6] == ["kind", "test", "workflow", "variation", "cause", "since"]
    assert event["state"] == "failing" and event["rule"] == "failed 1 run in a row (--alert-after 1)"
    assert event["strip"] == "✓ ✗" and event["last_passed"] == nights.starts[0]
    assert event["cause"] == failing.data["causes"][0]["id"] and event["since"] == nights.starts[1]
    # Still failing: no second message; an unchanged night sends nothing.
    assert nights.report([record("a", "failed", night=2, locator=ADD), record("b", night=2)]).events == []
    helped = [{"step": 1, "action": "Step 1", "fallback": "do: click text='No thanks'"}]
    back = nights.report([record("a", night=3), record("b", "recovered", night=3, recovered=helped)])
    assert _kinds(back) == [("drifting", "b"), ("fixed", "a")]
    fixed = next(e for e in back.events if e["kind"] == "fixed")
    assert fixed["since"] == nights.starts[1]
    drift = next(e for e in back.events if e["kind"] == "drifting")
    assert "No thanks" in drift["cause"]
    # Recovered again: already known, no message. Passing without help after that: none either.
    assert nights.report([record("a", night=4), record("b", "recovered", night=4, recovered=helped)]).events == []
    assert nights.report([record("a", night=5), record("b", night=5)]).events == []


def test_alert_after_n_waits_for_n_failing_runs_in_a_row_and_fixed_only_follows_an_alert(tmp_path: Path) -> None:
    # The window rule apart (10 of 10): this is the rule of failures in a row alone.
    nights = Nights(tmp_path / "h.sqlite", policy=Policy(alert_after=3, window_k=10, window_m=10))
    nights.report([record("a")])
    for n in (1, 2):
        assert nights.report([record("a", "failed", night=n, locator=ADD)]).events == []
    # Fixed before the alert was ever sent: nothing to take back.
    assert nights.report([record("a", night=3)]).events == []
    for n in (4, 5):
        assert nights.report([record("a", "failed", night=n, locator=ADD)]).events == []
    out = nights.report([record("a", "failed", night=6, locator=ADD)])
    assert [(e["kind"], e["since"]) for e in out.events] == [("failing", nights.starts[4])]
    assert nights.report([record("a", "failed", night=7, locator=ADD)]).events == []
    assert _kinds(nights.report([record("a", night=8)])) == [("fixed", "a")]


def test_a_deleted_workflow_that_was_alerted_gets_no_false_fixed(nights: Nights) -> None:
    nights.report([record("a", "failed", locator=ADD), record("b")])
    assert nights.report([record("b", night=1)]).events == []
    assert nights.report([record("b", night=2)]).events == []


def test_the_same_night_reported_again_sends_nothing_more(nights: Nights) -> None:
    nights.report([record("a")])
    recs = [record("a", "failed", night=1, locator=ADD)]
    first = nights.report(recs)
    again = nights.report(recs)
    assert _kinds(first) == [("failing", "a")] and again.events == []
    assert again.line == first.line and again.data["causes"] == first.data["causes"]


def test_recent_lists_the_suite_runs_oldest_first_for_the_monitor_page(nights: Nights) -> None:
    for n in range(3):
        out = nights.report(
            [record("a", night=n, duration=5 + n), record("b", "failed" if n else "passed", night=n, locator=ADD)]
        )
    assert [len(s["runs"]) for s in out.recent] == [2, 2, 2]
    assert [s["started"] for s in out.recent] == sorted(s["started"] for s in out.recent)
    last = {r["test"]: r for r in out.recent[-1]["runs"]}
    assert last["a"]["duration"] == 7 and last["b"]["status"] == "failed" and last["b"]["cause"]
    assert out.recent[-1]["id"] == out.data["suite_run"]["id"]


# --------------------------------------------------------------------------- the command


def test_report_prints_the_line_and_writes_since_last_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hist = tmp_path / "h.sqlite"
    args = ["--history", str(hist), "--no-allure", "--output", str(tmp_path / "out")]
    assert main(["report", "--results", str(results_folder(tmp_path / "r0", [record("a"), record("b")])), *args]) == 0
    r1 = results_folder(tmp_path / "r1", [record("a", night=1), record("b", "failed", night=1, locator=ADD)])
    assert main(["report", "--results", str(r1), *args]) == 0
    out = capsys.readouterr().out
    assert "since the last run: 1 new failure (1 cause), 0 still failing, 0 fixed, 0 newly recovered, 0 slower" in out
    data = json.loads((tmp_path / "out" / "since-last.json").read_text())
    assert [r["test"] for r in data["new_failures"]] == ["b"]
    assert (tmp_path / "out" / "metrics.prom").exists()
    # Reported again: recorded once, said so, the same line.
    assert main(["report", "--results", str(r1), *args]) == 0
    again = capsys.readouterr()
    assert "1 new failure (1 cause)" in again.out and "already recorded" in again.err
    # A third night still failing on the same cause: first seen on the second night.
    r2 = results_folder(tmp_path / "r2", [record("a", night=2), record("b", "failed", night=2, locator=ADD)])
    assert main(["report", "--results", str(r2), *args]) == 0
    third = json.loads((tmp_path / "out" / "since-last.json").read_text())
    (cause,) = third["causes"]
    assert cause["first_seen"] == data["suite_run"]["started"] != third["suite_run"]["started"]
    assert third["still_failing"][0]["since"] == data["suite_run"]["started"]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("allure") is None, reason="needs the Allure 2 command line (ci/install.sh --report)")
def test_report_of_results_without_records_says_so_and_still_builds_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = results_folder(tmp_path / "r", [record("a")])
    for rec in results.glob("reuseit-run-*.json"):
        rec.unlink()
    hist = tmp_path / "h.sqlite"
    code = main(
        [
            "report",
            "--results",
            str(results),
            "--output",
            str(tmp_path / "o"),
            "--history",
            str(hist),
            "--multi-file",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0
    assert [line for line in err.splitlines() if "run records" in line] == [
        f"no reuseit run records in {results} (results of an older pytest-reuseit?): no history, since-last or monitor page this time"
    ]
    assert "report:" in out and not hist.exists()


def test_history_comes_from_the_environment_when_not_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    hist = tmp_path / "env" / "nightly.sqlite"
    monkeypatch.setenv(history.ENV, str(hist))
    results = results_folder(tmp_path / "r", [record("a")])
    assert main(["report", "--results", str(results), "--output", str(tmp_path / "o"), "--no-allure"]) == 0
    assert history.check(hist) == history.VERSION
    assert "since the last run:" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [
        ("--alert-webhook", "hooks.example/abc", "--alert-webhook (or $REUSEIT_ALERT_WEBHOOK): not an http(s) address"),
        ("--alert-webhook", "ftp://hooks.example/T0KEN", "not an http(s) address (ftp://hooks.example)"),
        ("--pushgateway", "gateway:9091", "--pushgateway: not an http(s) address"),
    ],
)
def test_an_address_that_cannot_be_one_stops_the_report_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, value: str, says: str
) -> None:
    results = results_folder(tmp_path / "r", [record("a", "failed", locator=ADD)])
    hist, out = tmp_path / "h.sqlite", tmp_path / "out"
    code = main(["report", "--results", str(results), "--output", str(out), "--history", str(hist), "--no-allure",
                 option, value])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1
    assert "T0KEN" not in err  # a webhook's path is its token
    assert not hist.exists() and not out.exists()


def test_a_site_that_is_down_for_every_page_is_one_cause(nights: Nights) -> None:
    """Broken before the first step on three pages of one host (their addresses differ in path,
    query and, night to night, port): one cause, not one per page."""
    pages = ("/product?item=hat", "/product?item=shoes", "/deals")
    broken = [
        record(f"t{n}", "broken", step=0, phase="start", error=f"open start_url http://127.0.0.1:9{n}{p}: the site is unreachable")
        for n, p in enumerate(pages)
    ]  # fmt: skip
    for rec in broken:
        rec["step"] = None
    out = nights.report(broken)
    (cause,) = out.data["causes"]
    assert sorted(cause["tests"]) == ["t0", "t1", "t2"]
    assert "(1 cause)" in out.line
    # Two different elements on one page are still two causes.
    other = [record("a", "failed", locator="role=button[name='Buy']"), record("b", "failed", locator=ADD)]
    assert len(nights.report(other).data["causes"]) == 2


def test_runs_stopped_by_one_overlay_are_one_cause_whatever_they_tried_to_click(nights: Nights) -> None:
    covered = '(last: <div id="nl" role="dialog" aria-label="Newsletter">…</div> intercepts pointer events)'
    runs = [
        record(f"t{n}", "failed", locator=f"role='button'[name='{name}']", url=f"http://127.0.0.1:8000/{page}",
               error=f"action failed: click role='button'[name='{name}']: timed out: Locator.click: Timeout 2000ms exceeded. {covered}")
        for n, (name, page) in enumerate([("Show deals", "deals"), ("Add to cart", "product"), ("Search", "")])
    ]  # fmt: skip
    (cause,) = nights.report(runs).data["causes"]
    assert sorted(cause["tests"]) == ["t0", "t1", "t2"]
    assert cause["summary"].startswith('<div id="nl" role="dialog" aria-label="Newsletter">…</div> covers /')


@pytest.mark.slow  # a subprocess of its own: the pipe is its standard output
def test_a_reader_that_goes_away_loses_lines_never_files_and_sees_no_traceback(tmp_path: Path) -> None:
    """`reuseit report ... | head -1`: the pipe is closed before the command writes to it."""
    results = results_folder(tmp_path / "r", [record("a"), record("b", "failed", locator=ADD)])
    out, hist = tmp_path / "out", tmp_path / "h.sqlite"
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest_reuseit.cli", "report", "--results", str(results), "--output", str(out),
         "--history", str(hist), "--no-allure"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) in (0, 141)
    assert "Traceback" not in err and "Exception ignored" not in err, err
    for name in ("since-last.json", "monitor.html", "metrics.prom"):
        assert (out / name).is_file(), name
    assert history.check(hist) == history.VERSION
