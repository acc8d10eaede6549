"""What a DOM assertion found: :class:`DomVerdict` (held or not, expected and actual in words)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DomVerdict:
    ok: bool
    expected: str
    actual: str
    # False: the assertion could not be asked of what the page has (the values of what is no list
    # box): ``not`` fails on it too, as Playwright's ``not.`` fails on its error, not passing unjudged.
    judgeable: bool = True
