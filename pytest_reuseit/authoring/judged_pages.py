"""The pages the model judged, kept for ``reuseit promote`` (bounded, under ``.reuseit/promote``).

Each time the model judges a check in words, the recorder keeps the page as it was (its HTML
with the page's stylesheets inlined, so visibility survives without the site; its accessibility
snapshot; its URL and title) with the verdict. One folder per check, named by a hash of the
workflow file, the check's line and its words; at most :data:`KEEP` records per verdict (met /
not met) per check, the oldest dropped, and no page over :data:`MAX_HTML` bytes. Secrets are
masked in everything kept, as in every other file the run writes.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

from ..atomic import write_text_atomic as write_text

log = logging.getLogger(__name__)

DEFAULT_DIR = ".reuseit/promote"
KEEP = 5
MAX_HTML = 1_000_000

# The page's CSS rules as text (cross-origin sheets cannot be read and are left out).
_CSS = """() => [...document.styleSheets].map(s => { try { return [...s.cssRules].map(r => r.cssText).join('\\n') }
 catch (e) { return '' } }).join('\\n')"""


@dataclass(frozen=True)
class JudgedPage:
    met: bool
    explanation: str
    words: str  # as judged (placeholders filled in)
    url: str
    title: str
    aria: str
    html: str


def check_folder(root: Path, file: str, line: int, words: str) -> Path:
    key = hashlib.sha256(f"{Path(file).resolve()}\n{line}\n{words}".encode()).hexdigest()[:16]
    return root / key


class PageRecorder:
    """Implements the engine's Recorder port for the runs of one workflow file."""

    def __init__(self, root: Path, file: str, mask: Callable[[str], str]) -> None:
        self.root = root
        self.file = file
        self.mask = mask

    def record(self, line: int, words: str, rendered: str, met: bool, explanation: str, page: Page) -> None:
        try:
            html = _html_with_styles(page)
            aria = page.locator("body").aria_snapshot(timeout=2000)
            url, title = page.url, page.title()
        except PlaywrightError as exc:  # a page that went away: nothing to keep, the run goes on
            log.info("promotion record skipped: %s", exc)
            return
        if len(html.encode()) > MAX_HTML:
            log.info("promotion record skipped: the page's HTML is over %d bytes", MAX_HTML)
            return
        folder = check_folder(self.root, self.file, line, words)
        folder.mkdir(parents=True, exist_ok=True)
        meta = {"file": str(Path(self.file).resolve()), "line": line, "words": words}
        write_text(folder / "check.json", json.dumps(meta, indent=1))
        verdict = "met" if met else "unmet"
        stamp = f"{time.time_ns()}-{verdict}"
        record = {
            "met": met,
            "explanation": self.mask(explanation),
            "words": self.mask(rendered),
            "url": url,
            "title": self.mask(title),
            "aria": self.mask(aria),
        }
        write_text(folder / f"{stamp}.html", self.mask(html))
        write_text(folder / f"{stamp}.json", json.dumps(record, indent=1))
        for old in sorted(folder.glob(f"*-{verdict}.json"))[:-KEEP]:
            old.unlink(missing_ok=True)
            old.with_suffix(".html").unlink(missing_ok=True)


def judged_pages(root: Path, file: str, line: int, words: str) -> list[JudgedPage]:
    """The kept records of one check, oldest first."""
    folder = check_folder(root, file, line, words)
    out = []
    for path in sorted(folder.glob("*.json")):
        if path.name == "check.json":
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            html = path.with_suffix(".html").read_text(encoding="utf-8")
        except (OSError, ValueError):
            continue
        out.append(
            JudgedPage(
                met=bool(data["met"]),
                explanation=str(data.get("explanation", "")),
                words=str(data.get("words", words)),
                url=str(data["url"]),
                title=str(data.get("title", "")),
                aria=str(data.get("aria", "")),
                html=html,
            )
        )
    return out


def _html_with_styles(page: Page) -> str:
    html = page.content()
    css = page.evaluate(_CSS)
    if not css:
        return html
    style = f"<style data-reuseit='inlined'>{css}</style>"
    at = html.lower().find("</head>")
    return html[:at] + style + html[at:] if at >= 0 else style + html
