"""The widget ops on real component libraries, side by side with plain Playwright, in one run.

For every entry of every catalog in tests/pages/widgets (one form per library, each field judged
by what the page's own change callback committed, never by what the widget shows):

- **ours**: the entry's natural op (``select`` France, ``check`` a label, ``fill`` a slider or a
  date) run by the op registry, ``--runs`` times on a fresh load; right when the field committed
  the entry's value every time;
- **plain Playwright**: the same written the natural way in Playwright
  (``get_by_label(...).select_option(...)`` / ``.check()`` / ``.fill(...)``), on a fresh load;
- **clicks and keys**: the trusted pointer-downs and key-downs the page counted for our op, beside
  those of the entry's hand-written Playwright sequence (``by_hand``) on the same widget;
- **native time**: on the native page, our op against Playwright's own call on the same control,
  alternating which goes first, ``--rounds`` rounds: the ratio of the medians.

    python benchmarks/bench_widgets.py [--runs 2] [--rounds 15] [--only LIB,LIB] [--json FILE]

Needs the pages built (``bash ci/install.sh``: ``.suites/widgets``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import Page, sync_playwright  # noqa: E402

from pytest_reuseit.browser.op_context import OpContext, OpFailed  # noqa: E402
from pytest_reuseit.browser.ops import run_op  # noqa: E402
from pytest_reuseit.browser.pages import Pages  # noqa: E402
from pytest_reuseit.browser.session import DEFAULT_ARGS, default_executable  # noqa: E402
from pytest_reuseit.workflow.ops import Op  # noqa: E402
from tests.support.serve import Served  # noqa: E402
from tests.support.widget_site import (  # noqa: E402
    WIDGET_PAGES,
    WidgetSite,
    _handler,
    catalog,
    plain_playwright_attempt,
    run_by_hand,
    widget_libs,
)


def _same(committed: Any, wanted: Any) -> bool:
    if isinstance(wanted, list) and isinstance(committed, list):
        return len(wanted) == len(committed) and all(_same(c, w) for c, w in zip(committed, wanted, strict=True))
    if isinstance(wanted, (int, float)) and not isinstance(wanted, bool) and isinstance(committed, (int, float)):
        return abs(float(committed) - float(wanted)) < 1e-9
    return bool(committed == wanted)


def _fresh(page: Page, url: str) -> None:
    page.goto(url)
    page.wait_for_load_state("load")
    page.wait_for_function("() => window.__input !== undefined")


def _inputs(page: Page) -> tuple[int, int]:
    counted = page.evaluate("() => window.__input || {clicks: 0, keys: 0}")
    return int(counted["clicks"]), int(counted["keys"])


def _last(page: Page, field: str) -> Any:
    return page.evaluate(
        "(f) => { const c = (window.__commits || []).filter((x) => x.field === f); return c.length ? c[c.length - 1].value : null; }",
        field,
    )


def ours(page: Page, entry: dict[str, Any], timeout_ms: float = 5000) -> tuple[bool, tuple[int, int], float, str]:
    """Our op on the current page: committed right, the clicks and keys it took, seconds, why not."""
    op = Op.model_validate(entry["op"])
    ctx = OpContext(lambda s: s, lambda s: s, timeout_ms, {}, [], pages=Pages(page))
    started = time.perf_counter()
    why = ""
    try:
        run_op(op, ctx)
    except OpFailed as exc:
        why = str(exc)
    took = time.perf_counter() - started
    page.wait_for_timeout(50)  # a library that commits from a timer after the event
    right = not why and _same(_last(page, entry["field"]), entry["commits"])
    if not why and not right:
        why = f"committed {_last(page, entry['field'])!r}, not {entry['commits']!r}"
    return right, _inputs(page), took, why


def by_hand(page: Page, entry: dict[str, Any]) -> tuple[int, int]:
    run_by_hand(page, entry["by_hand"])
    page.wait_for_timeout(50)
    return _inputs(page)


_NATIVE_CALLS = {
    "select": lambda page, a: page.get_by_label(a["label"]).select_option(a["option"]),
    "check": lambda page, a: page.get_by_label(a["label"]).check(),
    "uncheck": lambda page, a: page.get_by_label(a["label"]).uncheck(),
    "fill": lambda page, a: page.get_by_label(a["label"]).fill(a["value"]),
}


def native_times(page: Page, url: str, rounds: int) -> list[dict[str, Any]]:
    """Our op against Playwright's own call on each native control Playwright can set itself."""
    rows = []
    for entry in catalog("native")["fields"]:
        ((name, args),) = entry["op"].items()
        if (
            entry.get("disabled")
            or name not in _NATIVE_CALLS
            or entry["kind"] not in ("select", "multiselect", "checkbox", "radio", "date")
        ):
            continue
        mine: list[float] = []
        theirs: list[float] = []
        for r in range(rounds):
            for side in ("ours", "pw") if r % 2 == 0 else ("pw", "ours"):
                _fresh(page, url)
                started = time.perf_counter()
                if side == "ours":
                    run_op(
                        Op.model_validate(entry["op"]),
                        OpContext(lambda s: s, lambda s: s, 5000, {}, [], pages=Pages(page)),
                    )
                    mine.append(time.perf_counter() - started)
                else:
                    _NATIVE_CALLS[name](page, args)
                    theirs.append(time.perf_counter() - started)
        rows.append(
            {
                "field": entry["field"],
                "op": name,
                "ours_ms": statistics.median(mine) * 1000,
                "playwright_ms": statistics.median(theirs) * 1000,
                "ratio": statistics.median(mine) / statistics.median(theirs),
            }
        )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=2, help="runs of our op per entry (each must commit right)")
    ap.add_argument("--rounds", type=int, default=15, help="rounds of the native timing")
    ap.add_argument("--only", default="", help="libraries, comma-separated (default: every catalog)")
    ap.add_argument("--json", default="", help="write the figures to this file")
    opts = ap.parse_args()
    libs = [
        lib
        for lib in widget_libs()
        if (WIDGET_PAGES / lib / "index.html").exists() and (not opts.only or lib in opts.only.split(","))
    ]
    site = WidgetSite(base="")
    out: dict[str, Any] = {"libraries": {}, "entries": []}
    with Served(_handler(site)) as served, sync_playwright() as pw:
        site.base = served.url
        browser = pw.chromium.launch(executable_path=default_executable(), args=list(DEFAULT_ARGS))
        page = browser.new_page()
        for lib in libs:
            url = f"{served.url}/widgets/{lib}/index.html"
            per = {"entries": 0, "ours": 0, "playwright": 0, "ratios": []}
            for entry in catalog(lib)["fields"]:
                if entry.get("disabled"):
                    continue
                per["entries"] += 1
                results = []
                for _ in range(opts.runs):
                    _fresh(page, url)
                    results.append(ours(page, entry))
                right = all(r[0] for r in results)
                _fresh(page, url)
                plain = plain_playwright_attempt(page, entry)
                _fresh(page, url)
                hand = by_hand(page, entry)
                clicks, keys = results[-1][1]
                ratio = (clicks + keys) / max(sum(hand), 1)
                per["ours"] += right
                per["playwright"] += plain
                per["ratios"].append(ratio)
                row = {
                    "lib": lib,
                    "field": entry["field"],
                    "kind": entry["kind"],
                    "ours": f"{sum(r[0] for r in results)}/{opts.runs}",
                    "playwright": plain,
                    "ours_inputs": [clicks, keys],
                    "by_hand_inputs": list(hand),
                    "input_ratio": round(ratio, 2),
                    "ours_s": round(statistics.median(r[2] for r in results), 3),
                    "why": next((r[3] for r in results if r[3]), ""),
                }
                out["entries"].append(row)
                mark = "ok" if right else "NO"
                print(
                    f"{lib:12} {entry['field']:14} {entry['kind']:11} ours {row['ours']} {mark:2}  playwright "
                    f"{'ok' if plain else '--'}  inputs {clicks}+{keys} vs by hand {hand[0]}+{hand[1]} ({ratio:.2f}x)"
                    f"  {row['ours_s'] * 1000:.0f} ms {row['why'][:120]}"
                )
            out["libraries"][lib] = {**per, "max_input_ratio": max(per["ratios"], default=0)}
        if "native" in libs:
            out["native_times"] = native_times(page, f"{served.url}/widgets/native/index.html", opts.rounds)
        browser.close()
    total = sum(v["entries"] for v in out["libraries"].values())
    mine = sum(v["ours"] for v in out["libraries"].values())
    plain = sum(v["playwright"] for v in out["libraries"].values())
    print(
        f"\nnatural workflows committing the right value: ours {mine} of {total} ({opts.runs} runs of {opts.runs}); plain Playwright {plain} of {total}"
    )
    for lib, v in out["libraries"].items():
        print(
            f"  {lib:12} ours {v['ours']}/{v['entries']}  playwright {v['playwright']}/{v['entries']}  clicks+keys vs by hand: max {v['max_input_ratio']:.2f}x"
        )
    ratios = [e["input_ratio"] for e in out["entries"]]
    if ratios:
        print(
            f"clicks and keys, ours / hand-written: median {statistics.median(ratios):.2f}x, max {max(ratios):.2f}x (goal <= 1.2x)"
        )
    for row in out.get("native_times", []):
        print(
            f"native {row['op']:8} {row['field']:10} ours {row['ours_ms']:.1f} ms vs Playwright {row['playwright_ms']:.1f} ms: {row['ratio']:.2f}x (goal <= 1.05x)"
        )
    if opts.json:
        Path(opts.json).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
