"""``reuseit promote``: a check in words becomes a DOM assertion the run decides without a model.

For each check written only in words, the pages the model judged it on (kept by
:mod:`.judged_pages` during runs; their accessibility snapshots taken here from the kept HTML) go
to the model, which proposes DOM assertions
(``expect_proposal``). A proposal is kept only if, loaded back into Chromium (the recorded HTML
served at its recorded URL, JavaScript off, nothing else fetched), it holds on every page judged
met and fails on every page judged not met. A kept proposal is written beside the words as
``expect:`` with ``promoted: true`` (a comment-preserving edit, shown as a diff). From then on the
run makes no model call for that check while the assertion holds (see docs/workflow-format.md).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, Route
from pydantic import ValidationError

from ..browser.aria import hide, values_to_hide
from ..browser.assertions import check_expect
from ..browser.session import BrowserSession
from ..engine.result import ModelUsage
from ..llm.client import LlmClient
from ..llm.prompts import PROMOTE_SYSTEM, data_block
from ..llm.schemas import ExpectProposal, ProposedAssertion
from ..sites import LocalSites
from ..workflow.checks import Check, Expect
from ..workflow.loader import LoadedWorkflow, load
from .judged_pages import JudgedPage, judged_pages
from .yamledit import WorkflowDoc

SCHEMA = "expect_proposal"
HTML_CHARS = 12_000  # of each page shown to the model (scripts and styles removed)
PAGES_SHOWN = 4  # pages shown to the model: met and not met, newest first
VERIFY_TIMEOUT_MS = 300  # the pages are static: an assertion does not need to wait


@dataclass(frozen=True)
class WordsCheck:
    fld: str  # pre, post or outcome
    step: int  # 0-based step index (0 for outcome)
    index: int
    line: int
    words: str


@dataclass
class Promotion:
    check: WordsCheck
    expect: list[dict[str, Any]] = field(default_factory=list)
    kept: bool = False
    reason: str = ""  # why not kept, or the model's rationale when kept
    met: int = 0
    not_met: int = 0


def words_checks(loaded: LoadedWorkflow) -> list[WordsCheck]:
    """The checks written only in words (no expect yet), with their lines."""
    src, wf = loaded.source, loaded.workflow
    out = []
    for i, step in enumerate(wf.steps):
        for fld in ("pre", "post"):
            for n, c in enumerate(getattr(step, fld)):
                if c.check and c.expect is None:
                    out.append(WordsCheck(fld, i, n, src.line("steps", i, fld, n), c.check))
    for n, c in enumerate(wf.outcome):
        if c.check and c.expect is None:
            out.append(WordsCheck("outcome", 0, n, src.line("outcome", n), c.check))
    return out


def to_expect(assertions: list[ProposedAssertion]) -> list[dict[str, Any]]:
    """The proposal as ``expect`` mappings (one assertion each); ValueError when one cannot be written."""
    out: list[dict[str, Any]] = []
    for a in assertions:
        if "{" in a.css + a.value or "}" in a.css + a.value:
            raise ValueError(f"{a.kind}: curly braces would be read as placeholders")
        needs_css = a.kind not in ("url_contains", "title_contains")
        if needs_css and not a.css.strip():
            raise ValueError(f"{a.kind}: no css selector")
        loc = {"css": a.css}
        if a.kind in ("visible", "hidden"):
            out.append({a.kind: loc})
        elif a.kind in ("text_equals", "text_contains"):
            out.append({"text": {**loc, a.kind.split("_")[1]: a.value}})
        elif a.kind in ("count_equals", "count_min"):
            if not a.value.strip().isdigit():
                raise ValueError(f"{a.kind}: {a.value!r} is not a number")
            out.append({"count": {**loc, a.kind.split("_")[1]: int(a.value)}})
        else:
            out.append({a.kind.split("_")[0]: {"contains": a.value}})
    if not out:
        raise ValueError("no assertions")
    return out


def messages(session: BrowserSession, words: str, pages: list[JudgedPage]) -> list[dict[str, Any]]:
    """The question: the words, and recorded pages of both verdicts (accessibility snapshot and HTML)."""
    shown = [p for p in reversed(pages) if p.met][: PAGES_SHOWN // 2]
    shown += [p for p in reversed(pages) if not p.met][: PAGES_SHOWN - len(shown)]
    parts: list[dict[str, Any]] = [{"type": "text", "text": f"Condition in words:\n{words}"}]
    for n, p in enumerate(shown, 1):
        head = f"Page {n}: judged {'MET' if p.met else 'NOT met'} ({p.explanation})\nURL: {p.url}\nTitle: {p.title}"
        aria = _aria(session, p)
        parts.append({"type": "text", "text": head + "\nAccessibility snapshot:\n" + data_block("page_text", aria)})
        parts.append({"type": "text", "text": "HTML:\n" + data_block("page_text", _html_excerpt(p.html))})
    return [{"role": "system", "content": PROMOTE_SYSTEM}, {"role": "user", "content": parts}]


def verify(session: BrowserSession, words: str, expect: list[dict[str, Any]], pages: list[JudgedPage]) -> str:
    """'' when the assertions hold on every met page and fail on every not-met page; else what went wrong."""
    try:
        check = Check(check=words, expect=expect, promoted=True)
    except ValidationError as exc:
        return f"not a valid expect: {exc.errors()[0]['msg']}"
    assert check.expect is not None
    for n, page in enumerate(pages, 1):
        holds = _holds(session, check.expect, page)
        if holds != page.met:
            verdict = "met" if page.met else "not met"
            return f"it {'holds' if holds else 'fails'} on recorded page {n} ({page.url}), which the model judged {verdict}"
    return ""


def promote(
    path: Path, client: LlmClient, session: BrowserSession, records: Path, usage: ModelUsage
) -> tuple[WorkflowDoc, str, list[Promotion]]:
    """Propose and verify an assertion for every words-only check with recorded pages; the edited text."""
    loaded = load(path, builtin_names=LocalSites.NAMES)
    doc = WorkflowDoc.load(path)
    results = []
    for wc in words_checks(loaded):
        pages = judged_pages(records, loaded.source.path, wc.line, wc.words)
        result = Promotion(wc, met=sum(p.met for p in pages), not_met=sum(not p.met for p in pages))
        results.append(result)
        if not result.met:
            result.reason = "no recorded page judged met (run the workflow with a model first)"
            continue
        answer = client.ask(SCHEMA, messages(session, pages[-1].words, pages), usage)
        assert isinstance(answer, ExpectProposal)
        try:
            result.expect = to_expect(answer.assertions)
        except ValueError as exc:
            result.reason = f"the proposal cannot be written: {exc}"
            continue
        problem = verify(session, wc.words, result.expect, pages)
        if problem:
            result.reason = f"not kept: {problem}"
            continue
        result.kept, result.reason = True, answer.rationale
        doc.promote_entry(wc.fld, wc.step, wc.index, result.expect)
    text, _ = doc.validated()
    return doc, text, results


@contextmanager
def _loaded(session: BrowserSession, page: JudgedPage) -> Iterator[Page]:
    """The recorded page in Chromium: its HTML served at its URL, JavaScript off, nothing else fetched."""
    context = session.new_context({"java_script_enabled": False}, None)
    url = page.url.split("#")[0]

    def serve(route: Route) -> None:
        if route.request.url.split("#")[0] == url:
            route.fulfill(status=200, content_type="text/html; charset=utf-8", body=page.html)
        else:
            route.abort()  # the recorded page only: the site may be gone, and nothing leaves the machine

    try:
        context.route("**/*", serve)
        tab = context.new_page()
        tab.goto(url, wait_until="domcontentloaded", timeout=10_000)
        yield tab
    finally:
        context.close()


def _holds(session: BrowserSession, expects: tuple[Expect, ...], page: JudgedPage) -> bool:
    try:
        with _loaded(session, page) as tab:
            return all(dv.ok for exp in expects for dv in check_expect(tab, exp, lambda t: t, VERIFY_TIMEOUT_MS))
    except PlaywrightError:
        return False


def _aria(session: BrowserSession, page: JudgedPage) -> str:
    try:
        with _loaded(session, page) as tab:
            # Goes to the model: a password field the stored page filled in must not show.
            return hide(tab.locator("body").aria_snapshot(timeout=5000), values_to_hide(tab), str)
    except PlaywrightError as exc:
        return f"(no accessibility snapshot: {exc})"


def _html_excerpt(html: str) -> str:
    text = re.sub(r"<(script|style)\b.*?</\1>", "", html, flags=re.S | re.I)
    text = re.sub(r"\s+", " ", text)
    return text[:HTML_CHARS]


def summary(results: list[Promotion]) -> list[str]:
    lines = []
    for r in results:
        where = f"line {r.check.line} ({r.check.fld}): {r.check.words}"
        pages = f"{r.met} met / {r.not_met} not met page(s)"
        if r.kept:
            lines.append(f"promoted  {where}\n    {pages}; expect {json.dumps(r.expect)}\n    {r.reason}")
        else:
            lines.append(f"kept as words  {where}\n    {pages}; {r.reason}")
    return lines
