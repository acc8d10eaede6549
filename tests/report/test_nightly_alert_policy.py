"""The alert policy on real nights: a served shop that changes night by night, ``pytest`` on the
workflows, ``reuseit report`` with the history kept between nights and a webhook on 127.0.0.1
that keeps every message, with ``--alert-after 2 --alert-window 3/10`` as a team would set them.

The suite (tests/support/nightly_site.py): ``add-shoes`` meets a button renamed on alternate
nights for ten nights (the site's flakiness), ``add-hat`` one whose order is lost one night in
three, never twice in a row, and ``deals`` and ``add-jacket`` always pass. One night the site is
down. The goals of the policy (docs/monitoring.md, "Alert policy") are read off what the webhook
heard, and the last night's monitor.html is read in Chromium.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_reuseit.browser.session import BrowserSession
from tests.support import nightly_site

pytestmark = pytest.mark.slow

SHOES = "add-shoes.reuseit.yaml::add-shoes[default]"
HAT = "add-hat.reuseit.yaml::add-hat[default]"
ALWAYS = ("add-jacket.reuseit.yaml::add-jacket[default]", "deals.reuseit.yaml::deals[default]")
# Quiet nights first: with the ten that follow, the 10 runs of history flapping needs are there
# by the shoes' third failure (each night is a real pytest session: about 2 s).
HEALTHY_NIGHTS = 4


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Team(nightly_site.Team):
    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.heard: list[list[dict[str, Any]]] = []  # each night's events, as the webhook got them
        self.texts: list[str] = []  # each night's message text ("" when nothing was sent)

    def run_night(self, shoes: str = "Add to cart", hat: str = "Add to cart", down: bool = False) -> dict[str, Any]:
        self.night.labels = {"shoes": shoes, "hat": hat}
        base = f"http://127.0.0.1:{_closed_port()}" if down else ""
        _, data = self.run(base, "--alert-after", "2", "--alert-window", "3/10")
        messages = self.hook.take()
        assert len(messages) <= 1  # one message a night at most
        self.heard.append(messages[0]["events"] if messages else [])
        self.texts.append(messages[0]["text"] if messages else "")
        return data

    def kinds(self, test: str) -> list[tuple[int, str]]:
        return [(n, e["kind"]) for n, events in enumerate(self.heard) for e in events if e["test"] == test]


@pytest.fixture
def team(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Iterator[Team]:
    with nightly_site.team_of(pytester, monkeypatch, Team) as team:
        yield team


def test_a_month_of_nights_sends_one_message_per_problem(team: Team, browser_session: BrowserSession) -> None:
    for _ in range(HEALTHY_NIGHTS):
        team.run_night()
    assert team.heard == [[]] * HEALTHY_NIGHTS
    # Ten nights: the shoes' button renamed every other night, the hat's order lost one night in three.
    for n in range(10):
        data = team.run_night(
            shoes="Add to basket" if n % 2 == 0 else "Add to cart",
            hat="Add to basket" if n in (1, 4, 7) else "Add to cart",
        )
        if n == 7:  # the hat's third failure in ten runs, never two in a row: its one failing
            (event,) = [e for e in team.heard[-1] if e["test"] == HAT]
            assert event["kind"] == "failing"
            assert event["rule"] == "failed 3 of its last 10 runs, never 2 in a row (--alert-window 3/10)"
            assert event["strip"] == "✓ ✓ ✓ ✗ ✓ ✓ ✗ ✓ ✓ ✗"
            assert "Add to basket" in team.texts[-1]
    assert team.kinds(HAT)[0] == (HEALTHY_NIGHTS + 7, "failing")  # nothing before the third
    # The shoes: the third failure opens its alert (3 of 10); the next flip is flapping instead of
    # fixed, and from then on nothing for it but the steady that will end it.
    shoes = team.kinds(SHOES)
    assert [k for _, k in shoes] == ["failing", "flapping"], shoes
    flap_night = shoes[1][0]
    flap = next(e for e in team.heard[flap_night] if e["test"] == SHOES)
    assert flap["whose"] == "site", flap
    assert flap["whose_words"].startswith("the site's: step 1 (role='button'[name='Add to cart']) failed each time")
    assert "% state change (flapping from 20%, steady at 10%)" in flap["rule"]
    assert "Flapping: failing and passing by turns" in team.texts[flap_night]

    # The site is down for a night: one unhealthy message, no failing for any workflow.
    data = team.run_night(down=True)
    (sick,) = team.heard[-1]
    assert sick["kind"] == "unhealthy" and (sick["runs"], sick["of"]) == (4, 4)
    assert sick["cause"].startswith("the site is down or unreachable (http://127.0.0.1:")
    assert {s["state"] for s in data["states"]} == {"broken"}
    assert data["unhealthy"]["runs"] == 4
    # The next healthy night: no fixed flood, nothing fixed since the last counted runs.
    data = team.run_night()
    assert [e["kind"] for e in team.heard[-1]] in ([], ["steady"])
    assert data["fixed"] == [] and data["new_failures"] == []

    # Quiet nights until the shoes are steady again: exactly one steady, saying passing.
    while team.count < 40 and not any(k == "steady" for _, k in team.kinds(SHOES)):
        team.run_night()
    shoes = team.kinds(SHOES)
    assert [k for _, k in shoes] == ["failing", "flapping", "steady"], shoes
    steady = next(e for e in team.heard[shoes[2][0]] if e["test"] == SHOES)
    assert steady["state"] == "passing" and steady["rule"].startswith("state change down to")
    for test in ALWAYS:
        assert team.kinds(test) == []  # always passing: in no message

    # monitor.html, as a person opens it: each workflow's state and the rule, in Chromium.
    context = browser_session.new_context({"viewport": {"width": 1280, "height": 900}}, None)
    try:
        page = context.new_page()
        page.goto((team.output / "monitor.html").as_uri())
        states = page.locator("p.states").inner_text()
        assert states.startswith("states: ") and "passing" in states
        row = page.locator("#workflows tr", has=page.locator(f"td.wf[title='{SHOES}']"))
        assert row.locator("td.state").inner_text().startswith("passing")
        assert row.locator("td.cell.s-uncounted").count() == 1  # the night the site was down
    finally:
        context.close()


def test_a_night_the_browser_host_is_gone_is_one_unhealthy_message(team: Team) -> None:
    """The browser is another machine's (``--reuseit-cdp``) and it is down tonight: every run is
    broken before its first step, each with its record, and the night is one message."""
    team.run_night()
    results = team.root / "results-gone"
    host = f"http://127.0.0.1:{_closed_port()}"
    run = team.pytest(results, "", "--reuseit-cdp", host)
    assert run.ret == 1
    out = run.stdout.str()
    assert out.count("[infrastructure] cannot start the browser") >= 4, out[-3000:]
    assert "0 passed, 0 recovered, 0 healed, 0 failed, 4 broken  (4 workflow runs)" in out
    assert "no browser could be started or reached for it" in out
    team.report(results, team.root / "gone")  # exit 0, or it says what it printed
    (message,) = team.hook.take()
    (event,) = message["events"]
    assert event["kind"] == "unhealthy" and (event["runs"], event["of"]) == (4, 4)
    assert event["cause"] == f"the browser host or Selenium Grid is gone ({host})"
    # Back the next night: nothing to say.
    team.run_night()
    assert team.heard[-1] == []
