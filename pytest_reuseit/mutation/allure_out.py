"""The mutation run in Allure: one result per mutant, under the suite "mutation testing", so a
reader finds the survivors where they read everything else.

Status answers "did the workflows catch this fault?": a killed breaking mutant and a clean benign
one are *passed*; a survivor, a mutant healed around and a false alarm are *failed*, with what to
do in the message; no verdict is *broken*; a fault that could not be placed is *skipped*. The
mutants' own runs are not reported (they fail on purpose); this is what they add up to.
"""

from __future__ import annotations

import hashlib
import html
import json
import time
import uuid
from pathlib import Path
from typing import Any

_STATUS = {
    "killed": "passed",
    "clean": "passed",
    "survived": "failed",
    "healed around": "failed",
    "false alarm": "failed",
    "broken": "broken",
    "timeout": "broken",
    "not applied": "skipped",
    "not run": "skipped",
    "ignored": "skipped",
}


def write(report: dict[str, Any], folder: Path) -> int:
    """One Allure result file per mutant of ``report`` (report.build's); returns how many."""
    folder.mkdir(parents=True, exist_ok=True)
    now = int(time.time() * 1000)
    mutants = report["reuseit"]["mutants"]
    for m in mutants:
        t = m["target"]
        where = f"{t['file']}:{t['line']}" + (f" step {t['step']}" if t["step"] else "")
        name = f"{m['operator']} on {t['locator']} ({where})"
        message = f"{m['outcome']}: {m['description']}"
        if m.get("suggestion"):
            message += f"\n\n{m['suggestion']}"
        elif m["run"].get("message"):
            message += f"\n\nthe run: {m['run']['status']}: {m['run']['message']}"
        key = f"{m['operator']}|{t['file']}|{t['what']}|{t['op_or_check']}|{t['locator']}"
        result = {
            "uuid": str(uuid.uuid4()),
            "historyId": hashlib.md5(key.encode(), usedforsecurity=False).hexdigest(),
            "name": name,
            "fullName": f"mutation testing: {key}",
            "status": _STATUS.get(m["outcome"], "unknown"),
            "statusDetails": {"message": message},
            "stage": "finished",
            "start": now,
            "stop": now,
            "descriptionHtml": _description(m),
            "labels": [
                {"name": "parentSuite", "value": "mutation testing"},
                {"name": "suite", "value": m["kind"]},
                {"name": "subSuite", "value": m["operator"]},
                {"name": "feature", "value": "mutation testing"},
                {"name": "story", "value": m["outcome"]},
                {"name": "tag", "value": m["outcome"].replace(" ", "-")},
            ],
            "parameters": [{"name": "mutant", "value": m["id"]}],
        }
        (folder / f"{result['uuid']}-result.json").write_text(json.dumps(result), encoding="utf-8")
    return len(mutants)


def _description(m: dict[str, Any]) -> str:
    t = m["target"]
    rows = [
        ("mutant", m["id"]),
        ("kind", m["kind"]),
        ("fault", m["description"]),
        ("target", f"{t['what']} {t['op_or_check']} {t['locator']}"),
        ("where", f"{t['file']} line {t['line']}" + (f", step {t['step']}" if t["step"] else "")),
        ("outcome", m["outcome"] + (" (at the step that touches it)" if m.get("localised") else "")),
    ]
    runs = "".join(
        f"<li>{html.escape(str(r.get('nodeid', '')))}: {html.escape(str(r.get('outcome', '')))}</li>"
        for r in m.get("runs", [])
    )
    table = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(str(v))}</td></tr>" for k, v in rows)
    suggestion = f"<pre>{html.escape(m['suggestion'])}</pre>" if m.get("suggestion") else ""
    return f"<table>{table}</table><p>Runs against it:</p><ul>{runs}</ul>{suggestion}"
