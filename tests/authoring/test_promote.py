"""``reuseit promote`` end to end on the demo site, with the model played by FakeLLM on 127.0.0.1.

A words check is judged by the model on a good page (met) and on a defect page (not met); the
pages are recorded. ``reuseit promote`` gets an assertion proposed, verifies it against both
recorded pages in Chromium, and writes it beside the words. The next run makes no model call for
that check; the defect page still fails (one model call confirms the defect); a page where the
assertion fails but the words hold passes as recovered with the assertion called stale.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from pytest_reuseit.api import default_settings
from pytest_reuseit.authoring import judged_pages as judged_pages_module
from pytest_reuseit.authoring.judged_pages import DEFAULT_DIR, PageRecorder, judged_pages
from pytest_reuseit.cli import main
from pytest_reuseit.report.text import recovered_text
from pytest_reuseit.runtime import Runtime
from pytest_reuseit.sites import LocalSites
from pytest_reuseit.workflow.loader import load
from tests.support.llm_server import FakeLLM, Request

pytestmark = pytest.mark.browser

# check_timeout 0.5: how long a failing check waits (the defect page's words check, a failed
# promoted assertion) before it fails; a check that holds passes at once, and a page settles well
# within it (a cached answer is found again on the same picture).
WORKFLOW = """\
# The Daypack's price, as shoppers see it.
name: Daypack price
task: Check the price of the Daypack
start_url: "{demo_url}/search.html?q=daypack&cookies=never&delay=0&defect={defect}&reset=1"
params: {defect: none}
variations:
  - id: good
  - id: defect
    params: {defect: price}   # every price shown 100x
settings: {check_timeout: 0.5, retries: 0}
steps:
  - action: Wait for the results
    do: [{wait: {css: ".result", state: visible}}]
    post:
      # the price is the contract
      - The Daypack 18L costs $49.99
"""
WORDS = "The Daypack 18L costs $49.99"
GOOD_PROPOSAL = {
    "assertions": [{"kind": "text_contains", "css": ".result .price", "value": "$49.99"}],
    "rationale": "The price element shows $49.99 exactly when the Daypack costs $49.99.",
}
LOOSE_PROPOSAL = {
    "assertions": [{"kind": "visible", "css": ".result", "value": ""}],
    "rationale": "A result is shown.",
}
ANALYSIS = {"where": "step 1", "why": "price", "what": "judged", "guidance": ["x"], "category": "product_defect"}


def reads_price(req: Request) -> dict[str, Any]:
    """A judge that decides from the page text it was sent."""
    block = req.text.rsplit("<page_text>", 1)[-1]
    met = "$49.99" in block
    return {"met": met, "explanation": f"The Daypack costs {'$49.99' if met else 'something else'}."}


@pytest.fixture
def setup(
    browser_session, tmp_path: Path, fake_llm_env: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Runtime, Path, FakeLLM]]:  # type: ignore[no-untyped-def]
    fake_llm_env.add_rule("condition_check", None, reads_price)
    fake_llm_env.add_rule("challenge_analysis", None, ANALYSIS)
    path = tmp_path / "daypack.reuseit.yaml"
    path.write_text(WORKFLOW)
    settings = default_settings(llm="auto", cache=str(tmp_path / "cache"), trace="off", llm_backoff=0.01)
    rt = Runtime(settings, tmp_path)
    rt._session = browser_session  # noqa: SLF001 - share the suite's browser
    monkeypatch.chdir(tmp_path)
    yield rt, path, fake_llm_env
    rt._session = None  # noqa: SLF001
    rt.close()


def promote_cli(path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    """``reuseit promote`` as a user runs it (its own Chromium: in a thread of its own, since this
    thread already runs the suite's sync Playwright)."""
    argv = ["promote", str(path), "--records", str(path.parent / DEFAULT_DIR), "--cache", "promote-cache", *extra]
    with ThreadPoolExecutor(max_workers=1) as thread:
        code = thread.submit(main, argv).result(timeout=300)
    return code, capsys.readouterr().out


def record_both(rt: Runtime, path: Path) -> None:
    loaded = load(path, builtin_names=LocalSites.NAMES)
    assert rt.run(loaded, "good", "good").status == "passed"
    assert rt.run(loaded, "defect", "defect").status == "failed"


@pytest.mark.slow
def test_a_words_check_becomes_an_assertion_that_needs_no_model_call(
    setup: tuple[Runtime, Path, FakeLLM], capsys: pytest.CaptureFixture[str]
) -> None:
    rt, path, fake = setup
    record_both(rt, path)
    pages = judged_pages(
        path.parent / DEFAULT_DIR,
        str(path),
        load(path, builtin_names=LocalSites.NAMES).source.line("steps", 0, "post", 0),
        WORDS,
    )
    assert [p.met for p in pages] == [True, False]
    assert "Daypack 18L" in pages[0].html and "<style data-reuseit='inlined'>" in pages[0].html
    fake.add_rule("expect_proposal", None, GOOD_PROPOSAL)

    code, out = promote_cli(path, capsys)  # a dry run first
    assert code == 0, out
    assert path.read_text() == WORKFLOW
    assert "promoted  line 16 (post): The Daypack 18L costs $49.99" in out
    assert "1 met / 1 not met page(s)" in out

    code, out = promote_cli(path, capsys, "--apply")
    assert code == 0, out
    text = path.read_text()
    assert "# the price is the contract\n" in text and "params: {defect: price}   # every price shown 100x" in text
    assert re.search(
        r"      - check: The Daypack 18L costs \$49\.99\n"
        r"        expect: \{text: \{css: '\.result \.price', contains: '\$49\.99'\}\}\n"
        r"        promoted: true\n",
        text,
    ), text
    assert fake.calls("expect_proposal") == 1

    # The next run: no model call for the promoted check.
    calls = fake.calls("condition_check")
    promoted = load(path, builtin_names=LocalSites.NAMES)
    good = rt.run(promoted, "good", "good-again")
    assert good.status == "passed" and good.label == "passed"
    verdict = good.steps[0].post[0]
    assert (verdict.ok, verdict.source) == (True, "dom")
    assert verdict.explanation == "the promoted assertion held (no model call)"
    assert fake.calls("condition_check") == calls

    # A defect page still fails: the assertion fails, one model call confirms the words do not hold.
    bad = rt.run(promoted, "defect", "defect-again")
    assert bad.status == "failed"
    # One ask: the same page and words as recorded before, so the cache answers it (no new request).
    assert fake.calls("condition_check") == calls
    assert bad.usage.cache_hits == 1
    verdict = bad.steps[0].post[0]
    assert (verdict.ok, verdict.source, verdict.stale) == (False, "dom+model", False)
    assert "a real defect" in verdict.explanation
    assert bad.message.startswith("post check failed: The Daypack 18L costs $49.99: expected")
    assert "$4999.00" in bad.message


@pytest.mark.slow
def test_a_stale_promoted_assertion_passes_as_recovered_and_says_how_to_heal(
    setup: tuple[Runtime, Path, FakeLLM], capsys: pytest.CaptureFixture[str]
) -> None:
    rt, path, fake = setup
    record_both(rt, path)
    fake.add_rule("expect_proposal", None, GOOD_PROPOSAL)
    assert promote_cli(path, capsys, "--apply")[0] == 0
    # The site now shows the price elsewhere (here: the model judges the words met on the defect
    # page): the assertion is out of date, the page is not wrong.
    fake.add_rule("condition_check", None, {"met": True, "explanation": "The price shown is right."})
    shutil.rmtree(path.parent / "cache")  # the recorded "not met" answer must not replay
    result = rt.run(load(path, builtin_names=LocalSites.NAMES), "defect", "stale")
    assert result.status == "passed" and result.label == "recovered"
    verdict = result.steps[0].post[0]
    assert verdict.ok is True and verdict.stale is True
    assert "the assertion is stale, not the page" in verdict.explanation
    assert f"`reuseit promote {path} --apply`" in verdict.explanation
    assert any("its promoted assertion is stale" in line for line in recovered_text(result))


@pytest.mark.slow
def test_a_proposal_that_does_not_separate_the_recorded_pages_is_not_kept(
    setup: tuple[Runtime, Path, FakeLLM], capsys: pytest.CaptureFixture[str]
) -> None:
    rt, path, fake = setup
    record_both(rt, path)
    fake.add_rule("expect_proposal", None, LOOSE_PROPOSAL)
    code, out = promote_cli(path, capsys, "--apply")
    assert code == 0
    assert path.read_text() == WORKFLOW  # nothing written
    assert "kept as words  line 16 (post)" in out
    assert "not kept: it holds on recorded page 2" in out and "which the model judged not met" in out


def test_without_recorded_pages_nothing_is_asked(
    setup: tuple[Runtime, Path, FakeLLM], capsys: pytest.CaptureFixture[str]
) -> None:
    _, path, fake = setup
    code, out = promote_cli(path, capsys, "--apply")
    assert code == 0 and path.read_text() == WORKFLOW
    assert "no recorded page judged met" in out
    assert fake.calls("expect_proposal") == 0


def test_records_are_bounded_per_verdict_and_a_page_is_kept_once(
    page, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(judged_pages_module, "KEEP", 2)  # fewer pages than the shipped bound of 5, same rule
    recorder = PageRecorder(tmp_path, "daypack.reuseit.yaml", mask=lambda text: text)
    for n in range(4):
        page.set_content(f"<title>Daypack</title><p>Daypack 18L costs $49.9{n}</p>")
        recorder.record(16, WORDS, WORDS, True, "met", page, f"picture {n}".encode())
    # The same page again, even in another picture (a caret, a frame): it adds nothing.
    recorder.record(16, WORDS, WORDS, True, "met", page, b"another picture")
    # The same page judged the other way is a record of its own.
    recorder.record(16, WORDS, WORDS, False, "not met", page, b"another picture")
    kept = judged_pages(tmp_path, "daypack.reuseit.yaml", 16, WORDS)
    met = [p for p in kept if p.met]
    assert ["$49.92" in met[0].html, "$49.93" in met[1].html] == [True, True] and len(met) == 2  # the newest two
    assert [p.explanation for p in kept if not p.met] == ["not met"]
