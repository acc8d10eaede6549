"""The alert policy (docs/monitoring.md, "Alert policy"), night after night through a real history.

Each test reports synthetic nights (tests/support/run_records.py) through the calls ``reuseit
report`` makes and reads the events the nights send and the states they show; the real nights of
a served site, pytest and a webhook are in test_nightly_alert_policy.py.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from pytest_reuseit.cli import main
from pytest_reuseit.report import alert_policy, alerts, history, metrics, night_health, since_last
from pytest_reuseit.report.alert_policy import Policy, Run
from tests.support.run_records import Nights, record, results_folder

ADD = "role=button[name='Add to cart']"
# What the run compared on the failing step's page with the last pass: the button left.
RENAMED = {"removed": ['- button "Add to cart"'], "added": ['- button "Add to basket"'], "since": "x"}
AS_IT_WAS: dict[str, Any] = {"removed": [], "added": [], "since": "x"}
DOWN = "goto http://127.0.0.1:8765/product: the site is unreachable (net::ERR_CONNECTION_REFUSED)"


class Team:
    """A suite of workflows ``w0``..``wN`` and the events each night sends, per test."""

    def __init__(self, tmp_path: Path, policy: Policy | None = None, size: int = 3) -> None:
        self.nights = Nights(tmp_path / "history.sqlite", policy=policy)
        self.tests = [f"w{n}.reuseit.yaml::w{n}" for n in range(size)]
        self.night = 0
        self.sent: list[list[dict[str, Any]]] = []
        self.out: Any = None

    def run(self, **special: dict[str, Any] | str) -> list[dict[str, Any]]:
        """One night: every test passes but those given a status or a record's fields."""
        recs = []
        for test in self.tests:
            how = special.get(test.split(".")[0], "passed")
            fields: dict[str, Any] = {"status": how} if isinstance(how, str) else dict(how)
            status = fields.pop("status", "failed")
            if status == "failed":
                fields.setdefault("locator", ADD)
                fields.setdefault("changed", RENAMED)
            recs.append(record(test, status, night=self.night, **fields))
        self.out = self.nights.report(recs)
        self.night += 1
        self.sent.append(self.out.events)
        return self.out.events

    def kinds(self, test: str) -> list[tuple[int, str]]:
        """(night, kind) of every event sent for ``test`` so far."""
        full = self.tests[int(test[1:])]
        return [(n, e["kind"]) for n, events in enumerate(self.sent) for e in events if e["test"] == full]

    def state(self, test: str) -> dict[str, Any]:
        full = self.tests[int(test[1:])]
        return next(s for s in self.out.data["states"] if s["test"] == full)


def test_a_workflow_failing_on_alternate_nights_flaps_once_and_is_steady_once(tmp_path: Path) -> None:
    team = Team(tmp_path)
    for _ in range(10):
        team.run()
    for n in range(10):  # ten nights, failing every other one: the site's flakiness
        team.run(**({"w1": "failed"} if n % 2 == 0 else {}))
    while team.night < 60 and not any(k == "steady" for _, k in team.kinds("w1")):
        team.run()
    kinds = team.kinds("w1")
    flapping = [n for n, k in kinds if k == "flapping"]
    steady = [n for n, k in kinds if k == "steady"]
    assert len(flapping) == 1 and len(steady) == 1, kinds
    # Nothing between the two: no failing, no fixed for every flip.
    assert [k for n, k in kinds if flapping[0] < n < steady[0]] == []
    # Before it: the first failing, its fixed, the second failing, then flapping instead of a fixed.
    assert [k for n, k in kinds if n < flapping[0]] == ["failing", "fixed", "failing"]
    # The old rule sent a failing and a fixed for each of the five failures: ten messages.
    flap = next(e for e in team.sent[flapping[0]] if e["kind"] == "flapping")
    assert flap["whose"] == "site" and flap["steps"] == [2]
    assert flap["whose_words"].startswith("the site's: step 2 (role=button[name='Add to cart']) failed each time")
    assert flap["rule"].startswith("2 failures in the last 14 runs, 2") and "% state change" in flap["rule"]
    assert flap["strip"].endswith("✗ ✓ ✗ ✓") and flap["last_passed"]
    end = next(e for e in team.sent[steady[0]] if e["kind"] == "steady")
    assert end["state"] == "passing" and end["rule"].startswith("state change down to")
    # The other workflows, always passing, were in no message.
    assert team.kinds("w0") == [] and team.kinds("w2") == []


@pytest.mark.parametrize(
    "policy",
    [Policy(), Policy(recover_after=2), Policy(alert_after=2, recover_after=2)],
    ids=["defaults", "recover-after-2", "alert-after-2-recover-after-2"],
)
def test_a_workflow_failing_on_alternate_nights_from_its_first_nights_flaps_while_it_still_flips(
    tmp_path: Path, policy: Policy
) -> None:
    # Nights 1..20, failing on 4, 6, 8, 10 and 12, then passing until it is steady. With
    # --recover-after 2 the alert opened on night 4 never closed while it flipped, so no night sent
    # anything and flapping was said on night 14, after the flips had ended.
    team = Team(tmp_path, policy)
    while team.night < 60 and not any(k == "steady" for _, k in team.kinds("w1")):
        team.run(**({"w1": "failed"} if team.night + 1 in (4, 6, 8, 10, 12) else {}))
    kinds = [(n + 1, k) for n, k in team.kinds("w1")]  # numbered from night 1
    flapping = [n for n, k in kinds if k == "flapping"]
    steady = [n for n, k in kinds if k == "steady"]
    # Night 10, not 11: the contract reads "nothing below 10 runs of history" from the history after
    # the night's report, which holds tonight's run, so night 10 is the first with 10 runs; its runs
    # hold 7 changes (41% weighted, over the 20% start) and it is itself a flip. Night 9 has 9 runs.
    assert flapping == [10], kinds
    assert len(steady) == 1 and steady[0] > 12, kinds
    assert [k for n, k in kinds if flapping[0] < n < steady[0]] == [], kinds
    # A first alert was sent before it (the problem's first message always is), and it was the
    # alert that flapping then held.
    assert any(k == "failing" for n, k in kinds if n < flapping[0]), kinds
    flap = next(e for e in team.sent[flapping[0] - 1] if e["kind"] == "flapping")
    assert flap["rule"].startswith("4 failures in the last 10 runs, 41% state change"), flap["rule"]
    assert flap["strip"] == "✓ ✓ ✓ ✗ ✓ ✗ ✓ ✗ ✓ ✗"
    end = next(e for e in team.sent[steady[0] - 1] if e["kind"] == "steady")
    assert end["state"] == "passing"


def test_a_quiet_pass_after_a_steady_failing_is_fixed_and_not_flapping(tmp_path: Path) -> None:
    # Flapping starts on a flip only: the old flips still weigh over 20% after the steady, and the
    # pass nights after its fixed are no news.
    team = Team(tmp_path)
    for _ in range(10):
        team.run()
    for n in range(6):
        team.run(**({"w1": "failed"} if n % 2 == 0 else {}))
    while team.state("w1")["state"] == "flapping":
        team.run(w1="failed")
    assert [e["kind"] for e in team.run()] == ["fixed"]
    for _ in range(5):
        assert team.run() == [] and team.state("w1")["state"] == "passing"


def test_flips_at_different_steps_or_on_an_unchanged_page_are_the_tests() -> None:
    def runs(*fails: dict[str, Any]) -> list[Run]:
        return [Run(n, f"n{n}", "failed", **f) for n, f in enumerate(fails)]

    whose, words = alert_policy.whose_flips(runs({"step": 2, "target": "a"}, {"step": 4, "target": "b"}))
    assert whose == "test" and words.startswith("the test's: it fails at different places (steps 2, 4;")
    same = {"step": 3, "target": "cart check"}
    whose, words = alert_policy.whose_flips(runs(same | {"timed_out": True}, same | {"timed_out": True}, same))
    assert whose == "test" and "timed out in 2 of 3 failures, no page changed" in words
    # A click that found no element times out too: the page that left the element says whose it is.
    gone = same | {"timed_out": True, "page_changed": True}
    assert alert_policy.whose_flips(runs(gone, gone))[0] == "site"
    whose, words = alert_policy.whose_flips(runs(same | {"page_changed": False}, same | {"page_changed": False}))
    assert whose == "test" and "the page was as at the last pass in 2 of 2" in words
    whose, words = alert_policy.whose_flips(runs(same | {"page_changed": True}, same | {"page_changed": False}))
    assert whose == "site" and "differed from the last pass in 1 of them" in words
    assert alert_policy.whose_flips(runs(same, same))[0] == "unclear"


def test_three_failures_in_ten_never_two_in_a_row_open_one_alert_when_the_third_lands(tmp_path: Path) -> None:
    team = Team(tmp_path, Policy(alert_after=2, window_k=3, window_m=10))
    for _ in range(10):
        team.run()
    for n in range(10):  # fails on nights 0, 3 and 6 of these ten: never twice in a row
        events = team.run(**({"w1": "failed"} if n in (0, 3, 6) else {}))
        if n < 6:
            assert events == [], n
            assert team.state("w1")["state"] == ("pending" if n in (0, 3) else "passing")
        if n == 6:
            (event,) = events
            assert event["kind"] == "failing" and event["state"] == "failing"
            assert event["rule"] == "failed 3 of its last 10 runs, never 2 in a row (--alert-window 3/10)"
            assert event["strip"] == "✓ ✓ ✓ ✗ ✓ ✓ ✗ ✓ ✓ ✗"
            # The alert counts from the first failure the window holds.
            assert event["since"] == team.nights.starts[10]
    # Under the old rule (two in a row) nothing was ever sent for it.
    assert team.state("w0")["rule"].startswith("0 failures in the last 10 runs")


def test_pending_says_how_far_from_each_rule(tmp_path: Path) -> None:
    team = Team(tmp_path, Policy(alert_after=3, window_k=4, window_m=10))
    team.run()
    assert team.run(w1="failed") == []
    assert team.state("w1")["state"] == "pending"
    assert team.state("w1")["rule"] == (
        "failed 1 in a row (alert at 3) and 1 of the last 2 (alert at 4/10): no alert yet"
    )


def test_an_open_alert_recovers_quietly_until_r_passes_in_a_row(tmp_path: Path) -> None:
    team = Team(tmp_path, Policy(recover_after=2))
    team.run()
    assert [e["kind"] for e in team.run(w1="failed")] == ["failing"]
    assert team.run() == [] and team.state("w1")["state"] == "recovering"
    assert team.state("w1")["rule"].startswith("passed 1 of the 2 runs in a row that close the alert")
    assert team.run(w1="failed") == [] and team.state("w1")["state"] == "failing"  # still the same alert
    assert team.run() == []
    (fixed,) = team.run()
    assert fixed["kind"] == "fixed" and fixed["rule"] == "passed 2 runs in a row (--recover-after 2)"
    assert fixed["since"] == team.nights.starts[1] and team.state("w1")["state"] == "passing"


def test_reminders_are_off_by_default_and_come_every_n_runs_when_asked(tmp_path: Path) -> None:
    quiet, loud = Team(tmp_path / "a"), Team(tmp_path / "b", Policy(remind_every=2))
    for team in (quiet, loud):
        team.run()
        for _ in range(5):
            team.run(w1="failed")
    assert [k for _, k in quiet.kinds("w1")] == ["failing"]
    assert loud.kinds("w1") == [(1, "failing"), (3, "failing"), (5, "failing")]
    reminder = next(e for e in loud.sent[3] if e["test"] == loud.tests[1])
    assert reminder["reminder"] == 2 and reminder["rule"].startswith("still failing, 2 runs after the alert opened")
    text = alerts.message(loud.sent[3], [])["text"]
    assert text.startswith("reuseit nightly: 1 still failing\n\nStill failing (reminder: the alert is open)")


def test_a_flapping_workflow_that_now_fails_every_night_is_steady_failing_within_four_nights(tmp_path: Path) -> None:
    team = Team(tmp_path)
    for _ in range(10):
        team.run()
    for n in range(6):
        team.run(**({"w1": "failed"} if n % 2 == 0 else {}))
    assert team.state("w1")["state"] == "flapping"
    start = team.night
    while team.state("w1")["state"] == "flapping":
        team.run(w1="failed")
    assert team.night - start == 4  # four failures in a row end it
    steady = team.sent[-1][0]
    assert steady["kind"] == "steady" and steady["state"] == "failing"
    assert steady["rule"].startswith("failed 4 runs in a row; now failing: failed 4 runs in a row (--alert-after 1)")
    # Still failing: the alert is open, nothing more. Its fix is news, as a first one is.
    assert team.run(w1="failed") == []
    assert [e["kind"] for e in team.run()] == ["fixed"]


def test_a_sick_night_is_one_message_and_its_runs_count_toward_no_rule(tmp_path: Path) -> None:
    team = Team(tmp_path, Policy(alert_after=2, window_k=3, window_m=10), size=10)
    team.run()
    team.run(w3="failed")
    team.run(w3="failed", w4="failed")  # w3 opens (two in a row); w4 is pending
    broken = {"status": "broken", "error": DOWN, "category": "infrastructure"}
    sick = team.run(**{f"w{n}": broken for n in range(1, 10)}, w0="failed")
    unhealthy = [e for e in sick if e["kind"] == "unhealthy"]
    assert len(unhealthy) == 1 and unhealthy[0]["cause"] == "the site is down or unreachable (http://127.0.0.1:8765)"
    assert (unhealthy[0]["runs"], unhealthy[0]["of"], unhealthy[0]["nights"]) == (9, 10, 1)
    # No failing for the broken runs; w0 really failed: its own failure is counted (pending, alert at 2).
    assert [e["kind"] for e in sick] == ["unhealthy"]
    assert team.state("w4")["state"] == "broken" and team.state("w0")["state"] == "pending"
    assert team.state("w4")["strip"].endswith("✗ !")
    data = team.out.data
    assert data["unhealthy"]["tests"] == team.tests[1:]
    text = alerts.message(sick, data["causes"])["text"]
    assert text.splitlines()[0] == "reuseit nightly: unhealthy night (9 of 10 runs broken by one cause)"
    assert "`the site is down or unreachable (http://127.0.0.1:8765)` broke 9 of 10 runs" in text
    # The next healthy night: no fixed flood (nothing that broke was counted as failing); w3's
    # alert, open before the sick night, is fixed as it passes. w4 fails again: with the uncounted
    # run between them set aside, that is two failures in a row.
    after = team.run(w4="failed")
    assert sorted((e["kind"], e["test"]) for e in after) == [("failing", team.tests[4]), ("fixed", team.tests[3])]
    opened = next(e for e in after if e["kind"] == "failing")
    assert opened["rule"] == "failed 2 runs in a row (--alert-after 2)" and opened["strip"].endswith("✗ ! ✗")
    assert opened["since"] == team.nights.starts[2]
    # since-last compares with each test's last counted run: w0 failed for real and passes again.
    assert [r["test"] for r in team.out.data["fixed"]] == [team.tests[0], team.tests[3]]
    assert team.out.data["unhealthy"] is None


def test_a_night_with_a_few_broken_runs_is_not_sick() -> None:
    recs = [record(f"w{n}", "broken", error=DOWN) for n in range(5)] + [record(f"p{n}") for n in range(5)]
    assert night_health.judge(recs) is None  # five of ten: not more than half
    recs.append(record("w9", "broken", error="cannot start the browser (local): spawn ENOENT; install Chromium"))
    assert night_health.judge(recs) is None  # two causes: the largest is still five of eleven
    grid = [record(f"g{n}", "broken", error="the Selenium Grid node http://10.0.0.5:5555 stopped answering") for n in range(3)]  # fmt: skip
    found = night_health.judge(grid + [record("ok")])
    assert found is not None and found.cause == "the browser host or Selenium Grid is gone (http://10.0.0.5:5555)"
    model = [record(f"m{n}", "broken", error="model gpt-4o at http://127.0.0.1:9/v1 gave no usable Verdict answer") for n in range(2)]  # fmt: skip
    found = night_health.judge(model + [record("skipped", "skipped")] * 3)
    assert found is not None and (found.cause, found.runs, found.judged) == (
        "the model server is failing (http://127.0.0.1:9)",
        2,
        2,
    )
    # Credentials in an address never reach a message.
    creds = [
        record("c", "broken", error="goto https://bob:s3cret@shop.example/x: the site is unreachable (net::ERR_X)")
    ]
    found = night_health.judge(creds)
    assert found is not None and "s3cret" not in found.cause and "shop.example" in found.cause


def test_a_workflow_that_always_passes_is_in_no_message(tmp_path: Path) -> None:
    team = Team(tmp_path)
    for n in range(25):
        team.run(**({"w1": "failed"} if n % 3 == 0 else {}))
    assert team.kinds("w0") == [] and team.kinds("w2") == []
    assert team.state("w0")["state"] == "passing" and team.state("w0")["strip"] == " ".join(["✓"] * 10)


def test_every_message_has_the_rule_the_strip_and_the_last_pass(tmp_path: Path) -> None:
    team = Team(tmp_path)
    team.run()
    helped = [{"step": 1, "action": "Step 1", "fallback": "do: click text='No thanks'"}]
    events = team.run(w1="failed", w2={"status": "recovered", "recovered": helped})
    text = alerts.message(events, team.out.data["causes"])["text"]
    last_pass = team.nights.starts[0]
    assert f": failed 1 run in a row (--alert-after 1); last runs `✓ ✗`; last passed {last_pass}" in text
    assert "last runs `✓ ~`; last passed" in text  # the drifting one passed tonight
    events = team.run()
    text = alerts.message(events, [])["text"]
    assert "Fixed: passing again\n- `w1.reuseit.yaml::w1` (failing since" in text
    assert ": passed 1 run in a row (--recover-after 1); last runs `✓ ✗ ✓`" in text


def test_a_history_from_before_the_policy_keeps_its_open_alerts(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    nights = Nights(path)
    nights.report([record("a"), record("b")])
    nights.report([record("a", "failed", night=1, locator=ADD), record("b", night=1)])
    # Back to schema 2: only whether an alert was open, no policy columns.
    with sqlite3.connect(path) as conn:
        conn.execute(
            "CREATE TABLE old (test TEXT PRIMARY KEY, alerted INTEGER NOT NULL DEFAULT 0,"
            " since INTEGER, last_event TEXT NOT NULL DEFAULT '', updated REAL NOT NULL DEFAULT 0)"
        )
        conn.execute("INSERT INTO old SELECT test, alerted, since, last_event, updated FROM alert_state")
        conn.execute("DROP TABLE alert_state")
        conn.execute("ALTER TABLE old RENAME TO alert_state")
        conn.execute("ALTER TABLE runs DROP COLUMN uncounted")
        conn.execute("ALTER TABLE suite_runs DROP COLUMN unhealthy")
        conn.execute("UPDATE meta SET value = '2' WHERE key = 'version'")
        conn.execute("PRAGMA user_version = 2")
    assert history.check(path) == 2
    out = nights.report([record("a", night=2), record("b", night=2)])
    assert [(e["kind"], e["test"]) for e in out.events] == [("fixed", "a")]
    assert list(tmp_path.glob("history.sqlite.v2*.bak"))


def test_report_options_come_from_the_command_line_the_ini_or_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pytest.ini").write_text("[pytest]\nreuseit_alert_window = 2/5\n")
    monkeypatch.setenv("REUSEIT_RECOVER_AFTER", "3")
    monkeypatch.setenv("REUSEIT_ALERT_WINDOW", "9/9")  # the ini wins over the environment
    results = results_folder(tmp_path / "results", [record("a")])
    assert main(["report", "--results", str(results), "--no-allure", "--remind-every", "4"]) == 0
    data = json.loads((tmp_path / "allure-report" / "since-last.json").read_text(encoding="utf-8"))
    assert data["alert_policy"] == {
        "alert_after": 1,
        "alert_window": "2/5",
        "recover_after": 3,
        "remind_every": 4,
        "flapping": {"start": 20.0, "stop": 10.0, "runs": 21},
    }
    assert data["states"][0]["state"] == "passing"
    out = capsys.readouterr().out
    assert "\nstates: 1 passing\n" in out


@pytest.mark.parametrize(
    ("args", "env", "says"),
    [
        (["--alert-after", "0"], {}, "--alert-after: must be 1 to 1000, not 0"),
        (["--alert-window", "4/3"], {}, "--alert-window: '4/3' is not K/M"),
        (["--alert-window", "3"], {}, "--alert-window: '3' is not K/M"),
        (["--alert-window", "3/500"], {}, "--alert-window: M is at most 100 runs"),
        ([], {"REUSEIT_RECOVER_AFTER": "soon"}, "$REUSEIT_RECOVER_AFTER: not a whole number: 'soon'"),
        ([], {"REUSEIT_REMIND_EVERY": "-1"}, "$REUSEIT_REMIND_EVERY: must be 0 to 1000, not -1"),
    ],
)
def test_a_bad_policy_option_is_one_line_naming_where_it_came_from_and_nothing_is_written(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    env: dict[str, str],
    says: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    results = results_folder(tmp_path / "results", [record("a")])
    assert main(["report", "--results", str(results), "--no-allure", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"reuseit report: {says}") and len(err.splitlines()) == 1
    assert not (tmp_path / ".reuseit").exists() and not (tmp_path / "allure-report").exists()


def test_prometheus_has_each_runs_state_as_one_of_seven(tmp_path: Path) -> None:
    recs = [record("a.reuseit.yaml::a"), record("b.reuseit.yaml::b", "failed")]
    text = metrics.registry_of(recs, states={"a.reuseit.yaml::a": "passing", "b.reuseit.yaml::b": "flapping"})
    path = tmp_path / "metrics.prom"
    from prometheus_client import write_to_textfile

    write_to_textfile(str(path), text)
    lines = [line for line in path.read_text().splitlines() if line.startswith("reuseit_state{")]
    assert len(lines) == 14
    assert 'reuseit_state{state="flapping",variation="default",workflow="b.reuseit.yaml"} 1.0' in lines
    assert 'reuseit_state{state="failing",variation="default",workflow="b.reuseit.yaml"} 0.0' in lines
    assert 'reuseit_state{state="passing",variation="default",workflow="a.reuseit.yaml"} 1.0' in lines


def test_the_flap_score_is_nagios_weighted_state_change() -> None:
    assert alert_policy.flap_score([False] * 21) == 0.0
    assert alert_policy.flap_score([n % 2 == 0 for n in range(21)]) == pytest.approx(100.0)
    # One change, the newest: weight 1.25 of 20; the oldest of 21 runs: 0.75 of 20.
    assert alert_policy.flap_score([False] * 20 + [True]) == pytest.approx(6.25)
    assert alert_policy.flap_score([True] + [False] * 20) == pytest.approx(3.75)
    # Fewer runs than the window: the changes still count out of 20 (Nagios fills its history).
    assert alert_policy.flap_score([False, True]) == pytest.approx(6.25)


def test_a_workflow_trimmed_out_of_the_history_keeps_no_alert_track(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    nights = Nights(path)
    nights.report([record("gone", "failed", locator=ADD), record("kept")])
    for night in range(1, 4):
        with history.writing(path) as h:
            recs = [record("kept", night=night)]
            suite = h.append(recs)
            since_last.compare(h, suite, recs)
            h.trim(keep_runs=2, sweep_every=1)
    with sqlite3.connect(path) as conn:
        assert [row[0] for row in conn.execute("SELECT test FROM alert_state")] == ["kept"]
