"""Allure output of YAML workflow items: result files, and the rendered HTML report in Chromium."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_reuseit import cli
from tests.support.shared_run import run_once

PASSING = """
name: Two variations
task: Open the demo shop and search {product}
start_url: "{demo_url}/index.html?cookies=never&delay=0&reset=1"
params: {product: backpack}
variations:
  - id: first
  - id: second
    kind: attribute
    params: {product: rain jacket}
tags: [smoke]
severity: critical
steps:
  - action: Search {product}
    do:
      - fill: {role: searchbox, name: Search products, value: "{product}"}
      - click: {role: button, name: Search, exact: true}
    post:
      - expect: {count: {css: ".result", min: 1}}
"""

# The banner covers the search (the click gives up after action_timeout) and the price stays wrong
# (the check gives up after check_timeout): each waits only as long as it takes to show a real wait
# in the report, on pages the demo shop answers at once.
RECOVERED = """
name: Banner in the way
task: Search behind the cookie banner
start_url: "{demo_url}/index.html?cookies=always&delay=0&reset=1"
# 2 s: at 0.5 s the banner's own Accept button timed out on a machine at load 11, every attempt.
settings: {action_timeout: 2, check_timeout: 1}
steps:
  - action: Search backpack
    do:
      - fill: {role: searchbox, name: Search products, value: backpack}
      - click: {role: button, name: Search, exact: true}
    post:
      - expect: {count: {css: ".result", min: 1}}
    fallback:
      - do: [{click: {role: button, name: Accept cookies}}]
        redo: true
"""

FAILING = """
name: Price is right
task: Check the price of the Daypack
start_url: "{demo_url}/search.html?q=daypack&cookies=never&delay=0&defect=price&reset=1"
settings: {check_timeout: 0.5, retries: 1}
steps:
  - action: Read the Daypack price
    do: [{wait: {css: ".result", state: visible}}]
    post:
      - check: The Daypack 18L costs $49.99
        expect: {text: {css: ".result .price", nth: 0, equals: "$49.99"}}
    fallback:
      - do: [reload]  # an attempt, so the report shows one (the price stays wrong)
"""

BROKEN = """
name: Site down
task: Open a site that is down
start_url: "http://127.0.0.1:9/"
allowed_domains: [127.0.0.1]
steps:
  - action: Nothing
    do: [{wait: 10}]
"""


def _walk(steps: list[dict[str, Any]], depth: int = 0) -> list[tuple[int, dict[str, Any]]]:
    out = []
    for st in steps:
        out.append((depth, st))
        out.extend(_walk(st.get("steps", []), depth + 1))
    return out


def _run_workflows(root: Path) -> subprocess.CompletedProcess[str]:
    """The pytest run of the four workflow files in ``root``, results in ``root / "results"``."""
    root.mkdir(parents=True, exist_ok=True)
    for name, text in (("passing", PASSING), ("recovered", RECOVERED), ("failing", FAILING), ("broken", BROKEN)):
        (root / f"{name}.reuseit.yaml").write_text(text)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PYTEST_"))}
    env["OPENAI_API_KEY"] = "sk-never-in-a-report-123"
    env["REUSEIT_LLM"] = "off"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--alluredir", "results", str(root)],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def allure_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One pytest run of four workflow files with --alluredir; returns the results by test name."""
    # The tests only read the run (the report test copies its results): one run for both xdist workers.
    root, proc = run_once(
        tmp_path_factory,
        "allure-run",
        lambda folder: (folder, _run_workflows(folder)),
        lambda made: [str(made[0]), made[1].args, made[1].returncode, made[1].stdout, made[1].stderr],
        lambda data: (Path(data[0]), subprocess.CompletedProcess(*data[1:])),
    )
    results = [json.loads(p.read_text()) for p in (root / "results").glob("*-result.json")]
    return {"root": root, "proc": proc, "by_name": {r["name"]: r for r in results}, "results": results}


@pytest.mark.slow
def test_each_variation_is_its_own_allure_test_with_labels(allure_run: dict[str, Any]) -> None:
    by_name = allure_run["by_name"]
    assert allure_run["proc"].returncode == 1, allure_run["proc"].stdout
    assert set(by_name) == {
        "Two variations [first]",
        "Two variations [second]",
        "Banner in the way [default]",
        "Price is right [default]",
        "Site down [default]",
    }
    assert len({r["historyId"] for r in allure_run["results"]}) == 5
    first = by_name["Two variations [first]"]
    labels = {(lab["name"], lab["value"]) for lab in first["labels"]}
    assert ("suite", "passing.reuseit.yaml") in labels
    assert ("feature", "Two variations") in labels
    assert ("story", "first (original)") in labels
    assert ("severity", "critical") in labels
    assert ("tag", "smoke") in labels
    assert ("story", "second (attribute)") in {
        (lab["name"], lab["value"]) for lab in by_name["Two variations [second]"]["labels"]
    }
    params = {p["name"]: p["value"] for p in first["parameters"]}
    assert params["variation"] == "'first'"
    # The description shows what ran: placeholders filled.
    assert "<ol><li>Search backpack</li></ol>" in first["descriptionHtml"]
    assert "{" not in first["descriptionHtml"]


@pytest.mark.slow
def test_failed_vs_broken_and_category_status_messages(allure_run: dict[str, Any]) -> None:
    failing = allure_run["by_name"]["Price is right [default]"]
    broken = allure_run["by_name"]["Site down [default]"]
    assert failing["status"] == "failed"
    assert "[wrong_element_or_value]" in failing["statusDetails"]["message"].splitlines()[0]
    assert "$4999.00" in failing["statusDetails"]["message"]
    assert broken["status"] == "broken"
    assert "[infrastructure]" in broken["statusDetails"]["message"].splitlines()[0]
    cats = json.loads((allure_run["root"] / "results" / "categories.json").read_text())
    names = {c["name"]: c for c in cats}
    assert names["Infrastructure (site or model unreachable)"]["matchedStatuses"] == ["broken"]
    import re

    regex = names["Wrong element or value"]["messageRegex"]
    assert re.fullmatch(regex, failing["statusDetails"]["message"])  # Allure matches the whole message
    assert not re.fullmatch(regex, broken["statusDetails"]["message"])


@pytest.mark.slow
def test_step_tree_with_screenshots_on_the_right_sub_steps(allure_run: dict[str, Any]) -> None:
    failing = allure_run["by_name"]["Price is right [default]"]
    tree = _walk(failing["steps"])
    top = [st for d, st in tree if d == 0]
    # Before step 1: the start page loading, with its own time.
    assert top[0]["name"].startswith("open http://127.0.0.1:") and top[0]["start"] == failing["start"]
    assert top[1]["name"].startswith("Step 1: Read the Daypack price") and top[1]["status"] == "failed"
    names = [st["name"] for _, st in tree]
    assert any(n == "post checks" for n in names)
    verdict = next(st for _, st in tree if st["name"].startswith("post check [dom] NOT met"))
    assert "actual '$4999.00'" in verdict["name"] and verdict["status"] == "failed"
    assert [a["type"] for a in verdict["attachments"]] == ["image/jpg"]
    attempt = next(st for _, st in tree if st["name"].startswith("attempt 1 (post)"))
    # The attempt's picture is the one its failing check took (attached once, in that check's sub-step).
    attempt_shots = [a for _, st in _walk([attempt]) for a in st.get("attachments", []) if a["type"] == "image/jpg"]
    assert attempt["status"] == "failed" and [a["name"] for a in attempt_shots] == [
        "post check failed (attempt 1): The Daypack 18L costs $49.99"
    ]
    kinds = {a["name"]: a for a in failing["attachments"]}
    analysis = kinds["challenge analysis [wrong_element_or_value]"]
    assert analysis["type"] == "text/html"
    page = (allure_run["root"] / "results" / analysis["source"]).read_text()
    for part in ("Where", "Why", "What was tried", "What to change", "$4999.00"):
        assert part in page
    data = json.loads((allure_run["root"] / "results" / kinds["challenge analysis (json)"]["source"]).read_text())
    assert data["category"] == "wrong_element_or_value" and data["guidance"]
    trace = allure_run["root"] / "results" / kinds["playwright trace"]["source"]
    assert trace.suffix == ".zip" and trace.stat().st_size > 1000


@pytest.mark.slow
def test_recovered_run_is_passed_but_visibly_different(allure_run: dict[str, Any]) -> None:
    rec = allure_run["by_name"]["Banner in the way [default]"]
    clean = allure_run["by_name"]["Two variations [first]"]
    assert rec["status"] == "passed" and clean["status"] == "passed"
    assert ("tag", "recovered") in {(lab["name"], lab["value"]) for lab in rec["labels"]}
    assert ("tag", "recovered") not in {(lab["name"], lab["value"]) for lab in clean["labels"]}
    assert any(a["name"].startswith("recovered: what was recovered") for a in rec["attachments"])
    step = next(st for st in rec["steps"] if st["name"].startswith("Step 1"))
    assert "[recovered]" in step["name"]
    assert any(s["name"].startswith("attempt 1 (action)") and s["status"] == "passed" for s in step["steps"])


@pytest.mark.slow
def test_recovered_run_is_marked_flaky_with_its_own_category(allure_run: dict[str, Any]) -> None:
    rec = allure_run["by_name"]["Banner in the way [default]"]
    assert rec["statusDetails"]["flaky"] is True
    assert rec["statusDetails"]["message"].startswith("[recovered] Recovered by fallback: step 1 (Search backpack)")
    clean = allure_run["by_name"]["Two variations [first]"]
    assert not (clean.get("statusDetails") or {}).get("flaky")
    cats = json.loads((allure_run["root"] / "results" / "categories.json").read_text())
    recovered = next(c for c in cats if c["name"] == "Recovered by fallback")
    assert recovered["matchedStatuses"] == ["passed"]
    import re

    assert re.fullmatch(recovered["messageRegex"], rec["statusDetails"]["message"])
    assert not any(re.fullmatch(c["messageRegex"], rec["statusDetails"]["message"]) for c in cats if c is not recovered)


@pytest.mark.slow
def test_step_times_are_real_and_add_up_to_the_test_duration(allure_run: dict[str, Any]) -> None:
    for name, result in allure_run["by_name"].items():
        total = result["stop"] - result["start"]
        steps = result["steps"]
        covered = sum(st["stop"] - st["start"] for st in steps)
        assert abs(covered - total) <= 0.1 * total, (name, covered, total)
        for _, st in _walk(steps):
            assert result["start"] <= st["start"] <= st["stop"] <= result["stop"], (name, st["name"])
            for child in st.get("steps", []):
                assert st["start"] <= child["start"] and child["stop"] <= st["stop"], (name, child["name"])
    failing = allure_run["by_name"]["Price is right [default]"]
    waited = next(st for _, st in _walk(failing["steps"]) if st["name"].startswith("post check [dom] NOT met"))
    assert waited["stop"] - waited["start"] >= 450  # check_timeout: 0.5 s of real waiting, not 0-9 ms


@pytest.mark.slow
def test_attempts_are_listed_in_the_order_they_happened(allure_run: dict[str, Any]) -> None:
    rec = allure_run["by_name"]["Banner in the way [default]"]
    step = next(st for st in rec["steps"] if st["name"].startswith("Step 1"))
    names = [st["name"].split(" (")[0].split(":")[0] for st in step["steps"]]
    # The action failed (the banner covers it), was recovered, then the post checks ran.
    assert names == ["action", "attempt 1", "post checks"], names


@pytest.mark.slow
def test_no_module_paths_and_the_page_in_failure_messages(allure_run: dict[str, Any]) -> None:
    results = allure_run["root"] / "results"
    for path in results.iterdir():
        if path.suffix == ".json":
            assert "pytest_reuseit." not in path.read_text(), path.name
            assert "_StepFailed" not in path.read_text(), path.name
    failing = allure_run["by_name"]["Price is right [default]"]
    message = failing["statusDetails"]["message"]
    assert re.search(r"\(page '[^']*Trailhead Outfitters' at http://127\.0\.0\.1:\d+/demo/search\.html", message)
    step = next(st for st in failing["steps"] if st["name"].startswith("Step 1"))
    assert step["status"] == "failed" and "search.html" in step["statusDetails"]["message"]


@pytest.mark.slow
def test_environment_has_context_and_no_key(allure_run: dict[str, Any]) -> None:
    results = allure_run["root"] / "results"
    env = (results / "environment.properties").read_text()
    assert "browser=" in env and "pytest-reuseit=" in env and "model=off" in env
    everything = "".join(
        p.read_text(errors="ignore") for p in results.iterdir() if p.suffix in (".json", ".properties", ".html", ".txt")
    )
    assert "sk-never-in-a-report-123" not in everything


def _report_here(root: Path) -> tuple[int, str, str]:
    """``reuseit report`` as its entry point runs it, in this process from ``root`` (a Python start
    and the imports less than a program; Allure itself runs as its own program either way)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(root), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["report", "--results", "results", "--output", "report"])
    return code, out.getvalue(), err.getvalue()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("allure") is None, reason="Allure command line not installed (ci/install.sh --report)")
def test_html_report_renders_the_analysis(allure_run: dict[str, Any], browser_session: Any, tmp_path: Path) -> None:
    """Generate the single-file report, open it offline in Chromium, reach the failure's analysis."""
    # `reuseit report` writes into the results folder (categories, history): a copy of its own,
    # as the other tests may be reading the run's folder on the other xdist worker meanwhile.
    root = tmp_path
    shutil.copytree(allure_run["root"] / "results", root / "results")
    code, out, err = _report_here(root)
    assert code == 0, err
    index = root / "report" / "index.html"
    assert index.exists() and f"report: {index.resolve()}" in out
    # History is kept beside the single file, and the next report adds a trend point to it.
    trend = root / "report" / "history" / "history-trend.json"
    assert len(json.loads(trend.read_text())) == 1
    again, _, err = _report_here(root)
    assert again == 0, err
    assert len(json.loads(trend.read_text())) == 2
    context = browser_session.new_context({"viewport": {"width": 1400, "height": 1100}}, None)
    try:
        page = context.new_page()
        page.goto(index.as_uri() + "#categories")
        page.get_by_text("Wrong element or value").first.click()
        page.locator(".node__name", has_text="wrong_element_or_value").first.click()
        page.locator("a.node__leaf").first.click()
        page.locator(".attachment-row", has_text="challenge analysis [wrong_element_or_value]").first.click()
        frame = page.frame_locator(".attachment iframe, iframe").first
        body = frame.locator("body")
        body.get_by_text("What to change").wait_for(timeout=15_000)
        text = body.inner_text()
        assert "Where" in text and "$4999.00" in text and "update the expected value" in text
        page.screenshot(path=str(root / "analysis.png"))
        assert (root / "analysis.png").stat().st_size > 10_000
    finally:
        context.close()
