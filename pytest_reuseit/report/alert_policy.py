"""The alert policy: each workflow run's state after a night and the messages that state sends
(docs/monitoring.md, "Alert policy").

Pure: ``decide(track, runs, policy)`` takes what the history holds of one test (its kept
:class:`Track` and its recent runs, oldest first, tonight's last) and gives the new track, the
state shown tonight with the rule that put it there in numbers, and the events to send.
report/since_last.py reads the history, calls it for every test of the night and keeps the tracks.

The rules, in the order they are tried:

1. A run broken on an unhealthy night (report/night_health.py) counts for nothing: the state
   stands, shown as ``broken``; a skipped run changes nothing either.
2. Flapping (Nagios' flap detection): the weighted share of state changes between pass and fail
   over the test's last 21 counted runs, the newest change weighing 1.25 and the oldest 0.75, out
   of the 20 changes 21 runs can hold. It starts at ``flap_start`` percent (with 10 runs at least,
   tonight's among them) on a night the run flips between pass and fail, whether or not that
   night would send anything, when the test already sent ``failing`` or ``fixed`` within its last
   21 runs (a first alert, and the first after a ``steady``, is always sent), and
   stops at ``flap_stop`` or below, or once the test has failed ``FLAP_BREAK`` runs in a row (a
   flapping workflow that now fails every night is failing, said within days, not when the old
   flips have aged out of the window). While it flaps, nothing but the ``steady`` that ends it.
3. An alert opens (``failing``) when the test has failed ``alert_after`` runs in a row or
   ``window_k`` of its last ``window_m`` counted runs; until then the state is ``pending``.
4. An open alert closes (``fixed``) after ``recover_after`` passes in a row; until then the state
   is ``recovering`` and nothing is sent. ``remind_every`` re-sends it every N runs while open.
5. A pass through a fallback or healing after a plain pass is ``drifting`` (sent once).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from .records import FAILING, PASSING

STATES = ("passing", "drifting", "pending", "failing", "recovering", "flapping", "broken")
# Where a person looks first: the report line, the monitor page's rows.
WORST_FIRST = ("failing", "flapping", "broken", "pending", "recovering", "drifting", "passing")
FLAP_RUNS = 21  # Nagios' window: 21 runs, 20 changes between them
FLAP_MIN = 10  # runs of history before a test can be said to flap
FLAP_LOW_WEIGHT, FLAP_HIGH_WEIGHT = 0.75, 1.25  # the oldest change weighs 0.75, the newest 1.25
FLAP_BREAK = 4  # failures in a row that end flapping as failing
STRIP_RUNS = 10
MARKS = {"passed": "✓", "recovered": "~", "healed": "~", "failed": "✗", "broken": "✗", "skipped": "·"}
UNCOUNTED_MARK = "!"  # broken on an unhealthy night: counted toward no rule


@dataclass(frozen=True)
class Policy:
    alert_after: int = 1
    window_k: int = 3
    window_m: int = 10
    recover_after: int = 1
    remind_every: int = 0  # 0: an open alert is sent once
    # Why 20 and 10 (docs/monitoring.md): 20% is Nagios' own start for services, and in a
    # nightly window it is two separate one-night failures within about two weeks, or a third
    # flip of a workflow failing every other night; 10% is two old changes, so a workflow that
    # stopped flipping is steady about two weeks later, and one that fails for good within
    # FLAP_BREAK nights.
    flap_start: float = 20.0
    flap_stop: float = 10.0

    @property
    def reach(self) -> int:
        """Counted runs of a test the rules read back."""
        return max(self.window_m, FLAP_RUNS, self.alert_after, self.recover_after, STRIP_RUNS)


@dataclass(frozen=True)
class Run:
    """One run of the test as the rules see it."""

    suite: int
    when: str
    status: str
    counted: bool = True  # False: broken on an unhealthy night
    step: int | None = None
    target: str = ""  # the check or the locator that failed
    cause: str = ""
    timed_out: bool = False
    page_changed: bool | None = None  # the failing step's page against the last pass; None: not known

    @property
    def fails(self) -> bool:
        return self.status in FAILING

    @property
    def judged(self) -> bool:
        return self.counted and (self.status in FAILING or self.status in PASSING)


@dataclass(frozen=True)
class Track:
    """What the history keeps of a test between nights."""

    state: str = "passing"
    open: bool = False  # a failing alert is open
    since: int | None = None  # the run of the suite the open alert counts from
    since_when: str = ""
    flapping: bool = False
    open_runs: int = 0  # counted runs since the alert opened (reminders)
    quiet: int | None = None  # counted runs since its last failing, fixed, flapping or steady; None: never sent


@dataclass
class Decision:
    track: Track
    state: str
    rule: str
    events: list[dict[str, Any]]
    strip: str
    last_passed: str  # "" when none of the runs read passed


def decide(track: Track, runs: list[Run], policy: Policy) -> Decision:
    """Tonight's state of a test, from its kept track and its recent runs (tonight's last)."""
    tonight = runs[-1]
    strip = strip_of(runs)
    last_passed = next((r.when for r in reversed(runs) if r.status in PASSING), "")
    shown = Decision(track, track.state, "", [], strip, last_passed)
    if not tonight.counted:
        shown.state, shown.rule = "broken", "broken on an unhealthy night: counted toward no rule; the state stands"
        return shown
    if not tonight.judged:
        shown.rule = f"{tonight.status} tonight: the state stands"
        return shown
    counted = [r for r in runs if r.judged][-policy.reach :]
    facts = _Facts(counted, policy)
    if track.flapping:
        if facts.score > policy.flap_stop and facts.streak < max(FLAP_BREAK, policy.alert_after):
            shown.state, shown.rule = "flapping", facts.flap_words()
            return shown
        why = (
            f"failed {facts.streak} runs in a row"
            if facts.streak >= max(FLAP_BREAK, policy.alert_after)
            else f"state change down to {facts.score:.0f}% (steady at {policy.flap_stop:g}% or less)"
        )
        # After a steady the next failing or fixed is sent, as a first one is: one change after a
        # settled state is news, and only the flip after it starts flapping again.
        decision = _settle(replace(track, flapping=False, quiet=None), facts, policy, shown)
        decision.events = [
            {
                "kind": "steady",
                "state": decision.state,
                "rule": f"{why}; now {decision.state}: {decision.rule}",
            }
        ]
        return decision
    decision = _transition(track, facts, policy, shown)
    flips = [e for e in decision.events if e["kind"] in ("failing", "fixed") and not e.get("reminder")]
    if _may_flap(track, counted, facts, policy):
        # The runs have begun to flip after an alert: one message now, then nothing until it is
        # steady. Also on a flip that sends nothing (an open alert recovering with --recover-after
        # 2, a pending failure with --alert-after 2): those flips are the flapping just as much.
        whose, words = whose_flips(counted[-FLAP_RUNS:])
        rule = facts.flap_words()
        steps = sorted({r.step for r in counted[-FLAP_RUNS:] if r.fails and r.step is not None})
        since = flips[0].get("since", "") if flips else (track.since_when if track.open else "")
        decision.track = replace(track, state="flapping", flapping=True, quiet=0)
        decision.state, decision.rule = "flapping", rule
        decision.events = [{"kind": "flapping", "state": "flapping", "rule": rule, "whose": whose,
                            "whose_words": words, "steps": steps, "since": since}]  # fmt: skip
        return decision
    if flips:
        decision.track = replace(decision.track, quiet=0)
    elif decision.track.quiet is not None:
        decision.track = replace(decision.track, quiet=min(decision.track.quiet + 1, FLAP_RUNS))
    return decision


def _may_flap(track: Track, counted: list[Run], facts: _Facts, policy: Policy) -> bool:
    """Flapping starts on a night the run flips between pass and fail, with ``FLAP_MIN`` runs at
    least and the runs' weighted state change at the start threshold, when this test has already
    sent ``failing`` or ``fixed`` within the flap window: a workflow whose failures never reached a
    message (a first alert, one failure in three with --alert-after 2) gets that message first; the
    flips after it are what is held.

    A flip, not a night that would send: with --recover-after 2 an alert opened by the first of
    alternate failures stays open, so no night sends until the flips end and flapping would be said
    only then. A flip, not any night: the score rises only on a flip, and a quiet pass after a
    ``fixed`` whose old flips still weigh is not news."""
    return (
        track.quiet is not None
        and track.quiet < FLAP_RUNS
        and len(counted) >= FLAP_MIN
        and counted[-1].fails != counted[-2].fails
        and facts.score >= policy.flap_start
    )


class _Facts:
    """The numbers the rules read off a test's counted runs."""

    def __init__(self, counted: list[Run], policy: Policy) -> None:
        self.runs = counted
        self.policy = policy
        fails = [r.fails for r in counted]
        self.streak = _trailing(fails, True)
        self.passes = _trailing(fails, False)
        self.window = counted[-policy.window_m :]
        self.in_window = sum(1 for r in self.window if r.fails)
        self.score = flap_score(fails[-FLAP_RUNS:])

    def flap_words(self) -> str:
        recent = self.runs[-FLAP_RUNS:]
        n_fail = sum(1 for r in recent if r.fails)
        return (
            f"{n_fail} failure{'s' if n_fail != 1 else ''} in the last {len(recent)} runs, "
            f"{self.score:.0f}% state change (flapping from {self.policy.flap_start:g}%, "
            f"steady at {self.policy.flap_stop:g}%)"
        )

    def streak_start(self) -> Run:
        return self.runs[-max(1, self.streak)]

    def window_start(self) -> Run:
        return next(r for r in self.window if r.fails)


def _settle(track: Track, facts: _Facts, policy: Policy, shown: Decision) -> Decision:
    """The state a test lands in when it stops flapping: the rules applied afresh, alert open or not."""
    tonight = facts.runs[-1]
    if tonight.fails:
        opened = _opening(facts, policy)
        if opened is None:
            shown.track = replace(track, state="pending", open=False, since=None, since_when="", open_runs=0)
            shown.state, shown.rule = "pending", _pending_words(facts, policy)
            return shown
        rule, first = opened
        shown.track = replace(track, state="failing", open=True, since=first.suite, since_when=first.when, open_runs=0)
        shown.state, shown.rule = "failing", rule
        return shown
    state = "drifting" if tonight.status != "passed" else "passing"
    shown.track = replace(track, state=state, open=False, since=None, since_when="", open_runs=0)
    shown.state, shown.rule = state, _passing_words(facts, policy)
    return shown


def _transition(track: Track, facts: _Facts, policy: Policy, shown: Decision) -> Decision:
    """Rules 3 to 5: open, remind, recover, close, drift."""
    tonight = facts.runs[-1]
    if tonight.fails:
        if track.open:
            open_runs = track.open_runs + 1
            shown.track = replace(track, state="failing", open_runs=open_runs)
            shown.state = "failing"
            shown.rule = f"alert open since {track.since_when or 'an earlier run'}: {_failing_words(facts, policy)}"
            if policy.remind_every and open_runs % policy.remind_every == 0:
                shown.events = [
                    {"kind": "failing", "state": "failing", "since": track.since_when, "reminder": open_runs,
                     "rule": f"still failing, {open_runs} runs after the alert opened (--remind-every "
                     f"{policy.remind_every}): {_failing_words(facts, policy)}"}
                ]  # fmt: skip
            return shown
        opened = _opening(facts, policy)
        if opened is None:
            shown.track = replace(track, state="pending")
            shown.state, shown.rule = "pending", _pending_words(facts, policy)
            return shown
        rule, first = opened
        shown.track = replace(track, state="failing", open=True, since=first.suite, since_when=first.when, open_runs=0)
        shown.state, shown.rule = "failing", rule
        shown.events = [{"kind": "failing", "state": "failing", "since": first.when, "rule": rule}]
        return shown
    helped = tonight.status != "passed"
    if track.open:
        if facts.passes < policy.recover_after:
            shown.track = replace(track, state="recovering", open_runs=track.open_runs + 1)
            shown.state = "recovering"
            shown.rule = (
                f"passed {facts.passes} of the {policy.recover_after} runs in a row that close the alert "
                f"(--recover-after {policy.recover_after}); nothing sent until then"
            )
            return shown
        state = "drifting" if helped else "passing"
        rule = f"passed {facts.passes} run{'s' if facts.passes != 1 else ''} in a row (--recover-after {policy.recover_after})"
        shown.track = replace(track, state=state, open=False, since=None, since_when="", open_runs=0)
        shown.state, shown.rule = state, rule
        shown.events = [{"kind": "fixed", "state": state, "since": track.since_when, "rule": rule}]
        return shown
    state = "drifting" if helped else "passing"
    shown.track = replace(track, state=state)
    shown.state, shown.rule = state, _passing_words(facts, policy)
    earlier = facts.runs[-2] if len(facts.runs) > 1 else None
    if helped and earlier is not None and earlier.status == "passed":
        shown.events = [{"kind": "drifting", "state": state, "since": tonight.when, "rule": shown.rule}]
    return shown


def _opening(facts: _Facts, policy: Policy) -> tuple[str, Run] | None:
    """The rule that opens an alert tonight, in numbers, and the run it counts from; None: none holds."""
    if facts.streak >= policy.alert_after:
        n = facts.streak
        return (
            f"failed {n} run{'s' if n != 1 else ''} in a row (--alert-after {policy.alert_after})",
            facts.streak_start(),
        )
    if facts.in_window >= policy.window_k:
        return (
            f"failed {facts.in_window} of its last {len(facts.window)} runs, never {policy.alert_after} in a row "
            f"(--alert-window {policy.window_k}/{policy.window_m})",
            facts.window_start(),
        )
    return None


def _failing_words(facts: _Facts, policy: Policy) -> str:
    return f"{facts.streak} failed in a row, {facts.in_window} of the last {len(facts.window)}"


def _pending_words(facts: _Facts, policy: Policy) -> str:
    return (
        f"failed {facts.streak} in a row (alert at {policy.alert_after}) and {facts.in_window} of the last "
        f"{len(facts.window)} (alert at {policy.window_k}/{policy.window_m}): no alert yet"
    )


def _passing_words(facts: _Facts, policy: Policy) -> str:
    how = "passed through a fallback or healing; " if facts.runs[-1].status != "passed" else ""
    n = facts.in_window
    return f"{how}{n} failure{'s' if n != 1 else ''} in the last {len(facts.window)} runs (alert at {policy.window_k})"


def _trailing(values: list[bool], value: bool) -> int:
    n = 0
    for v in reversed(values):
        if v != value:
            break
        n += 1
    return n


def flap_score(fails: list[bool]) -> float:
    """Nagios' percent state change: the changes between consecutive runs (the newest last),
    weighted from 0.75 (oldest of 20) to 1.25 (newest), out of the 20 changes 21 runs hold."""
    slots = FLAP_RUNS - 1
    recent = fails[-FLAP_RUNS:]
    total = 0.0
    for age, (before, after) in enumerate(zip(reversed(recent[:-1]), reversed(recent[1:]), strict=True)):
        if before != after:
            total += FLAP_HIGH_WEIGHT - age * (FLAP_HIGH_WEIGHT - FLAP_LOW_WEIGHT) / (slots - 1)
    return 100.0 * total / slots


def whose_flips(runs: list[Run]) -> tuple[str, str]:
    """Whether a flapping test's failures are the site's (the same step and check fail each time,
    on a page that differs from the last pass) or the test's (different steps, timeouts, the page
    as it was at the last pass): ``("site" | "test" | "unclear", the facts in words)``."""
    fails = [r for r in runs if r.fails]
    if not fails:
        return "unclear", "no failure kept to read"
    where = Counter((r.step, r.target) for r in fails)
    (step, target), most = where.most_common(1)[0]
    n = len(fails)
    at = f"step {step}" if step is not None else "the start"
    named = f"{at} ({target})" if target else at
    timed_out = sum(1 for r in fails if r.timed_out)
    changed = sum(1 for r in fails if r.page_changed is True)
    same_page = sum(1 for r in fails if r.page_changed is False)
    if len(where) > 1:
        steps = sorted({str(r.step) if r.step is not None else "start" for r in fails})
        places = f"steps {', '.join(steps)}" if len(steps) > 1 else f"step {steps[0]}, different checks"
        return "test", f"the test's: it fails at different places ({places}; {named} {most} of {n} times)"
    # The page against the last pass first: Playwright says "timed out" of every element it did not
    # find, so a timeout alone tells nothing when the page shows the element left.
    if changed and changed >= same_page:
        return "site", (
            f"the site's: {named} failed each time ({n} of {n}), and the page differed from the last pass "
            f"in {changed} of them"
        )
    if same_page:
        return "test", (
            f"the test's: {named} failed each time, but the page was as at the last pass in {same_page} "
            f"of {n} (the check or the wait varies, not the page)"
        )
    if timed_out * 2 >= n:
        return (
            "test",
            f"the test's: {named} timed out in {timed_out} of {n} failures, no page changed (a wait too short?)",
        )
    return "unclear", f"{named} failed each time ({n} of {n}); no page was kept to compare with the last pass"


def worst_first(state: str) -> int:
    """A state's place in :data:`WORST_FIRST` (a state it does not know after them all)."""
    return WORST_FIRST.index(state) if state in WORST_FIRST else len(WORST_FIRST)


def counted_states(states: list[str]) -> list[tuple[str, int]]:
    """How many runs are in each state, worst first."""
    counts: dict[str, int] = {}
    for state in states:
        counts[state] = counts.get(state, 0) + 1
    return [(s, counts[s]) for s in sorted(counts, key=lambda s: (worst_first(s), s))]


def strip_of(runs: list[Run]) -> str:
    """The test's last runs at a glance, oldest first: ``✓ ✓ ✗ ~ ✗`` (``~`` recovered or healed,
    ``·`` skipped, ``!`` broken on an unhealthy night and not counted)."""
    return " ".join(MARKS.get(r.status, "?") if r.counted else UNCOUNTED_MARK for r in runs[-STRIP_RUNS:])
