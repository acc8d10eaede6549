"""What a page looked like to its accessibility tree, and what changed between two such looks.

Nightly monitoring compares the page a step failed on with the same step's page when the run last
passed (docs/monitoring.md). Playwright's ARIA snapshot is the comparison's unit: one line per
element with its role, name and state, stable across layout and styling changes, so the lines that
left and appeared name what changed ("button "Add to cart"" left, "button "Add to basket""
appeared) where a pixel diff would only say "different".
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

# A snapshot is kept for every step of every passing run: bounded, so a huge page cannot swell
# the history (the cut is marked, and the comparison then only covers the kept part).
MAX_CHARS = 32_000
CUT_MARK = "- text: … (snapshot cut)"
# Lines listed per side in a comparison: enough to name what changed, short enough to read.
MAX_LINES = 40


@dataclass(frozen=True)
class PageSnapshot:
    url: str = ""
    title: str = ""
    aria: str = ""


def bounded(text: str, limit: int = MAX_CHARS) -> str:
    """The snapshot cut at a line boundary under ``limit`` characters."""
    if len(text) <= limit:
        return text
    head = text[:limit].rsplit("\n", 1)[0]
    return f"{head}\n{CUT_MARK}"


def _lines(aria: str) -> list[str]:
    # Indentation says where an element sits; a moved element is not a changed one.
    return [line.strip() for line in aria.splitlines() if line.strip() and line.strip() != CUT_MARK]


def diff_lines(then: str, now: str) -> tuple[list[str], list[str]]:
    """Lines of ``then`` that left and lines of ``now`` that appeared, as a multiset, in page order."""
    before, after = _lines(then), _lines(now)
    gone = Counter(before) - Counter(after)
    came = Counter(after) - Counter(before)
    removed: list[str] = []
    for line in before:
        if gone[line] > 0:
            gone[line] -= 1
            removed.append(line)
    added: list[str] = []
    for line in after:
        if came[line] > 0:
            came[line] -= 1
            added.append(line)
    return removed, added


def compare(then: PageSnapshot, now: PageSnapshot, *, max_lines: int = MAX_LINES) -> dict[str, Any]:
    """``changed`` as the monitoring contract names it: removed/added lines, url and title then and now."""
    removed, added = diff_lines(then.aria, now.aria)
    out: dict[str, Any] = {
        "removed": removed[:max_lines],
        "added": added[:max_lines],
        "url": [then.url, now.url],
        "title": [then.title, now.title],
    }
    if len(removed) > max_lines or len(added) > max_lines:
        out["more"] = {"removed": max(0, len(removed) - max_lines), "added": max(0, len(added) - max_lines)}
    return out
