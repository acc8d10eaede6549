"""Synthetic run records (report/records.py format 1) and nights of them, for the history tests."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from pytest_reuseit.report import history, since_last
from pytest_reuseit.report import records as records_mod
from pytest_reuseit.report.alert_policy import Policy
from pytest_reuseit.report.since_last import SinceLast

DAY = 86_400.0
T0 = 1_700_000_000.0  # a fixed night 0, so times in assertions are known

PAGE = """- banner:
  - link "Shop"
  - searchbox "Search products"
- main:
  - heading "Trail Hiking Shoes" [level=1]
  - text: $89.00
  - spinbutton "Quantity": "1"
  - button "Add to cart"
- contentinfo:
  - link "Contact"
"""


def page(button: str = "Add to cart", extra: str = "") -> str:
    return PAGE.replace('button "Add to cart"', f'button "{button}"') + extra


def record(
    test: str,
    status: str = "passed",
    *,
    night: int = 0,
    duration: float = 10.0,
    step: int | None = None,
    phase: str = "",
    locator: str = "",
    check: str = "",
    error: str = "",
    infrastructure: str = "",
    category: str = "",
    url: str = "http://127.0.0.1:8000/product.html?id=1",
    aria: str | None = None,
    recovered: list[dict[str, Any]] | None = None,
    changed: dict[str, Any] | None = None,
    steps: int = 3,
) -> dict[str, Any]:
    """One run record; a failing one fails at ``step`` (default 2) on an action unless ``phase`` says."""
    failing = status in ("failed", "broken")
    if failing and step is None and not infrastructure:
        step = 2
    if failing and not phase and step is not None:
        phase = "post" if check and not locator else "action"
    if failing and not error:
        error = f"{locator or check or 'it'} failed"
    shown = aria if aria is not None else page()
    return {
        "format": 1,
        "test": test,
        "workflow": test.split("::")[0],
        "variation": test.split("[")[-1].rstrip("]") if "[" in test else "default",
        "name": test.split("::")[-1],
        "status": status,
        "started": T0 + night * DAY + sum(map(ord, test)) % 100,
        "duration": duration,
        "step": step,
        "action": f"Step {step}" if step else "",
        "phase": phase,
        "check": check,
        "locator": locator,
        "expected": "",
        "actual": "",
        "error": error,
        "category": category,
        "infrastructure": infrastructure,
        "recovered": recovered or [],
        "usage": {"calls": 2, "cache_hits": 1, "tokens": 300, "cost": 0.0012},
        "steps": [
            {
                "index": n,
                "action": f"Step {n}",
                "status": "failed" if failing and n == step else "passed",
                "duration": duration / steps,
                "url": url,
                "title": "Trail Hiking Shoes",
                "aria": shown,
                "screenshot": "",
            }
            for n in range(1, steps + 1)
            if not (failing and step is not None and n > step)
        ],
        "changed": changed,
    }


def results_folder(folder: Path, recs: list[dict[str, Any]]) -> Path:
    """A results folder as pytest --alluredir leaves it: one Allure result per run and its record."""
    folder.mkdir(parents=True, exist_ok=True)
    for n, rec in enumerate(recs):
        (folder / f"{n:04d}-result.json").write_text(
            json.dumps({"name": rec["name"], "status": "passed", "uuid": f"{n:04d}", "labels": []})
        )
        records_mod.write(folder, copy.deepcopy(rec))
    return folder


class Nights:
    """One history file and the nights reported into it, through the calls ``reuseit report`` makes."""

    def __init__(self, path: Path, alert_after: int = 1, policy: Policy | None = None) -> None:
        self.path = path
        self.policy = policy or Policy(alert_after=alert_after)
        self.starts: list[str] = []  # each reported night's start, as the history gives it

    def report(self, recs: list[dict[str, Any]]) -> SinceLast:
        recs = copy.deepcopy(recs)
        with history.writing(self.path) as h:
            since_last.annotate(recs)
            suite = h.append(recs)
            out = since_last.compare(h, suite, recs, policy=self.policy)
        if out.data["suite_run"]["started"] not in self.starts:
            self.starts.append(out.data["suite_run"]["started"])
        return out
