"""Six nights of a team's monitoring, run as the team runs it: ``pytest`` on the workflows against a
live site, then ``reuseit report`` with the history kept between nights and a webhook listening.

The site (tests/support/nightly_site.py) changes between nights as deploys change real sites:

1. all is well;                   2. nothing changed;
3. "Add to cart" is renamed "Add to basket" (three workflows meet it: one cause);
4. still renamed, and a newsletter overlay covers the deals page (its fallback gets past it);
5. both fixed;                    6. nothing changed.

Every night must say what the contract (docs/monitoring.md) says of it, and the webhook must hear
only of nights where something changed state.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support import nightly_site

pytestmark = pytest.mark.slow

ADDS = sorted(f"add-{item}.reuseit.yaml::add-{item}[default]" for item in ("hat", "jacket", "shoes"))
DEALS = "deals.reuseit.yaml::deals[default]"


class Team(nightly_site.Team):
    def run_night(self, add_label: str = "Add to cart", overlay: bool = False) -> tuple[str, dict[str, Any]]:
        """Deploy tonight's site, run the suite, report it; the report's line and since-last.json."""
        self.night.add_label, self.night.overlay = add_label, overlay
        printed, data = self.run()
        (line,) = [x for x in printed.splitlines() if x.startswith("since the last run:")]
        return line, data


@pytest.fixture
def team(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Iterator[Team]:
    with nightly_site.team_of(pytester, monkeypatch, Team) as team:
        yield team


def _tests(runs: list[dict[str, Any]]) -> list[str]:
    return sorted(r["test"] for r in runs)


def test_six_nights_of_a_changing_site_say_what_changed_and_alert_only_on_change(team: Team) -> None:
    # Night 1: all is well; the first night in the history has nothing to compare with.
    line, data = team.run_night()
    assert (
        line == "since the last run: 0 new failures (0 causes), 0 still failing, 0 fixed, 0 newly recovered, 0 slower"
    )
    assert team.hook.take() == []

    # Night 2: nothing changed: the same line, and no message.
    line, data = team.run_night()
    assert line.endswith("0 new failures (0 causes), 0 still failing, 0 fixed, 0 newly recovered, 0 slower")
    assert team.hook.take() == []

    # Night 3: the add button is renamed. Three red runs, one cause, and what changed on the page
    # since the last pass names both labels.
    line, data = team.run_night(add_label="Add to basket")
    assert line == "since the last run: 3 new failures (1 cause), 0 still failing, 0 fixed, 0 newly recovered, 0 slower"
    assert _tests(data["new_failures"]) == ADDS
    (cause,) = data["causes"]
    assert sorted(cause["tests"]) == ADDS
    assert cause["step"] == 1 and "Add to cart" in cause["locator"]
    assert cause["summary"] == (
        'button "Add to cart" is gone from /product since the last pass; a button "Add to basket" appeared (renamed?)'
    )
    assert cause["first_seen"] == data["suite_run"]["started"]
    assert cause["changed"]["removed"] == ['- button "Add to cart"']
    assert cause["changed"]["added"] == ['- button "Add to basket"']
    (message,) = team.hook.take()
    assert sorted((e["kind"], e["test"]) for e in message["events"]) == [("failing", t) for t in ADDS]
    assert {e["cause"] for e in message["events"]} == {cause["id"]}
    assert "Add to basket" in message["text"] and "Add to cart" in message["text"]
    renamed_on = data["suite_run"]["started"]

    # Night 4: still renamed (no new message for it), and the deals page gets an overlay its
    # fallback dismisses: newly recovered, the early warning, sent once as drifting.
    line, data = team.run_night(add_label="Add to basket", overlay=True)
    assert (
        line == "since the last run: 0 new failures (0 causes), 3 still failing, 0 fixed, 1 newly recovered, 0 slower"
    )
    assert _tests(data["still_failing"]) == ADDS
    assert {r["since"] for r in data["still_failing"]} == {renamed_on}
    assert {r["runs_failing"] for r in data["still_failing"]} == {2}
    (recovered,) = data["newly_recovered"]
    assert recovered["test"] == DEALS and recovered["step"] == 1
    assert "No thanks" in json.dumps(recovered)
    (cause,) = data["causes"]
    assert cause["first_seen"] == renamed_on
    (message,) = team.hook.take()
    assert [(e["kind"], e["test"]) for e in message["events"]] == [("drifting", DEALS)]

    # Night 5: both fixed: three fixed runs, the deals pass without help, one message saying so.
    line, data = team.run_night()
    assert (
        line == "since the last run: 0 new failures (0 causes), 0 still failing, 3 fixed, 0 newly recovered, 0 slower"
    )
    assert _tests(data["fixed"]) == ADDS and data["causes"] == []
    (message,) = team.hook.take()
    assert sorted((e["kind"], e["test"]) for e in message["events"]) == [("fixed", t) for t in ADDS]

    # Night 6: nothing changed: nothing sent.
    line, data = team.run_night()
    assert line.endswith("0 new failures (0 causes), 0 still failing, 0 fixed, 0 newly recovered, 0 slower")
    assert team.hook.take() == []
    assert data["flaky"] == []  # one break and one fix is no flakiness
