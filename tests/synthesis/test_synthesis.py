"""`reuseit synthesize` end to end against the demo shop, with the model played over HTTP.

The fake model is deterministic: its "agent" follows the demo page's element names; for each
product the first run it starts does not dismiss the cookie banner (so its click on Search is
blocked and it gives up) and the next one does. The synthesis answers (C.1-C.4) are scripted
from what the requests contain, so the test can check that the guards the failures imply end up
in the file, that agreeing actions were compiled to ops, and that the file runs green.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from pytest_reuseit.browser.session import BrowserConfig
from pytest_reuseit.cli import main as cli_main
from pytest_reuseit.llm.client import LlmClient, LlmConfig
from pytest_reuseit.sites import LocalSites, SiteServer
from pytest_reuseit.synthesis.compile import compile_step, op_for, parse_evidence, templated
from pytest_reuseit.synthesis.explore import RecordedAction, RunRecord, TaskInstance, explore
from pytest_reuseit.workflow.loader import load
from pytest_reuseit.workflow.ops import Op
from tests.support.llm_server import FakeLLM, Request

TASK = "Search the demo shop for trail shoes"
BANNER_CHECK = "No cookie banner or dialog covers the page"
FALLBACK = "Retry the search by first clicking the button that accepts cookies"


def _ref(text: str, role: str, name: str) -> str | None:
    m = re.search(rf'{role} "{re.escape(name)}"[^\n]*\[ref=(e\d+)\]', text)
    return m.group(1) if m else None


class ScriptedModel:
    """Answers every synthesis schema deterministically."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.started: dict[str, int] = {}

    def agent(self, req: Request) -> dict[str, str]:
        task = re.search(r"Step action to carry out now: (.*)", req.text).group(1)  # type: ignore[union-attr]
        product = task.rsplit(" for ", 1)[1].strip()
        done = req.text.split("Already done in this step:", 1)[1].split("Page:", 1)[0]
        if "nothing yet" in done:
            # The first conversation per product is careless; the choice is made at its first turn
            # and shows in what it did, so later turns of parallel conversations cannot mix it up.
            with self.lock:
                self.started[product] = self.started.get(product, 0) + 1
                careful = self.started[product] > 1
        else:
            careful = "Accept cookies" in done
        answer = {"thought": "", "element": "", "value": "", "message": ""}
        banner = _ref(req.text, "button", "Accept cookies")
        if "failed:" in done:
            return {
                **answer,
                "action": "fail",
                "message": "I couldn't click the Search button: a cookie consent banner covers the page",
            }
        if banner and careful:
            return {
                **answer,
                "action": "click",
                "element": banner,
                "message": "I clicked Accept cookies to dismiss the banner",
            }
        if "agent: fill" not in done:
            return {
                **answer,
                "action": "fill",
                "element": _ref(req.text, "searchbox", "Search products") or "",
                "value": product,
                "message": "I typed the product into the search box",
            }
        if 'agent: click role=button[name="Search"]' not in done:
            return {
                **answer,
                "action": "click",
                "element": _ref(req.text, "button", "Search") or "",
                "message": "I clicked the Search button",
            }
        return {**answer, "action": "done", "message": f"Results for {product} are shown"}

    @staticmethod
    def judge(req: Request) -> dict[str, object]:
        ok = "final: done" in req.text
        return {"success": ok, "rationale": "results are shown" if ok else "the search was never submitted"}

    @staticmethod
    def structure(req: Request) -> dict[str, object]:
        good = re.findall(r"RUN (\S+) \(SUCCESS\)", req.text)
        return {
            "steps": [
                {"action": "Accept the cookie banner", "evidence": [f"{r}:1" for r in good]},
                {"action": "Type {product} into the search box", "evidence": [f"{r}:2" for r in good]},
                {"action": "Click the Search button to search for {product}", "evidence": [f"{r}:3" for r in good]},
            ]
        }

    @staticmethod
    def conditions(req: Request) -> dict[str, object]:
        failed = re.findall(r"RUN (\S+) \(FAILED\)", req.text)
        return {"checks": [{"step": 3, "phase": "pre", "condition": BANNER_CHECK, "source_runs": failed}]}

    @staticmethod
    def fallbacks(req: Request) -> dict[str, object]:
        failed = re.findall(r"RUN (\S+) \(FAILED\)", req.text)
        return {"fallbacks": [{"step": 3, "fallback": FALLBACK, "source_runs": failed}]}

    @staticmethod
    def merged(req: Request) -> dict[str, object]:
        assert "step 3, pre: " + BANNER_CHECK in req.text and FALLBACK in req.text
        return {
            "steps": [
                {"action": "Accept the cookie banner", "pre": [], "post": [], "fallback": []},
                {"action": "Type {product} into the search box", "pre": [], "post": [], "fallback": []},
                {
                    "action": "Click the Search button to search for {product}",
                    "pre": [BANNER_CHECK],
                    "post": ["Results for {product} are listed"],
                    "fallback": [FALLBACK],
                },
            ]
        }

    def install(self, fake: FakeLLM) -> None:
        fake.add_rule(
            "task_variations",
            None,
            {
                "template": "Search the demo shop for {product}",
                "parameters": [{"name": "product", "value": "trail shoes"}],
                "variations": [
                    {
                        "kind": "attribute",
                        "task": "Search the demo shop for rain jacket",
                        "params": [{"name": "product", "value": "rain jacket"}],
                    }
                ],
            },
        )
        fake.add_rule("agent_action", None, self.agent)
        fake.add_rule("run_judgement", None, self.judge)
        fake.add_rule("workflow_structure", None, self.structure)
        fake.add_rule("condition_checks", None, self.conditions)
        fake.add_rule("fallback_actions", None, self.fallbacks)
        fake.add_rule("guarded_workflow", None, self.merged)
        fake.add_rule("condition_check", None, {"met": True, "explanation": "as shown"})


@pytest.fixture
def site() -> Iterator[SiteServer]:
    with SiteServer() as s:
        yield s


def _synthesize(tmp_path: Path, fake: FakeLLM, *extra: str) -> subprocess.CompletedProcess[str]:
    """The command as a program (a Python start and its imports: once, in the end-to-end test)."""
    env = {**os.environ, "OPENAI_BASE_URL": fake.base_url, "OPENAI_API_KEY": "sk-test"}
    return subprocess.run(
        [sys.executable, "-m", "pytest_reuseit.cli", *_synthesize_args(*extra)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )


def _synthesize_here(tmp_path: Path, fake: FakeLLM, monkeypatch: pytest.MonkeyPatch, *extra: str) -> int:
    """The same command in this process, from tmp_path."""
    monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.chdir(tmp_path)
    return cli_main(_synthesize_args(*extra))


def _synthesize_args(*extra: str) -> list[str]:
    return [
        "synthesize",
        TASK,
        "--start-url",
        "{demo_url}/index.html?cookies=always&delay=0&reset=1",
        "--runs",
        "2",
        "--kinds",
        "attribute",
        "--concurrency",
        "2",
        "-o",
        "shoes.reuseit.yaml",
        "--llm-backoff",
        "0.01",
        "--max-actions",
        "6",
        "--action-timeout",
        "1",  # the careless runs click a button the banner covers: they fail after this
        *extra,
    ]


@pytest.mark.slow
def test_synthesize_end_to_end_writes_a_guarded_workflow_that_runs_green(
    tmp_path: Path,
    fake_llm: FakeLLM,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ScriptedModel().install(fake_llm)
    proc = _synthesize(tmp_path, fake_llm)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    # Stages, progress and summary are all visible.
    for stage in (
        "1/7 variations",
        "2/7 exploration: 2 tasks x 2 runs",
        "3/7 judged: 2 successful, 2 failed runs",
        "4/7 structure: 3 steps",
        "5/7 guards: 3 checks and fallbacks from 2 failed runs",
        "6/7 compiled: 3 of 3 steps",
        "7/7 wrote shoes.reuseit.yaml",
    ):
        assert stage in out
    assert "exploration runs" in out  # the progress bar
    assert re.search(r"runs: 4 \(2 successful\), guards: 3, compiled steps: 3, model: \d+ calls", out)
    assert re.search(r"original\s+passed", out) and re.search(r"attribute\s+passed", out)

    path = tmp_path / "shoes.reuseit.yaml"
    loaded = load(path, builtin_names=LocalSites.NAMES)  # the loader accepts it
    wf = loaded.workflow
    assert wf.task == "Search the demo shop for {product}" and wf.params == {"product": "trail shoes"}
    assert wf.start_url == "{demo_url}/index.html?cookies=always&delay=0&reset=1"  # portable, not this run's port
    assert [v.id for v in wf.variations] == ["original", "attribute"] and wf.variations[1].params == {
        "product": "rain jacket"
    }
    step3 = wf.steps[2]
    assert [c.check for c in step3.pre] == [BANNER_CHECK]  # from the failed runs (C.2)
    assert [f.agent for f in step3.fallback] == [FALLBACK]  # from the successful runs (C.3)
    # Agreeing actions of the successful runs (both variations) became ops with the parameter in them.
    raw = yaml.safe_load(path.read_text())
    assert raw["steps"][0]["do"] == [{"click": 'role=button[name="Accept cookies"]'}]
    assert raw["steps"][1]["do"] == [
        {"fill": {"selector": 'role=searchbox[name="Search products"]', "value": "{product}"}}
    ]
    assert raw["steps"][2]["do"] == [{"click": 'role=button[name="Search"]'}]
    text = path.read_text()
    assert re.search(r"# pre 'No cookie banner or dialog covers the page' from runs (original|attribute)-\d", text)
    assert "# do: compiled from successful runs" in text
    assert text.startswith("# Synthesized by `reuseit synthesize` from 4 exploration runs")
    # What the failures taught is kept as experience for the site and given to later agents.
    assert "experience: 3 new rule(s) for 127.0.0.1" in out
    rules = (tmp_path / ".reuseit" / "experience" / "127.0.0.1.json").read_text()
    assert f"Before 'Click the Search button to search for {{product}}', make sure that: {BANNER_CHECK}" in rules
    # Every run is recorded with its screenshots, and a second call resumes: no new agent or stage calls.
    runs = sorted((tmp_path / ".reuseit" / "runs").glob("*/*/run.json"))
    assert len(runs) == 4 and all((p.parent / "01.jpg").exists() for p in runs)
    before = {s: fake_llm.calls(s) for s in ("agent_action", "run_judgement", "workflow_structure", "task_variations")}
    # The same command in this process (the first call tested it as a program): a resume starts no
    # browser, and a second interpreter would cost more than the resume itself.
    again = _synthesize_here(tmp_path, fake_llm, monkeypatch, "--no-verify")
    assert again == 0, capsys.readouterr()
    assert {s: fake_llm.calls(s) for s in before} == before


@pytest.mark.slow
@pytest.mark.parametrize(("concurrency", "runs", "together"), [(1, 2, 1), (3, 3, 3)])
def test_exploration_runs_wait_for_the_model_together_up_to_the_concurrency(
    tmp_path: Path, fake_llm_env: FakeLLM, site: SiteServer, concurrency: int, runs: int, together: int
) -> None:
    fake_llm = fake_llm_env
    # Each run opens its start page in turn (renderers start one at a time), but they must still
    # run side by side: three runs with concurrency 3 all wait for the model at once, none with 1
    # (two runs show it: run side by side, they would both wait for the model's second).
    # 3 s a model answer: the runs' starts, one page at a time, fall inside it on a loaded machine
    # too (at 1 s, three runs overlapped by two once).
    fake_llm.latency = 3.0
    fake_llm.add_rule(
        "agent_action", None, {"thought": "", "action": "done", "element": "", "value": "", "message": "shown"}
    )
    client = LlmClient(LlmConfig(model="fake-llm", cache_dir=str(tmp_path / "cache"), retries=0))
    inst = TaskInstance("original", "original", TASK, {"product": "trail shoes"})
    records = explore(
        [inst],
        runs,
        f"{site.demo_url}/index.html?cookies=never&delay=0",
        tmp_path / "runs",
        client,
        allowed=("127.0.0.1",),
        concurrency=concurrency,
        browser=BrowserConfig(),
    )
    assert [(r.run_id, r.done, r.error) for r in records] == [(f"original-{n}", True, "") for n in range(1, runs + 1)]
    assert fake_llm.calls("agent_action") == runs
    assert fake_llm.most_in_flight == together


# The failures below run the command in this process (an exception would fail the test: no
# traceback reaches the user); the end-to-end test runs it as a program.


@pytest.mark.slow
def test_synthesis_stops_clearly_when_no_run_succeeds(
    tmp_path: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    model = ScriptedModel()
    model.install(fake_llm)
    fake_llm.add_rule("run_judgement", None, {"success": False, "rationale": "nothing found"})
    # One run per variation is enough to fail. Every run is judged a failure whatever it did, so its
    # actions need not wait long for the element the cookie banner covers.
    code = _synthesize_here(tmp_path, fake_llm, monkeypatch, "--runs", "1", "--action-timeout", "0.3")
    err = capsys.readouterr().err
    assert code == 1, err
    assert "synthesis stopped: none of the 2 runs succeeded" in err
    assert not (tmp_path / "shoes.reuseit.yaml").exists()


def test_malformed_model_answer_stops_synthesis_with_the_reason(
    tmp_path: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_llm.add_rule("task_variations", None, FakeLLM.raw('{"template": "x"}'))
    code = _synthesize_here(tmp_path, fake_llm, monkeypatch, "--llm-retries", "1")
    err = capsys.readouterr().err
    assert code == 1, err
    assert "gave no usable task_variations answer after 2 tries" in err


@pytest.mark.parametrize(("flag", "value"), [("--action-timeout", "0"), ("--runs", "0"), ("--max-actions", "-1")])
def test_a_number_that_would_mean_nothing_or_for_ever_is_a_usage_error(
    tmp_path: Path, flag: str, value: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.chdir(tmp_path)
    code = cli_main(["synthesize", TASK, "--start-url", "http://127.0.0.1:9/", flag, value])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"{flag}: expected a number above 0, got {float(value):g}" in err
    assert not list(tmp_path.iterdir())  # nothing started, nothing written


def test_no_endpoint_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in [k for k in os.environ if k.startswith("OPENAI_")]:
        monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    code = cli_main(["synthesize", TASK, "--start-url", "http://127.0.0.1:9/"])
    err = capsys.readouterr().err
    assert code == 2 and "synthesis needs a model" in err, err
    assert not list(tmp_path.iterdir())  # nothing started, nothing written


def test_compile_templating_and_evidence_parsing() -> None:
    assert parse_evidence(["original-1: 2, 3", "junk", "attribute-2:4"]) == [
        parse_evidence(["original-1:2,3"])[0],
        parse_evidence(["attribute-2:4"])[0],
    ]
    assert templated('role=link[name="Trail shoes X"]', {"product": "Trail shoes X"}) == 'role=link[name="{product}"]'
    assert templated("a {b}", {}) == "a {{b}}"  # literal braces stay literal in the workflow file
    act = RecordedAction(1, "click", "e5", "", "aria-ref=e5", True, "", "", "", "", "")
    assert op_for(act, {}) is None  # a per-snapshot id cannot be replayed
    fill = RecordedAction(
        2, "fill", "e3", "rain jacket", 'role=searchbox[name="Search products"]', True, "", "", "", "", ""
    )
    assert op_for(fill, {"product": "rain jacket"}) == {
        "fill": {"selector": 'role=searchbox[name="Search products"]', "value": "{product}"}
    }


def _recorded(n: int, action: str, value: str = "", locator: str = "", opened: bool = False) -> RecordedAction:
    return RecordedAction(n, action, "e1", value, locator, True, "", "", "http://x", "t", "", opened)


def test_synthesis_compiles_page_dialog_and_file_actions_to_ops() -> None:
    actions = [
        _recorded(1, "click", locator='role=link[name="Add another publisher"]', opened=True),
        _recorded(2, "fill", "Acme", 'role=textbox[name="Name"]'),
        _recorded(3, "dialog", "accept:Ada"),
        _recorded(4, "click", locator='role=button[name="Save"]'),
        _recorded(5, "switch_page", "main"),
        _recorded(6, "upload", "files/invoice.txt", 'role=button[name="Invoice"]'),
        _recorded(7, "back"),
    ]
    runs = {"r-1": RunRecord("r-1", "r", "original", "t", {"publisher": "Acme"}, "http://x", actions, success=True)}
    ops, sources = compile_step(parse_evidence(["r-1: 1,2,3,4,5,6,7"]), runs)
    assert sources == ["r-1"]
    assert ops == [
        {"click": 'role=link[name="Add another publisher"]', "new_page": True},
        {"fill": {"selector": 'role=textbox[name="Name"]', "value": "{publisher}"}},
        {"click": 'role=button[name="Save"]', "dialog": {"accept": True, "text": "Ada"}},
        {"switch_page": "main"},
        {"upload": {"selector": 'role=button[name="Invoice"]', "files": "files/invoice.txt"}},
        "back",
    ]
    assert all(Op.model_validate(op) for op in ops)  # every compiled op is valid in a workflow
    assert op_for(_recorded(8, "switch_page", "2"), {}) == {"switch_page": 2}


@pytest.mark.parametrize("url", ["file:///etc/passwd", "127.0.0.1:9/no-scheme"])
def test_a_start_url_that_is_not_a_web_address_is_a_usage_error(
    tmp_path: Path, url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The agent's screenshots and page text of a local file would go to the model.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.chdir(tmp_path)
    code = cli_main(["synthesize", TASK, "--start-url", url])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"--start-url {url}: not a web address; write it with http:// or https://" in err
    assert not list(tmp_path.iterdir())
