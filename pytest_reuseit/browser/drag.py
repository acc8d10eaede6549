"""Which element of a ``drag`` was not found (or found several times), from Playwright's call log
of a ``dragTo`` that failed.

``dragTo`` waits for the element dragged, presses the mouse on its middle ("move and down"), then
waits for the element to drop it on and lets go on its middle ("move and up"). The call log of
one that timed out says how far it came: its last line waits for a locator, and whether the
first half was done tells which of the two that locator is. The op's failure then names that
element as the workflow writes it, not Playwright's form of its selector.
"""

from __future__ import annotations

import re
from typing import Literal

# The call log's lines ("  - waiting for locator(...)", indented sub-lines under them).
_LINE = re.compile(r"^\s*-\s*(.*?)\s*$", re.MULTILINE)
_PRESSED = "move and down action done"
# The line of a wait for an element to be in the page (``waiting for locator("#done")``,
# ``waiting for get_by_role("region", name="Done")``), not for one found to be ready.
_WAITING_FOR_ONE = re.compile(r"^waiting for (?!element |scheduled navigations|\d+ms)")


def which_end(error: str) -> Literal["source", "target"]:
    """The element a failed ``dragTo`` was at: ``target`` (the one it is dropped on) once the mouse
    was pressed on the one dragged, else ``source``."""
    return "target" if _PRESSED in _LINE.findall(error.partition("Call log:")[2]) else "source"


def missing_end(error: str) -> Literal["source", "target"] | None:
    """``source`` (the element dragged) or ``target`` (the one it is dropped on) when the call
    timed out waiting for that element to be in the page; None when it timed out for another
    reason (the element was there but hidden, covered, moving: the call log says which)."""
    lines = _LINE.findall(error.partition("Call log:")[2])
    if not lines or not _WAITING_FOR_ONE.match(lines[-1]):
        return None
    return which_end(error)
