"""The pages the model judged, kept for ``reuseit promote`` (bounded, under ``.reuseit/promote``).

Each time the model judges a check in words, the recorder keeps the page as it was (its HTML
with the page's stylesheets inlined, so visibility survives without the site; its URL and title)
with the verdict: one round trip to the browser, so a judged check pays little for it. The
accessibility snapshot is taken later, by ``reuseit promote``, from the kept HTML. One folder per check, named by a hash of the
workflow file, the check's line and its words; at most :data:`KEEP` records per verdict (met /
not met) per check, the oldest dropped, a page already kept with the same verdict not kept
again (a warm rerun on an unchanged site adds nothing), and no page over :data:`MAX_HTML` bytes. Nothing is kept
for a run that used a secret: masking replaces whole values, and a page can hold part of one (a
field with a maxlength keeps the first characters of a typed token), as a trace can.
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

# The page's HTML, its CSS rules as text (cross-origin sheets cannot be read and are left out) and title.
_PAGE = """() => ({
  html: '<!DOCTYPE html>' + document.documentElement.outerHTML,
  css: [...document.styleSheets].map(s => { try { return [...s.cssRules].map(r => r.cssText).join('\\n') }
        catch (e) { return '' } }).join('\\n'),
  title: document.title,
})"""


@dataclass(frozen=True)
class JudgedPage:
    met: bool
    explanation: str
    words: str  # as judged (placeholders filled in)
    url: str
    title: str
    html: str


def check_folder(root: Path, file: str, line: int, words: str) -> Path:
    key = hashlib.sha256(f"{Path(file).resolve()}\n{line}\n{words}".encode()).hexdigest()[:16]
    return root / key


class PageRecorder:
    """Implements the engine's Recorder port for the runs of one workflow file."""

    def __init__(
        self, root: Path, file: str, mask: Callable[[str], str], holds_secret: Callable[[], bool] = lambda: False
    ) -> None:
        self.root = root
        self.file = file
        self.mask = mask
        self.holds_secret = holds_secret
        # The last snapshot and the (page, picture) it was taken for: checks judged on one look share it.
        self._last: tuple[Page, bytes, str, str, str, str] | None = None

    def record(
        self, line: int, words: str, rendered: str, met: bool, explanation: str, page: Page, picture: bytes
    ) -> None:
        if self.holds_secret():
            log.info("promotion record skipped: the run used a secret")
            return
        if self._last is not None and self._last[0] is page and self._last[1] == picture:
            url, title, html, digest = self._last[2:]
        else:
            try:
                snap = page.evaluate(_PAGE)
                url, title = page.url, str(snap["title"])
                html = _with_styles(str(snap["html"]), str(snap["css"]))
            except PlaywrightError as exc:  # a page that went away: nothing to keep, the run goes on
                log.info("promotion record skipped: %s", exc)
                return
            digest = hashlib.sha256(f"{url}\n{title}\n{html}".encode()).hexdigest()[:12]
            self._last = (page, picture, url, title, html, digest)
        if len(html.encode()) > MAX_HTML:
            log.info("promotion record skipped: the page's HTML is over %d bytes", MAX_HTML)
            return
        folder = check_folder(self.root, self.file, line, words)
        folder.mkdir(parents=True, exist_ok=True)
        if not (folder / "check.json").is_file():
            meta = {"file": str(Path(self.file).resolve()), "line": line, "words": words}
            write_text(folder / "check.json", json.dumps(meta, indent=1))
        verdict = "met" if met else "unmet"
        if any(folder.glob(f"*-{digest}-{verdict}.json")):
            return  # this very page is kept with this verdict already: a copy would only crowd out others
        stamp = f"{time.time_ns()}-{digest}-{verdict}"
        record = {
            "met": met,
            "explanation": self.mask(explanation),
            "words": self.mask(rendered),
            "url": url,
            "title": self.mask(title),
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
                html=html,
            )
        )
    return out


def _with_styles(html: str, css: str) -> str:
    if not css:
        return html
    style = f"<style data-reuseit='inlined'>{css}</style>"
    at = html.lower().find("</head>")
    return html[:at] + style + html[at:] if at >= 0 else style + html
