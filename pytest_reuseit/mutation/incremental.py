"""``reuseit mutate --incremental`` (Stryker's word): keep the last report, run again only the
mutants whose workflow, target or page changed since; the others keep their verdict, marked as
reused.

The clean session still runs: it is what tells what changed. Each mutant gets a *basis*, a hash of
what its verdict depends on: the operator and the thing it breaks (an element of a page, a request
endpoint), what the clean run saw of that target (its tag, text with its numbers aside, count),
and, for each workflow run the verdict was decided on, the workflow file's text and the pages that
run went through (their addresses and the elements their accessibility trees showed, step by step:
role, name and attributes, numbers aside; texts and values aside: ids, dates, timings, a salt shown
once change from one session to the next on a page that did not, and what a check reads of its
target is in the basis already). A killed mutant was decided by the first run that failed under it
(its own, or another one when its own let it through): while that run's file and pages are the
same, it fails again, whatever the other workflows that reach the same element do (a storage fault
every workflow covers was tried against 27 runs and killed by its third: an edit of any of the 27
ran all of them again). Any other verdict (survived, not applied, clean, a false alarm) depends on
every covering run, and on which runs cover it: a workflow that changed, or one that now reaches
the element, might catch it. The report keeps each mutant's basis; a mutant whose basis is the same
as in the last report, with a verdict that is one (not broken, not a timeout), is not run again.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .outcome import MutantResult
from .plan import Mutant
from .touches import RunTouches

# Verdicts worth keeping: what a broken run or a timeout says may not hold the next time.
REUSABLE = ("killed", "survived", "healed around", "clean", "false alarm", "not applied")
# A local site listens on a new port each session: a port is no change of the page.
_DIGITS = re.compile(r"\d+")
_PORT = re.compile(r"((?:https?:)?//)?([A-Za-z0-9.\-]+|\[[0-9a-fA-F:]+\]):\d{2,5}\b")


def _stable(text: str) -> str:
    return _PORT.sub(r"\1\2", text)


def identity(m: Mutant) -> str:
    """The same mutant in two runs: its operator and the thing it breaks (a benign change: its file)."""
    thing = f"page {m.file}" if m.kind == "benign" else m.target.same_thing()
    return f"{m.operator}|{thing}"


# An ARIA snapshot line's element: its role, its name in quotes and its [attributes]; what follows
# the colon (a text, a field's value, a paragraph's words) is left out. A link's /url is kept.
_ELEMENT = re.compile(r'^\s*-?\s*([\w-]+(?: "(?:[^"\\]|\\.)*")?(?: \[[^\]]*\])*)')


def _elements(aria: str) -> str:
    """What a page shows, as its elements (role, name, attributes), without the texts and values:
    a salt shown once, a last-login time, a row's date, "took 3.2 ms" are no change of the page; a
    check's own text is in the target's basis (what the clean run saw of it)."""
    out = []
    for line in aria.splitlines():
        stripped = line.strip()
        if stripped.startswith("- /url:"):
            out.append(stripped)
            continue
        m = _ELEMENT.match(line)
        out.append(m.group(1) if m else stripped)
    return "\n".join(out)


def _pages(run: RunTouches | None) -> str:
    if run is None:
        return ""
    looks = [(urlsplit(s.url_after).path, urlsplit(s.url_after).fragment, _elements(s.aria)) for s in run.steps]
    # Numbers are no change of the page: a row's id, a date, a count of rows.
    return _DIGITS.sub("0", _stable(json.dumps(looks)))


def _seen(detail: dict[str, Any]) -> dict[str, Any]:
    """What the clean run saw of a target, its text's numbers aside: "2 of 10 selected" on the
    admin's list shows how many books the other workflows left, which the order they ran in
    decides; the word or number a fault changes (``word``) and what the check expects stay."""
    text = detail.get("text")
    return {**detail, "text": _DIGITS.sub("0", text)} if isinstance(text, str) else detail


def _file_text(path: Path) -> str:
    try:
        return hashlib.sha1(path.read_bytes()).hexdigest()
    except OSError:
        return ""


def _clean_run(attempt: dict[str, Any]) -> str:
    """The clean run (node id) a mutant's try ran against: its node id without ``@<mutant>``."""
    return str(attempt.get("nodeid", "")).split("@")[0]


def decided_by(outcome: str, tries: list[dict[str, Any]], m: Mutant) -> list[str]:
    """The clean runs (node ids) a verdict depends on (see the module's docstring)."""
    if outcome == "killed" and tries:
        # One run that failed under the fault is the verdict: while that run, its file and its
        # pages are the same, it fails again, whatever the runs it survived do.
        killers = [t for t in tries if t.get("outcome") == "killed"]
        return [_clean_run(killers[0])] if killers else sorted({_clean_run(t) for t in tries})
    covering = [nodeid for _, nodeid, _ in m.covering] or [m.nodeid]
    return sorted(set(covering))


def basis(m: Mutant, runs: dict[str, RunTouches], root: Path, decided: list[str]) -> str:
    """What the mutant's verdict depends on, as one hash (see the module's docstring)."""
    h = hashlib.sha1(identity(m).encode())
    h.update(_stable(json.dumps(_seen(m.target.detail), sort_keys=True, default=str)).encode())
    h.update(m.ignored.encode())
    for nodeid in decided:
        run = runs.get(nodeid)
        file = run.file if run is not None else ""
        h.update(f"\0{nodeid}\0{file}\0{_file_text(root / file) if file else ''}\0".encode())
        h.update(_pages(run).encode())
    return h.hexdigest()


def basis_of(result: MutantResult, runs: dict[str, RunTouches], root: Path) -> str:
    """The basis of a verdict just reached (or kept)."""
    m = result.mutant
    return basis(m, runs, root, decided_by(result.outcome, result.tries, m))


def load(report_file: Path) -> dict[str, dict[str, Any]] | None:
    """The last report's mutants by identity; None when there is no readable report to start from."""
    try:
        data = json.loads(report_file.read_text(encoding="utf-8"))
        mutants = data["reuseit"]["mutants"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return {m["incremental"]["identity"]: m for m in mutants if isinstance(m, dict) and "incremental" in m}


def reuse(m: Mutant, runs: dict[str, RunTouches], root: Path, last: dict[str, dict[str, Any]]) -> MutantResult | None:
    """The last report's verdict of ``m`` if nothing it depends on changed since."""
    record = last.get(identity(m))
    if record is None or m.ignored or record.get("outcome") not in REUSABLE:
        return None
    outcome = str(record["outcome"])
    tries = list(record.get("runs") or [])
    basis_now = basis(m, runs, root, decided_by(outcome, tries, m))
    if record["incremental"].get("basis") != basis_now:
        return None
    verdict = {k: v for k, v in dict(record.get("run") or {}).items() if k != "nodeid"}
    return MutantResult(
        m,
        outcome,
        verdict,
        localised=record.get("localised"),
        tries=tries,
        basis=basis_now,
        reused=True,
        kept=record,
    )
