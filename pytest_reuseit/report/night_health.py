"""A sick night: most of a night's runs broken for one infrastructure cause (docs/monitoring.md,
"Alert policy").

When the site is down, the browser host or the Selenium Grid is gone, or the model server fails,
every workflow of the night is broken for the same reason. That is one problem, said once (an
``unhealthy`` message naming the cause and how many runs it took), and those runs are no evidence
about any workflow: they count toward no workflow's rule, now or on later nights.

``judge(records)`` reads the night's run records (their ``cause`` ids set by since_last.annotate)
and gives the :class:`Unhealthy` night or None. A night is unhealthy when one infrastructure cause
broke more than half of its judged runs (skipped runs are not judged). Causes are grouped coarser
than since_last's cause ids: a site that is down is down for every page and every op.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from .delivery import host

KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "the site is down or unreachable",
        re.compile(r"the site is (?:unreachable|down)|did not load within|net::ERR_", re.I),
    ),
    (
        "the browser host or Selenium Grid is gone",
        re.compile(
            r"the browser went away|cannot start the browser|cannot open a browser context|Selenium Grid|"
            r"browser has disconnected|Target crashed",
            re.I,
        ),
    ),
    (
        "the model server is failing",
        re.compile(r"\bmodel endpoint\b|\bmodel \S+ at \S+ gave no usable|\bmodel client:", re.I),
    ),
)
_ORIGIN = re.compile(r"\bhttps?://[^/\s'\"()]+", re.I)


@dataclass(frozen=True)
class Unhealthy:
    cause: str  # one line: what broke the night, with the address it names when all runs name one
    kind: str  # the infrastructure cause's key (stable night after night)
    runs: int  # runs it broke
    judged: int  # runs of the night that were not skipped
    tests: tuple[str, ...]  # the tests it broke: their runs count toward no rule

    def words(self) -> str:
        return f"{self.cause}: {self.runs} of {self.judged} runs broken"

    def as_dict(self) -> dict[str, Any]:
        return {"cause": self.cause, "kind": self.kind, "runs": self.runs, "of": self.judged}


def infrastructure_of(record: dict[str, Any]) -> str:
    """The infrastructure cause that broke ``record`` (a key), or "" when it was not broken by one."""
    if record.get("status") != "broken":
        return ""
    said = f"{record.get('infrastructure') or ''}\n{record.get('error') or ''}"
    for kind, pattern in KINDS:
        if pattern.search(said):
            return kind
    if record.get("category") == "infrastructure" or record.get("infrastructure"):
        # Another cause the engine could not judge past (a missing setting, a script the browser
        # refused): runs broken by the same one are the same problem.
        return f"cause {record.get('cause') or '?'}"
    return ""


def judge(records: list[dict[str, Any]]) -> Unhealthy | None:
    """The night's sick cause, when one infrastructure cause broke more than half its judged runs."""
    judged = [r for r in records if r.get("status") != "skipped"]
    kinds = Counter(k for k in map(infrastructure_of, judged) if k)
    if not kinds:
        return None
    kind, n = kinds.most_common(1)[0]
    if n * 2 <= len(judged):
        return None
    broken = [r for r in judged if infrastructure_of(r) == kind]
    return Unhealthy(_cause_words(kind, broken), kind, n, len(judged), tuple(str(r.get("test")) for r in broken))


def _cause_words(kind: str, broken: list[dict[str, Any]]) -> str:
    if kind.startswith("cause "):
        said = next((str(r.get("infrastructure") or r.get("error") or "") for r in broken), "")
        return f"infrastructure: {said}"[:300]
    # Only scheme, host and port: an address may carry credentials.
    origins = {
        host(m.group(0)).lower()
        for r in broken
        for m in _ORIGIN.finditer(f"{r.get('infrastructure') or ''} {r.get('error') or ''}")
    }
    return f"{kind} ({next(iter(origins))})" if len(origins) == 1 else kind
