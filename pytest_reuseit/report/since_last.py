"""Since the last run: the reported run of the suite against the one before it (docs/monitoring.md).

``compare`` reads the history (the reported run already appended) and gives the one line every
report prints, the ``since-last.json`` dict, the alert events (state changes only, the state kept
in the history) and the recent runs per test for the monitor page.

Rules this module decides (stated in docs/monitoring.md, "Since the last run"):

- a run *passes* when passed, recovered or healed; it *fails* when failed or broken; skipped runs
  count as neither. A test is compared with its own latest earlier run within the last
  ``WINDOW`` runs of the suite; a test with none is new (a new test failing is a new failure). A
  test absent tonight is in no list: neither fixed nor failing.
- *slower*: a passing run whose duration exceeds both twice the median of its last 7 passing
  runs and that median + 5 s, with at least 3 earlier passing runs.
- *flaky*: 3 or more changes between passing and failing over the test's last 10 runs.
- *causes*: this run's failures grouped by what failed: the same infrastructure error (numbers,
  ports and ids stripped), or the same element (the failed op's locator) or check on the same
  page (url path without query); ``id`` is a short hash of that key, the same night after night.
"""

from __future__ import annotations

import hashlib
import json
import re
import statistics
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ..browser.aria import PageSnapshot, renamed, role_names
from ..browser.aria import compare as compare_pages
from . import night_health
from .alert_policy import FLAP_RUNS, Decision, Policy, Run, Track, counted_states, decide
from .history import History, SuiteRun, iso
from .records import FAILING, PASSING

WINDOW = 30  # runs of the suite read back for previous runs, flaky and slower
SLOWER_RUNS = 7
SLOWER_MIN_RUNS = 3
SLOWER_FACTOR = 2.0
SLOWER_MARGIN = 5.0
FLAKY_RUNS = 10
FLAKY_FLIPS = 3
RECENT_RUNS = WINDOW  # runs of the suite the monitor page shows

_NUMBERISH = re.compile(r"0x[0-9a-f]+|\b[0-9a-f]{8,}\b|\d+(?:\.\d+)?", re.IGNORECASE)


@dataclass
class SinceLast:
    line: str
    data: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    recent: list[dict[str, Any]] = field(default_factory=list)


# Playwright's words when another element lies over the one an op acts on.
_COVERED = re.compile(r"(<[^<>]*>(?:…|\.\.\.)?(?:</[\w-]+>)?) intercepts pointer events")
# A web address in an error: its origin is kept, its path and query dropped.
_URL = re.compile(r"\b(https?://[^/\s'\"]+)[^\s'\"]*")


def normalise(message: str) -> str:
    """An error message without what differs from run to run or workflow to workflow: numbers,
    ports, hex ids, and the page of an address (a site that is down is down for every page)."""
    return " ".join(_NUMBERISH.sub("#", _URL.sub(r"\1", message)).split())[:300]


def _path(url: str) -> str:
    try:
        parts = urlsplit(url)
    except ValueError:
        return url.split("?")[0]
    return parts.path or "/"


def _failing_url(record: dict[str, Any]) -> str:
    steps = record.get("steps") or []
    step = next((s for s in steps if isinstance(s, dict) and s.get("index") == record.get("step")), None)
    if step is not None and step.get("url"):
        return str(step["url"])
    last = next((s for s in reversed(steps) if isinstance(s, dict) and s.get("url")), None)
    return str(last["url"]) if last is not None else ""


def cause_key(record: dict[str, Any]) -> tuple[str, str]:
    """(key, one-line summary) of a failing run's cause."""
    infra = str(record.get("infrastructure") or "")
    if infra:
        return f"infra|{normalise(infra)}", f"infrastructure: {infra}"
    phase = str(record.get("phase") or "")
    kind = "check" if phase in ("pre", "post", "outcome") else "action"
    target = str(record.get("locator") or "") or str(record.get("check") or "")
    error = str(record.get("error") or "")
    if not target:
        if not record.get("step"):  # the run never got to a step: the start page, the browser
            return f"error|{normalise(error)}", error or "failed before its first step"
        target = normalise(error)
    path = _path(_failing_url(record))
    cover = _COVERED.search(error)
    if cover:
        # Whatever each run tried to click, on whichever page, the same element lay over it: one
        # problem, the overlay (a newsletter pop-up shown site-wide).
        element = " ".join(cover.group(1).split())
        return f"overlay|{element}", f"{element} covers {path or 'the page'} (intercepts pointer events)"[:300]
    if kind == "check" and not record.get("locator"):
        what = f'check "{record.get("check") or error}"'
    else:
        what = f"{target} ({'check' if kind == 'check' else phase or 'action'})"
    said = f": {error}" if error else ""
    return f"{kind}|{target}|{path}", f"{what} on {path or 'the page'}{said}"[:300]


def cause_id(record: dict[str, Any]) -> str | None:
    """The cause id of a failing run (None for a run that did not fail)."""
    if record.get("status") not in FAILING:
        return None
    key, _ = cause_key(record)
    return hashlib.sha1(key.encode()).hexdigest()[:10]


def annotate(records: list[dict[str, Any]]) -> None:
    """Give each failing record its ``cause`` id, which the history keeps (for ``first_seen``)."""
    for record in records:
        found = cause_id(record)
        if found is not None:
            record["cause"] = found


def _run(record: dict[str, Any]) -> dict[str, Any]:
    return {
        "test": record.get("test"),
        "workflow": record.get("workflow", ""),
        "variation": record.get("variation", ""),
        "status": record.get("status"),
        "step": record.get("step"),
        "action": record.get("action", ""),
    }


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else plural or word + 's'}"


def line_of(data: dict[str, Any]) -> str:
    new = data["new_failures"]
    n_causes = len({r.get("cause") for r in new})
    return (
        f"since the last run: {_plural(len(new), 'new failure')} ({_plural(n_causes, 'cause')}), "
        f"{len(data['still_failing'])} still failing, {len(data['fixed'])} fixed, "
        f"{len(data['newly_recovered'])} newly recovered, {len(data['slower'])} slower"
    )


def compare(
    history: History,
    suite: SuiteRun,
    records: list[dict[str, Any]],
    *,
    policy: Policy | None = None,
    heal_command: str = "reuseit heal --apply",
) -> SinceLast:
    """What changed from the previous run of the suite; each test's state under the alert policy
    and the events it sends, the tracks kept in the history. ``heal_command`` writes the edits the
    history proves (each cause with one names it)."""
    policy = policy or Policy()
    annotate(records)
    health = night_health.judge(records)
    if health is not None:
        history.mark_unhealthy(suite, health.cause, health.tests)
    # Enough runs of the suite for the policy's windows, and some nights a test did not run.
    window = history.window(suite, max(WINDOW, policy.reach + 10))
    earlier = window[:-1]
    by_test: dict[str, list[dict[str, Any]]] = {}
    order = {s.id: n for n, s in enumerate(window)}
    for run in history.runs_in(window):
        by_test.setdefault(run["test"], []).append(run)
    for runs in by_test.values():
        runs.sort(key=lambda r: order[r["suite_run"]])
    data: dict[str, Any] = {
        "suite_run": {"id": suite.id, "started": suite.when},
        "previous": {"id": earlier[-1].id, "started": earlier[-1].when} if earlier else None,
        "new_failures": [],
        "still_failing": [],
        "fixed": [],
        "newly_recovered": [],
        "slower": [],
        "flaky": [],
        "causes": [],
    }
    for record in records:
        test = str(record.get("test"))
        # A run a sick night broke is no evidence about the test: the one before it is its previous.
        past = [r for r in by_test.get(test, []) if r["suite_run"] != suite.id and not r["uncounted"]]
        _classify(history, suite, record, past, data)
    data["causes"] = _causes(history, suite, records, heal_command)
    data["line"] = line_of(data)
    latest = suite.new and history.is_latest(suite)
    when = {s.id: s.when for s in window}
    decisions = _decide(history, records, by_test, when, policy, keep=latest)
    _add_states(data, records, decisions, policy)
    unhealthy = None
    if health is not None:
        unhealthy = health.as_dict() | {"nights": history.unhealthy_streak(suite), "tests": list(health.tests)}
    data["unhealthy"] = unhealthy
    events = _events(history, suite, records, data, decisions) if latest else []
    return SinceLast(data["line"], data, events, _recent(window[-RECENT_RUNS:], by_test))


def _policy_run(row: dict[str, Any], when: dict[int, str]) -> Run:
    error = str(row.get("error") or "")
    changed: bool | None = None
    if row.get("changed"):
        try:
            found = json.loads(row["changed"])
        except ValueError:
            found = None
        if isinstance(found, dict):
            changed = bool(found.get("removed") or found.get("added"))
    return Run(
        suite=int(row["suite_run"]),
        when=when.get(int(row["suite_run"]), ""),
        status=str(row["status"]),
        counted=not row["uncounted"],
        step=row.get("step"),
        target=str(row.get("check") or row.get("locator") or ""),
        cause=str(row.get("cause") or ""),
        timed_out="timed out" in error or row.get("category") == "page_not_ready",
        page_changed=changed,
    )


def _decide(
    history: History,
    records: list[dict[str, Any]],
    by_test: dict[str, list[dict[str, Any]]],
    when: dict[int, str],
    policy: Policy,
    *,
    keep: bool,
) -> dict[str, Decision]:
    """Each test's decision tonight; its track kept when this is the newest run of the suite, met
    for the first time (a results folder reported again, or an older one, changes no track)."""
    tracks = history.tracks()
    out: dict[str, Decision] = {}
    for record in records:
        test = str(record.get("test"))
        rows = by_test.get(test) or []
        if not rows:
            continue
        runs = [_policy_run(r, when) for r in rows]
        if test not in tracks and not any(r.judged for r in runs):
            continue  # never judged (skipped each time): no state to claim for it
        decision = decide(tracks.get(test, Track()), runs, policy)
        out[test] = decision
        if keep:
            kinds = ",".join(str(e["kind"]) for e in decision.events)
            history.keep_track(test, decision.track, decision.rule, kinds)
    return out


def _add_states(
    data: dict[str, Any], records: list[dict[str, Any]], decisions: dict[str, Decision], policy: Policy
) -> None:
    """Every run in since-last.json says its state and the rule that set it; ``states`` lists all."""
    for key in ("new_failures", "still_failing", "fixed", "newly_recovered", "slower", "flaky"):
        for run in data[key]:
            found = decisions.get(str(run.get("test")))
            if found is not None:
                run["state"], run["rule"] = found.state, found.rule
    states = []
    for record in records:
        found = decisions.get(str(record.get("test")))
        if found is None:
            continue
        states.append(
            _run(record)
            | {"state": found.state, "rule": found.rule, "strip": found.strip, "last_passed": found.last_passed}
        )
    data["states"] = states
    data["alert_policy"] = {
        "alert_after": policy.alert_after,
        "alert_window": f"{policy.window_k}/{policy.window_m}",
        "recover_after": policy.recover_after,
        "remind_every": policy.remind_every,
        "flapping": {"start": policy.flap_start, "stop": policy.flap_stop, "runs": FLAP_RUNS},
    }


def states_line(data: dict[str, Any]) -> str:
    """The states of the night's runs in one line, worst first: ``states: 1 failing, 40 passing``."""
    counts = counted_states([str(run.get("state")) for run in data.get("states") or []])
    return "states: " + (", ".join(f"{n} {s}" for s, n in counts) if counts else "none")


def _classify(
    history: History, suite: SuiteRun, record: dict[str, Any], past: list[dict[str, Any]], data: dict[str, Any]
) -> None:
    status = record.get("status")
    previous = past[-1] if past else None
    before = previous["status"] if previous else None
    run = _run(record)
    if status in FAILING:
        run["cause"] = record.get("cause")
        if before in FAILING:
            streak = history.failing_streak(str(record.get("test")), suite)
            run["since"] = streak[-1].when if streak else suite.when
            run["runs_failing"] = len(streak)
            data["still_failing"].append(run)
        else:
            run["previous"] = before
            data["new_failures"].append(run)
    elif status in PASSING:
        if before in FAILING:
            data["fixed"].append(run | {"previous": before})
        if status in ("recovered", "healed") and before == "passed":
            helped = record.get("recovered") or []
            # Which step needed help and which fallback gave it: the run's step is that step.
            first = helped[0] if helped else {}
            where = {
                "step": first.get("step"),
                "action": first.get("action", ""),
                "fallback": first.get("fallback", ""),
            }
            data["newly_recovered"].append(run | where | {"recovered": helped})
        slower = _slower(record, past)
        if slower is not None:
            data["slower"].append(run | slower)
    statuses = [r["status"] for r in past] + [str(status)]
    flips = _flips(statuses[-FLAKY_RUNS:])
    if flips >= FLAKY_FLIPS:
        data["flaky"].append(run | {"flips": flips, "recent": statuses[-FLAKY_RUNS:]})


def _slower(record: dict[str, Any], past: list[dict[str, Any]]) -> dict[str, Any] | None:
    durations = [float(r["duration"]) for r in past if r["status"] in PASSING][-SLOWER_RUNS:]
    if len(durations) < SLOWER_MIN_RUNS:
        return None
    usual = statistics.median(durations)
    now = float(record.get("duration") or 0.0)
    if now > max(SLOWER_FACTOR * usual, usual + SLOWER_MARGIN):
        return {"duration": round(now, 2), "usual": round(usual, 2)}
    return None


def _flips(statuses: list[str]) -> int:
    sides = [s in PASSING for s in statuses if s in PASSING or s in FAILING]
    return sum(1 for a, b in zip(sides, sides[1:], strict=False) if a != b)


def _failing_page(record: dict[str, Any]) -> PageSnapshot | None:
    step = next(
        (s for s in record.get("steps") or [] if isinstance(s, dict) and s.get("index") == record.get("step")), None
    )
    if step is None or not step.get("aria"):
        return None
    return PageSnapshot(str(step.get("url") or ""), str(step.get("title") or ""), str(step["aria"]))


def changed_since_pass(history: History, suite: SuiteRun, record: dict[str, Any]) -> dict[str, Any] | None:
    """The record's own ``changed``, else the failing step's page now against the last pass's,
    the lines that differ between the last two passes too set aside (browser/aria.py compare)."""
    if isinstance(record.get("changed"), dict):
        return dict(record["changed"])
    now = _failing_page(record)
    if now is None:
        return None
    passed = history.last_pass(str(record.get("test")), before=suite)
    if passed is None:
        return None
    step = int(record.get("step") or 0)
    then = passed.steps.get(step)
    if then is None or not then.page.aria:
        return None
    # The pass before the last, when kept: a line that differs between the two passes is churn.
    earlier = passed.earlier.steps.get(step) if passed.earlier is not None else None
    out = compare_pages(
        then.page,
        now,
        earlier=earlier.page if earlier is not None else None,
        earlier_since=passed.earlier.when if passed.earlier is not None else "",
    )
    out["since"] = passed.when
    return out


def _causes(
    history: History, suite: SuiteRun, records: list[dict[str, Any]], heal_command: str
) -> list[dict[str, Any]]:
    causes: dict[str, dict[str, Any]] = {}
    for record in records:
        cid = record.get("cause")
        if record.get("status") not in FAILING or not cid:
            continue
        cause = causes.get(cid)
        if cause is None:
            _, summary = cause_key(record)
            cause = causes[cid] = {
                "id": cid,
                "summary": summary,
                "tests": [],
                "workflows": [],
                "step": record.get("step"),
                "locator": record.get("locator") or "",
                "category": record.get("category") or "",
                "error": record.get("error") or "",
                "first_seen": history.cause_first_seen(cid, suite).when,
                "changed": None,
            }
        cause["tests"].append(record.get("test"))
        if record.get("workflow") not in cause["workflows"]:
            cause["workflows"].append(record.get("workflow"))
        if cause["changed"] is None:
            cause["changed"] = changed_since_pass(history, suite, record)
    for cause in causes.values():
        cause["summary"] = _renamed_summary(cause) or cause["summary"]
        cause["heal"] = heal_of([r for r in records if r.get("cause") == cause["id"]], heal_command)
    # The cause that breaks the most runs first.
    return sorted(causes.values(), key=lambda c: (-len(c["tests"]), c["summary"]))


def proven_entries(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every edit the runs' records hold, as ``reuseit heal`` reads them (``healing.json``)."""
    return [
        {**p, "test": r.get("test")}
        for r in records
        for p in r.get("proven") or []
        if isinstance(p, dict) and p.get("origin") == "history"
    ]


def heal_of(records: list[dict[str, Any]], command: str) -> dict[str, Any] | None:
    """The edits the history proves for one cause's runs (engine/proven.py): the command that
    writes them and how many files it touches; None when nothing is proven."""
    edits = [
        p
        for r in records
        for p in r.get("proven") or []
        if isinstance(p, dict) and p.get("kind") in ("locator", "fallback")
    ]
    if not edits:
        return None
    files = sorted({str(p.get("file", "")) for p in edits})
    # Every use: a rename edits each op that names the element the same way, reached or not.
    places = {
        (p.get("file"), p.get("step"), p.get("fallback", -1), p.get("op_index", -1), p.get("part", "")) for p in edits
    }
    return {
        "command": command,
        "files": len(files),
        "places": len(places),
        "workflows": files,
        "edits": sorted({str(p.get("summary", "")) for p in edits}),
    }


def heal_extent(heal: dict[str, Any]) -> str:
    """What the command edits: '4 places in 3 files' (every use of what the history proves)."""
    files = int(heal.get("files") or 0)
    places = int(heal.get("places") or files)
    return f"{places} place{'s' if places != 1 else ''} in {files} file{'s' if files != 1 else ''}"


def heal_words(heal: dict[str, Any]) -> str:
    """The one line every morning output gives a cause with a proven edit."""
    return (
        f"proven by the history: `{heal.get('command')}` edits {heal_extent(heal)} "
        f"({'; '.join(str(e) for e in heal.get('edits') or [])}); without --apply it shows the diff"
    )


def _renamed_summary(cause: dict[str, Any]) -> str:
    """The one line a person reads first, when the page says what happened: the element the runs
    looked for left the page and one of its role appeared in its place."""
    changed = cause.get("changed")
    if not changed:
        return ""
    found = renamed(role_names(str(cause.get("locator") or "")), changed)
    if found is None:
        return ""
    role, old, new = found
    where = _path(str((changed.get("url") or ["", ""])[-1]))
    return (
        f'{role} "{old}" is gone from {where or "the page"} since the last pass; a {role} "{new}" appeared (renamed?)'
    )


def _events(
    history: History,
    suite: SuiteRun,
    records: list[dict[str, Any]],
    data: dict[str, Any],
    decisions: dict[str, Decision],
) -> list[dict[str, Any]]:
    """Tonight's messages: one ``unhealthy`` for a sick night, then each test's events, each with
    its state, the rule in numbers, its recent runs as a strip and when it last passed."""
    events: list[dict[str, Any]] = []
    sick = data.get("unhealthy")
    if sick:
        events.append(
            {"kind": "unhealthy", "test": None, "workflow": None, "variation": None, "cause": sick["cause"],
             "since": suite.when, "state": "broken", "runs": sick["runs"], "of": sick["of"],
             "nights": sick["nights"], "rule": f"{sick['runs']} of {sick['of']} runs broken by one infrastructure "
             "cause (more than half): counted toward no workflow's rule"}
        )  # fmt: skip
    drifting = {r["test"]: r for r in data["newly_recovered"]}
    for record in records:
        test = str(record.get("test"))
        decision = decisions.get(test)
        if decision is None:
            continue
        base = {"test": test, "workflow": record.get("workflow", ""), "variation": record.get("variation", "")}
        for event in decision.events:
            kind = event["kind"]
            cause: Any = None
            if kind == "failing" or (kind in ("flapping", "steady") and record.get("status") in FAILING):
                cause = record.get("cause")
            elif kind == "drifting":
                helped = (drifting.get(test) or {}).get("recovered") or record.get("recovered") or []
                cause = (
                    "; ".join(
                        f"step {h.get('step')}: {h.get('fallback') or 'recovered'}"
                        for h in helped
                        if isinstance(h, dict)
                    )
                    or None
                )
            last_passed = decision.last_passed or history.last_passed(test)
            events.append(
                base
                | {"cause": cause, "since": event.get("since") or None}
                | {k: v for k, v in event.items() if k not in ("kind", "since")}
                | {"kind": kind, "strip": decision.strip, "last_passed": last_passed}
            )
    # Keys in the contract's order first, for people reading the JSON.
    head = ("kind", "test", "workflow", "variation", "cause", "since")
    return [{k: e.get(k) for k in head} | {k: v for k, v in e.items() if k not in head} for e in events]


def _recent(window: list[SuiteRun], by_test: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """The last RECENT_RUNS runs of the suite, oldest first, each with its workflow runs (monitor page)."""
    shown = window[-RECENT_RUNS:]
    runs_of: dict[int, list[dict[str, Any]]] = {s.id: [] for s in shown}
    for test in sorted(by_test):
        for r in by_test[test]:
            if r["suite_run"] in runs_of:
                runs_of[r["suite_run"]].append(
                    {
                        "test": test,
                        "workflow": r["workflow"],
                        "variation": r["variation"],
                        "name": r["name"],
                        "status": r["status"],
                        "duration": round(float(r["duration"]), 2),
                        "calls": r["calls"],
                        "cost": r["cost"],
                        "step": r["step"],
                        "cause": r["cause"],
                        "uncounted": r["uncounted"],
                    }
                )
    return [{"id": s.id, "started": s.when, "reported_at": iso(s.reported_at), "runs": runs_of[s.id]} for s in shown]
