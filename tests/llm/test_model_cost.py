"""Model cost in view: per test in Allure, a session limit.

Two pytest runs ("nights") of the same workflows in subprocesses, each with ``--alluredir``,
``--junitxml`` and the plugin's artifacts, against ``FakeLLM`` on 127.0.0.1: the first with an
empty cache (every check is a call), the second warm (no call). One workflow's check gets a 2 MB
explanation, which every report must show cut. (The nights' history, per workflow across runs,
is tested in tests/report: test_history.py and test_since_last.py.) The limit (``--reuseit-max-cost``) is tested on the Runtime.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_reuseit.api import default_settings
from pytest_reuseit.llm.cost import CostGuard, CostLimitReached
from pytest_reuseit.runtime import Runtime
from pytest_reuseit.workflow.loader import parse
from tests.support.llm_server import FakeLLM

pytestmark = pytest.mark.browser

HUGE = "The page is not it. " + "z" * 2_000_000
ANALYSIS = {
    "where": "step 1",
    "why": "the cart is empty",
    "what": "judged once",
    "guidance": ["check the cart"],
    "category": "product_defect",
}

CHEAP = """
name: Cheap search
task: Search the shop
start_url: "{demo_url}/index.html?cookies=never&reset=1"
settings: {check_timeout: 1, retries: 0}
steps:
  - action: Look at the shop
    do: [{wait: {role: searchbox, name: Search products}}]
    post:
      - The shop's search box is shown
      - check: The shop's name is in the header
        votes: 3
"""

# Its check fails on a page that does not change: check_timeout is how long it looks again first.
WORDY = """
name: Wordy judge
task: Look at the cart
start_url: "{demo_url}/cart.html?cookies=never&reset=1"
settings: {check_timeout: 0.5, retries: 0}
steps:
  - action: Look at the cart
    do: [{wait: 200}]
    post: [The cart holds three backpacks]
"""


def _night(root: Path, fake: FakeLLM, n: int) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PYTEST_", "REUSEIT_", "AZURE_"))}
    env.update({"OPENAI_BASE_URL": fake.base_url, "OPENAI_API_KEY": "test-key"})
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            f"--alluredir=results{n}",
            f"--junitxml=junit{n}.xml",
            "--reuseit-llm=auto",
            "--reuseit-cache=cache",
            f"--reuseit-output=out{n}",
            "--reuseit-trace=off",
            "--reuseit-llm-backoff=0.01",
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def nights(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    root = tmp_path_factory.mktemp("nights")
    (root / "cheap.reuseit.yaml").write_text(CHEAP)
    (root / "wordy.reuseit.yaml").write_text(WORDY)
    with FakeLLM() as fake:
        fake.add_rule("condition_check", None, {"met": True, "explanation": "It is shown."})
        fake.add_rule("condition_check", "three backpacks", {"met": False, "explanation": HUGE})
        fake.add_rule("challenge_analysis", None, ANALYSIS)
        first = _night(root, fake, 1)
        calls_first = fake.calls()
        second = _night(root, fake, 2)
        calls_second = fake.calls() - calls_first
    yield {"root": root, "runs": [first, second], "calls": [calls_first, calls_second]}


def _allure(root: Path, n: int) -> dict[str, dict[str, Any]]:
    results = [json.loads(p.read_text()) for p in (root / f"results{n}").glob("*-result.json")]
    return {r["name"]: r for r in results}


@pytest.mark.slow
def test_calls_tokens_and_cost_per_test_in_allure(nights: dict[str, Any]) -> None:
    root = nights["root"]
    first, second = nights["runs"]
    assert first.returncode == 1 and second.returncode == 1, first.stdout[-3000:]
    # Night 1: 4 condition checks (1 + 3 votes) + 1 wordy check + its analysis; night 2 all from the cache.
    assert nights["calls"] == [6, 0]
    cheap = _allure(root, 1)["Cheap search [default]"]
    params = {p["name"]: p for p in cheap["parameters"]}
    assert params["model calls"]["value"].strip("'") == "4"
    assert params["model cost"]["value"].strip("'").startswith("$0.0")
    assert params["model calls"].get("excluded") is True  # not part of the history id
    (usage,) = [a for a in cheap["attachments"] if a["name"] == "model usage (json)"]
    data = json.loads((root / "results1" / usage["source"]).read_text())
    assert data["calls"] == 4 and data["cache_hits"] == 0 and data["tokens"] > 0 and data["cost_usd"] > 0
    warm = _allure(root, 2)["Cheap search [default]"]
    (usage2,) = [a for a in warm["attachments"] if a["name"] == "model usage (json)"]
    assert json.loads((root / "results2" / usage2["source"]).read_text())["cache_hits"] == 4


@pytest.mark.slow
def test_a_2mb_model_answer_is_cut_in_every_report(nights: dict[str, Any]) -> None:
    root = nights["root"]
    first = nights["runs"][0]
    assert "full text in model-text/condition_check-explanation-1.txt of the run folder" in first.stdout
    assert len(first.stdout) < 60_000, len(first.stdout)
    assert (root / "junit1.xml").stat().st_size < 60_000
    for path in (root / "results1").iterdir():
        assert path.stat().st_size < 200_000, path.name  # screenshots included
    (folder,) = [p for p in (root / "out1").iterdir() if "wordy" in p.name]
    assert (folder / "result.json").stat().st_size < 60_000
    assert (folder / "model-text" / "condition_check-explanation-1.txt").read_text() == HUGE


# --------------------------------------------------------------------------- the session limit


@pytest.mark.slow
def test_past_the_cost_limit_no_more_calls_and_the_run_is_broken(
    browser_session, pages_url: str, tmp_path: Path, fake_llm_env: FakeLLM
) -> None:  # type: ignore[no-untyped-def]
    fake_llm_env.add_rule("condition_check", None, {"met": True, "explanation": "painted"})
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"gpt-4o-mini": [10_000, 10_000]}))  # each call costs a few dollars
    settings = default_settings(
        llm="auto", cache=str(tmp_path / "cache"), base_url=pages_url, prices=str(prices), max_cost=0.5, trace="off"
    )
    rt = Runtime(settings, tmp_path)
    rt._session = browser_session  # noqa: SLF001 - share the suite's browser
    try:

        def check(words: str) -> Any:
            doc = {
                "name": "limited",
                "task": "Paint",
                "start_url": "{base_url}/model/app.html",
                "settings": {"check_timeout": 1, "retries": 0},
                "steps": [{"action": "Paint", "do": [{"click": "#paint"}], "post": [words]}],
            }
            return rt.run(parse(yaml.safe_dump(doc), "x.reuseit.yaml"), None, words)

        first = check("The status says painted")
        assert first.status == "passed" and first.usage.calls == 1 and first.usage.cost > 0.5
        again = check("The status says painted")  # answered by the cache: no call, so no limit
        assert again.status == "passed" and again.usage.cache_hits == 1
        calls = fake_llm_env.calls()
        limited = check("The page is painted blue")
        assert limited.status == "broken"
        assert limited.message.startswith("model cost limit reached: $")
        assert "limit $0.5000 (--reuseit-max-cost); no more model calls" in limited.message
        assert fake_llm_env.calls() == calls  # nothing was asked
    finally:
        rt._session = None  # noqa: SLF001
        rt.close()


def test_xdist_workers_share_one_ledger(tmp_path: Path) -> None:
    ledger = tmp_path / "cost" / "run.json"
    one, two = CostGuard(1.0, ledger), CostGuard(1.0, ledger)  # two workers of one session
    one.add(0.6)
    two.check()  # 0.6 < 1.0
    two.add(0.5)
    assert one.spent == pytest.approx(1.1)
    with pytest.raises(CostLimitReached):
        one.check()
    CostGuard(0.0, ledger).check()  # no limit: never raises


def test_ledgers_of_old_sessions_are_removed_with_their_locks(tmp_path: Path) -> None:
    import os
    import time

    from pytest_reuseit.llm.cost import STALE_AFTER

    folder = tmp_path / "cost"
    CostGuard(1.0, folder / "old.json").add(0.1)
    old = [folder / "old.json", folder / "old.json.lock"]
    assert all(p.exists() for p in old)
    long_ago = time.time() - STALE_AFTER - 60
    for p in old:
        os.utime(p, (long_ago, long_ago))
    CostGuard(1.0, folder / "new.json").add(0.2)  # a new session tidies up
    assert not any(p.exists() for p in old)
    assert CostGuard(1.0, folder / "new.json").spent == pytest.approx(0.2)
