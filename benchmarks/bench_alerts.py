"""The alert policy's messages over a month of nights, against the per-night transition rule it replaced.

    python benchmarks/bench_alerts.py [--nights 40] [--passing 40]

A suite of ``--passing`` workflows that always pass and five that do what suites do over a month
(each from night 10 on, after ten nights of history): one failing on alternate nights for ten
nights (a renamed button, the site's flakiness), one losing an order one night in three, never
two in a row, one flaky at random steps a night in five (the test's flakiness), one that breaks
for good on night 28, and one drifting (passing through a fallback) from night 15. On night 22
the site is down for every workflow.

Every night goes through the calls ``reuseit report`` makes (append, compare with the alert
policy, one transaction) on synthetic run records. The old rule (``failing`` when a run has failed
N nights in a row, ``fixed`` when an alerted run passes, every run counted) is replayed on the same
statuses beside it. Printed: the messages each rule sends per workflow, the nights with a message,
and the time the policy's report takes per night.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from pytest_reuseit.report import history, since_last  # noqa: E402
from pytest_reuseit.report.alert_policy import Policy  # noqa: E402
from tests.support.run_records import record  # noqa: E402

ADD = "role=button[name='Add to cart']"
RENAMED = {"removed": ['- button "Add to cart"'], "added": ['- button "Add to basket"'], "since": "x"}
DOWN = "goto http://127.0.0.1:8000/shop: the site is unreachable (net::ERR_CONNECTION_REFUSED)"
START, DOWN_NIGHT, BREAKS, DRIFTS = 10, 22, 28, 15


def night_records(night: int, passing: int, rng: random.Random) -> list[dict[str, Any]]:
    if night == DOWN_NIGHT:
        names = [f"ok{n}" for n in range(passing)] + ["alternate", "third", "flaky", "breaks", "drifts"]
        return [record(n, "broken", night=night, error=DOWN, category="infrastructure") for n in names]
    recs = [record(f"ok{n}", night=night) for n in range(passing)]
    k = night - START
    site_fail = {"locator": ADD, "changed": RENAMED, "step": 2}
    recs.append(record("alternate", "failed" if 0 <= k < 10 and k % 2 == 0 else "passed", night=night, **site_fail))
    recs.append(record("third", "failed" if k >= 0 and k % 3 == 1 else "passed", night=night, **site_fail))
    if k >= 0 and rng.random() < 0.2:  # the test's own flakiness: a different step, the page as it was
        step = rng.choice([1, 2, 3])
        same = {"removed": [], "added": [], "since": "x"}
        recs.append(record("flaky", "failed", night=night, step=step, check=f"check {step}", changed=same))
    else:
        recs.append(record("flaky", night=night))
    recs.append(record("breaks", "failed" if night >= BREAKS else "passed", night=night, **site_fail))
    helped = [{"step": 1, "action": "Step 1", "fallback": "do: click text='No thanks'"}]
    recs.append(record("drifts", "recovered" if night >= DRIFTS else "passed", night=night, recovered=helped))
    return recs


def old_rule(statuses: list[str], alert_after: int) -> list[tuple[int, str]]:
    """The rule before the policy: failing once N failures in a row, fixed when an alerted run
    passes, drifting when a run passes through a fallback after a plain pass."""
    out, streak, alerted = [], 0, False
    for night, status in enumerate(statuses):
        if status == "recovered" and night and statuses[night - 1] == "passed":
            out.append((night, "drifting"))
        if status in ("failed", "broken"):
            streak += 1
            if not alerted and streak >= alert_after:
                out.append((night, "failing"))
                alerted = True
        else:
            streak = 0
            if alerted:
                out.append((night, "fixed"))
                alerted = False
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nights", type=int, default=40)
    parser.add_argument("--passing", type=int, default=40)
    args = parser.parse_args()
    names = ["alternate", "third", "flaky", "breaks", "drifts"]
    for label, policy in (
        ("defaults (--alert-after 1)", Policy()),
        ("--alert-after 2 --alert-window 3/10", Policy(alert_after=2)),
    ):
        rng = random.Random(56)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "history.sqlite"
            sent: dict[str, list[tuple[int, str]]] = {}
            statuses: dict[str, list[str]] = {}
            nights_with_message = 0
            seconds = []
            for night in range(args.nights):
                recs = night_records(night, args.passing, rng)
                for r in recs:
                    statuses.setdefault(r["test"], []).append(r["status"])
                started = time.perf_counter()
                with history.writing(path) as kept:
                    since_last.annotate(recs)
                    suite = kept.append(recs)
                    out = since_last.compare(kept, suite, recs, policy=policy)
                seconds.append(time.perf_counter() - started)
                nights_with_message += bool(out.events)
                for e in out.events:
                    whose = f" ({e['whose']}'s)" if e.get("whose") else ""
                    sent.setdefault(str(e["test"] or "(the night)"), []).append((night, f"{e['kind']}{whose}"))
        old_nights: set[int] = set()
        print(
            f"\n== {label}: {args.nights} nights, {args.passing + len(names)} workflows, the site down on night {DOWN_NIGHT}"
        )
        print(f"{'workflow':<12} {'old rule':>9} {'policy':>7}  policy's messages (night: kind)")
        old_total = new_total = 0
        for name in [*names, "ok0", "(the night)"]:
            old = old_rule(statuses.get(name, []), policy.alert_after) if name != "(the night)" else []
            old_nights |= {n for n, _ in old}
            new = sent.get(name, [])
            old_total += len(old)
            new_total += len(new)
            shown = ", ".join(f"{n}: {k}" for n, k in new)
            print(f"{name:<12} {len(old):>9} {len(new):>7}  {shown}")
        # Every always-passing workflow sent a failing and a fixed for the night the site was down.
        for n in range(1, args.passing):
            old = old_rule(statuses[f"ok{n}"], policy.alert_after)
            old_total += len(old)
            old_nights |= {night for night, _ in old}
            assert f"ok{n}" not in sent
        print(f"all {args.passing + len(names)} workflows: old rule {old_total} events on {len(old_nights)} nights, "
              f"policy {new_total} events on {nights_with_message} nights")  # fmt: skip
        print(f"report with the policy: median {statistics.median(seconds) * 1000:.0f} ms a night")
    return 0


if __name__ == "__main__":
    sys.exit(main())
