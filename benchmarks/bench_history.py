"""The nightly history at a year's size: bytes on disk and what it adds to one night's report.

    python benchmarks/bench_history.py [--nights 365] [--workflows 300] [--steps 5] [--change 0.02] [--keep FILE]

Builds a history the way ``reuseit report`` does, night after night, through the same calls
(``history.writing``: ``append``, ``since_last.compare``, ``trim``, one transaction), from
synthetic run records: ``--workflows`` workflow runs of ``--steps`` steps, each step with a
realistic ARIA snapshot of a few KB (a shop's header, navigation, a product grid, a form, a
footer, each workflow and step its own page), of which ``--change`` of the steps get a changed
page each night (a price, a label, a line added). About 2% of runs fail each night (a renamed
button met by several workflows, a few failing for weeks), 3% are recovered.

Reported:

- size on disk after the last night (goal <= 100 MB for a year of 300 workflows);
- time the history adds to one night's report: open and check the file, append the night,
  compare, trim, commit (goal <= 2 s), the median of the last 10 nights and the last one;
- time of the since-last comparison alone (goal <= 1 s), the same way;
- a night whose trim really drops a night (the steady state once the history is full), on a copy,
  and the same night when it also sweeps the pages nothing refers to (one night in 30).

Everything runs in this process on a temporary folder; nothing is started, nothing listens.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from pytest_reuseit.report import alerts, history, monitor, since_last  # noqa: E402

DAY = 86_400.0
T0 = 1_700_000_000.0
WORDS = [
    "trail",
    "hiking",
    "shoes",
    "backpack",
    "tent",
    "lamp",
    "stove",
    "jacket",
    "gloves",
    "socks",
    "bottle",
    "map",
    "compass",
    "rope",
]


def base_page(rng: random.Random, w: int, s: int) -> list[str]:
    """A page of about 3-4 KB as Playwright's aria_snapshot() prints one."""
    lines = [
        "- banner:",
        '  - link "Outdoor Shop":',
        "    - /url: /",
        '  - searchbox "Search products"',
        '  - button "Search"',
        '  - link "Cart (0)"',
        "- navigation:",
        *[f'  - link "{word.title()}"' for word in WORDS[:10]],
        "- main:",
        f'  - heading "Workflow {w} step {s}" [level=1]',
    ]
    for n in range(18):
        name = f"{rng.choice(WORDS).title()} {rng.choice(WORDS)} {n}"
        lines += [
            "  - article:",
            f'    - heading "{name}" [level=2]',
            f"    - text: ${rng.randint(5, 400)}.{rng.randint(0, 99):02d}",
            f'    - button "Add {name} to cart"',
        ]
    lines += [
        "  - form:",
        '    - textbox "Email"',
        '    - textbox "Password": "••••••"',
        '    - checkbox "Remember me"',
        '    - button "Sign in"',
        "- contentinfo:",
        '  - link "Contact"',
        '  - link "Terms"',
        "  - text: © Outdoor Shop",
    ]
    return lines


def change(rng: random.Random, lines: list[str], night: int) -> list[str]:
    out = list(lines)
    n = rng.randrange(len(out))
    out[n] = out[n].rstrip() + f" (v{night})" if '"' in out[n] else out[n]
    if rng.random() < 0.3:
        out.insert(rng.randrange(len(out)), f'  - text: "Offer of night {night}"')
    return out


def record(w: int, night: int, steps: list[str], status: str, rng: random.Random) -> dict[str, Any]:
    test = f"workflows/shop/flow{w:03d}.reuseit.yaml::Flow {w}[default]"
    failing = status in ("failed", "broken")
    fail_step = 3 if failing else None
    duration = 8 + (w % 7) + rng.random()
    return {
        "format": 1,
        "test": test,
        "workflow": f"workflows/shop/flow{w:03d}.reuseit.yaml",
        "variation": "default",
        "name": f"Flow {w}",
        "status": status,
        "started": T0 + night * DAY + w * 2.0,
        "duration": duration,
        "step": fail_step,
        "action": "Add the product to the cart" if failing else "",
        "phase": "action" if failing else "",
        "check": "",
        "locator": "role=button[name='Add to cart']" if failing else "",
        "expected": "",
        "actual": "",
        "error": "step 3 failed: role=button[name='Add to cart'] not found within 5 s" if failing else "",
        "category": "site_changed" if failing else "",
        "infrastructure": "",
        "recovered": [{"step": 2, "action": "Close the overlay", "fallback": "do: click text='No thanks'"}]
        if status == "recovered"
        else [],
        "usage": {"calls": 2, "cache_hits": 3, "tokens": 1800, "cost": 0.0021},
        "steps": [
            {
                "index": s + 1,
                "action": f"Step {s + 1} of flow {w}: do the thing",
                "status": "failed" if failing and s + 1 == fail_step else "passed",
                "duration": duration / len(steps),
                "url": f"http://127.0.0.1:8000/shop/flow{w}/page{s + 1}.html",
                "title": f"Outdoor Shop: flow {w} step {s + 1}",
                "aria": aria,
                "screenshot": "",
            }
            for s, aria in enumerate(steps)
            if not (failing and fail_step is not None and s + 1 > fail_step)
        ],
        "changed": None,
    }


def statuses(rng: random.Random, workflows: int, night: int) -> list[str]:
    out = ["passed"] * workflows
    for w in range(workflows):
        roll = rng.random()
        if roll < 0.01:
            out[w] = "failed"
        elif roll < 0.04:
            out[w] = "recovered"
    # A renamed button met by 5 workflows for a week in every 5; 2 workflows failing for weeks.
    if (night // 7) % 5 == 2:
        for w in range(5):
            out[w] = "failed"
    for w in (10, 11):
        if (night // 30) % 2 == 1:
            out[w] = "broken"
    return out


REPORTS: list[float] = []  # each night's whole report: the history, the message, monitor.html


def night_of(path: Path, recs: list[dict[str, Any]], **trim: Any) -> tuple[float, float, str]:
    started = time.perf_counter()
    with history.writing(path) as kept:
        since_last.annotate(recs)
        suite = kept.append(recs)
        t = time.perf_counter()
        out = since_last.compare(kept, suite, recs)
        compare = time.perf_counter() - t
        kept.trim(**trim)
    total = time.perf_counter() - started
    # What the report does with it: the message (when something changed) and the monitor page.
    alerts.message(out.events, out.data["causes"])
    monitor.render(out.data, out.recent)
    REPORTS.append(time.perf_counter() - started)
    return total, compare, out.line


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nights", type=int, default=365)
    parser.add_argument("--workflows", type=int, default=300)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--change", type=float, default=0.02, help="share of steps whose page changes a night")
    parser.add_argument("--keep", help="copy the history here at the end")
    args = parser.parse_args()
    rng = random.Random(34)
    pages = [[base_page(rng, w, s) for s in range(args.steps)] for w in range(args.workflows)]
    tmp = Path(tempfile.mkdtemp(prefix="bench-history-"))
    path = tmp / "history.sqlite"
    totals: list[float] = []
    compares: list[float] = []
    wall = time.perf_counter()
    line = ""
    sizes = []
    for night in range(args.nights):
        for w in range(args.workflows):
            for s in range(args.steps):
                if rng.random() < args.change:
                    pages[w][s] = change(rng, pages[w][s], night)
        recs = [
            record(w, night, ["\n".join(p) for p in pages[w]], status, rng)
            for w, status in enumerate(statuses(rng, args.workflows, night))
        ]
        total, compare, line = night_of(path, recs)
        totals.append(total)
        compares.append(compare)
        if night % 73 == 72 or night == args.nights - 1:
            sizes.append((night + 1, path.stat().st_size))
            print(
                f"night {night + 1}: {path.stat().st_size / 1e6:.1f} MB, history {total:.2f} s, compare {compare:.3f} s"
            )
    page_kb = statistics.mean(len("\n".join(p)) for ps in pages for p in ps) / 1000
    size = path.stat().st_size
    print()
    print(
        f"{args.nights} nights x {args.workflows} runs x {args.steps} steps, pages ~{page_kb:.1f} KB, {args.change:.0%} changing a night"
    )
    print(f"built in {time.perf_counter() - wall:.0f} s; last line: {line}")
    print(f"size on disk: {size / 1e6:.1f} MB (goal <= 100 MB)")
    for label, series in (
        ("history per night", totals),
        ("since-last compare (the alert policy included)", compares),
        ("the report: history, message and monitor.html", REPORTS[: len(totals)]),
    ):
        last10 = series[-10:]
        print(
            f"{label}: median of the last 10 nights {statistics.median(last10):.2f} s, last {series[-1]:.2f} s, max {max(last10):.2f} s"
        )
    # Steady state: the history is full and each night drops the oldest one.
    full = tmp / "full.sqlite"
    shutil.copyfile(path, full)
    night = args.nights
    recs = [
        record(w, night, ["\n".join(p) for p in pages[w]], status, rng)
        for w, status in enumerate(statuses(rng, args.workflows, night))
    ]
    swept = tmp / "swept.sqlite"
    shutil.copyfile(path, swept)
    total, compare, _ = night_of(full, recs, keep_runs=args.nights)
    print(f"a night that also drops the oldest night: {total:.2f} s (compare {compare:.3f} s)")
    total, compare, _ = night_of(swept, recs, keep_runs=args.nights, sweep_every=1)
    print(f"the same night with the sweep of orphan pages (one night in {history.SWEEP_EVERY}): {total:.2f} s")
    if args.keep:
        shutil.copyfile(path, args.keep)
    shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
