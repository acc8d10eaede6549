"""What an op's handler gets (:class:`OpContext`) and what it raises when the page does not let
the op happen (:class:`OpFailed`): shared by ``ops.py`` and ``page_ops.py``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from playwright.sync_api import Page

from ..errors import ReuseitError
from ..workflow.ops import Op
from .pages import Pages


class OpFailed(ReuseitError):
    """The page did not let an op happen. ``kind``: not_found | ambiguous | script | blocked | http |
    no_page | no_download | no_state | page_closed | stuck | no_answer."""

    def __init__(self, op: str, reason: str, kind: str) -> None:
        super().__init__(f"{op}: {reason}")
        self.op = op
        self.reason = reason
        self.kind = kind


@dataclass
class OpContext:
    """What an op's handler gets: the run's pages (``page`` is the current one), placeholder
    filling, the timeout, where extracted values go, and the folders files are read from and
    saved to."""

    render: Callable[[str], str]
    reveal: Callable[[str], str]  # fills secrets too: used only for typed values
    action_timeout_ms: float
    extracted: dict[str, str]
    blocked: list[str]
    query: Callable[[str], str] | None = None  # model-read extraction (needs a model)
    pages: Pages | None = None
    folder: str = "."  # the workflow file's folder: upload paths are relative to it
    output_dir: str = ""  # the run's output folder: downloads are saved under it
    op: Op | None = None  # the op being performed (its modifiers, e.g. ``into``)
    # Called with a value read from an element a secret was typed into: that value is secret too.
    taint: Callable[[str], None] | None = None

    @property
    def page(self) -> Page:
        """The current page."""
        assert self.pages is not None, "OpContext.pages is set by the runner"
        return self.pages.page
