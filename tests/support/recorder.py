"""Playwright's own recorder, driven without a window: what ``playwright codegen --target jsonl``
writes, made by the same code generator from a flow a test clicks through.

``playwright codegen`` needs a display for its window; the recorder behind it runs in any
context (Playwright's ``_start_recording``, the call its own recorder tests use) and hands each
recorded action to a sink as the line the JSONL generator wrote, updated as typing goes on.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import BrowserContext


class JsonlRecording:
    """The lines of one recording, in order, each as the generator last wrote it."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def action_added(self, page: Any, data: Any, code: str) -> None:
        self.lines.append(code)

    def action_updated(self, page: Any, data: Any, code: str) -> None:
        if self.lines:
            self.lines[-1] = code

    def signal_added(self, page: Any, data: Any, code: str) -> None:
        if self.lines:
            self.lines[-1] = code

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def record(context: BrowserContext) -> JsonlRecording:
    """Start recording ``context``'s pages as codegen's JSONL; the recording fills as pages are used."""
    recording = JsonlRecording()
    context._sync(context._impl_obj._start_recording({"language": "jsonl"}, recording))  # type: ignore[attr-defined]
    return recording
