"""reuseit mutate, as a user runs it: the command, its pytest sessions in subprocesses, real
Chromium, a real page.

One mutation run over four workflows on tests/pages/mutation/shop.html answers most questions
(the module fixture: the command in a subprocess of its own, its sessions under ``-n 2``); each
test reads what that run reported. The page loads a catalogue by fetch, adds an item to a basket
on a click and counts the basket. The other runs start the command in the test's process
(``mutate``), each on the fewest workflows and operators its question needs; the questions about
a mutant's waits share one run (``waits_run``).
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.model_answers import shows
from tests.support.mutate_command import mutate, report_of
from tests.support.mutation_workflows import ADD_STEP, CATALOGUE_STEP, FAST_SETTINGS, SHOP_START, WORKFLOWS
from tests.support.shared_run import run_once

pytestmark = pytest.mark.browser

# request_never: the help page's request that never answers (basic's click on the Help link) asks
# what the other operators do not, how long a mutant's page waits for it (5 s); first, so that the
# sessions' workers start its runs first and wait it out beside the others, where a command of its
# own cost ten seconds.
OPERATORS = "request_never,element_removed,click_ignored,number_off_by_one,request_500,banner"


HEALING_BEFORE = '[{"origin": "history", "file": "x.reuseit.yaml", "kind": "locator", "step": 1}]'


def _proc_json(proc: subprocess.CompletedProcess[str]) -> list[Any]:
    return [proc.args, proc.returncode, proc.stdout, proc.stderr]


@pytest.fixture(scope="module")
def mutation_run(
    tmp_path_factory: pytest.TempPathFactory, pages_url: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    def make(folder: Path) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in WORKFLOWS.items():
            (folder / f"{name}.reuseit.yaml").write_text(text, encoding="utf-8")
        # A Python test beside them: no workflow, so no clean run and no mutants (and its failure is
        # no "not clean" run).
        (folder / "test_plain.py").write_text("def test_python():\n    assert False\n", encoding="utf-8")
        # The user's last session's healing file: a mutation run's sessions must leave it as it is.
        (folder / "reuseit-output").mkdir(exist_ok=True)
        (folder / "reuseit-output" / "healing.json").write_text(HEALING_BEFORE, encoding="utf-8")
        proc = mutate(
            folder,
            ".",
            "--operators",
            OPERATORS,
            "--break-at",
            "95",
            "--alluredir",
            "allure-mutants",
            pytest_args=("--base-url", pages_url, "--reuseit-llm", "off", "-n", "2"),
            own_process=True,
        )
        assert (folder / "reuseit-output" / "mutation.json").exists(), proc.stdout + proc.stderr
        data = report_of(folder)
        data["allure"] = [json.loads(p.read_text()) for p in (folder / "allure-mutants").glob("*-result.json")]
        data["run_folders"] = sorted(p.name for p in (folder / "reuseit-output").iterdir() if p.is_dir())
        data["healing_after"] = (folder / "reuseit-output" / "healing.json").read_text(encoding="utf-8")
        return proc, data

    # The tests only read the run: one run for both xdist workers.
    return run_once(
        tmp_path_factory,
        "mutation-run",
        make,
        lambda made: [_proc_json(made[0]), made[1]],
        lambda data: (subprocess.CompletedProcess(*data[0]), data[1]),
    )


def _mutants(report: dict[str, Any], file: str, operator: str | None = None) -> list[dict[str, Any]]:
    return [
        m
        for m in report["reuseit"]["mutants"]
        if m["target"]["file"].endswith(file) and (operator is None or m["operator"] == operator)
    ]


@pytest.mark.slow
def test_summary_line_progress_and_exit_status(
    mutation_run: tuple[subprocess.CompletedProcess[str], dict[str, Any]],
) -> None:
    proc, report = mutation_run
    last = proc.stdout.strip().splitlines()[-1]
    assert re.fullmatch(
        r"mutation score \d+\.\d% \(\d+ killed, \d+ survived, \d+ broken, \d+ timeout\); "
        r"false alarms \d+ of \d+ benign; \d+ mutants in \d+m\d\ds",
        last,
    ), last
    assert last == report["reuseit"]["summary_line"]
    assert re.search(r"mutants: \d+/\d+ done, \d+m\d\ds", proc.stdout), "no progress line"
    # The basic workflow's survivor keeps the score under 95: --break-at fails the command.
    assert report["reuseit"]["summary"]["survived"] >= 1
    assert proc.returncode == 1, proc.stdout + proc.stderr
    # Only verdicts are read of the mutants' runs: none keeps a run folder (trace, pictures),
    # while the clean run that failed keeps its own, as any failed run does.
    folders = report["run_folders"]
    assert any(name.startswith("failing") for name in folders), folders
    assert not any(re.search(r"-m\d+$", name) for name in folders), folders  # a mutant's: <node id>@m12
    assert report["healing_after"] == HEALING_BEFORE  # the user's healing file, untouched


@pytest.mark.slow
def test_checked_steps_kill_their_mutants_at_the_step(
    mutation_run: tuple[subprocess.CompletedProcess[str], dict[str, Any]],
) -> None:
    _, report = mutation_run
    strong = _mutants(report, "strong.reuseit.yaml")
    by_op = {m["operator"]: [x for x in strong if x["operator"] == m["operator"]] for m in strong}
    assert set(by_op) >= {"element_removed", "click_ignored", "number_off_by_one", "request_500", "banner"}
    breaking = [m for m in strong if m["kind"] == "breaking"]
    assert breaking and all(m["outcome"] == "killed" for m in breaking), [
        (m["id"], m["operator"], m["outcome"], m["run"]) for m in breaking
    ]
    # Each failed where its target is used: the catalogue's at step 1, the basket's at step 2.
    assert all(m["localised"] for m in breaking), [(m["operator"], m["target"], m["run"]) for m in breaking]
    click = by_op["click_ignored"][0]
    assert click["target"]["step"] == 2 and click["run"]["failed_step"] == 2
    assert click["run"]["status"] == "failed"  # an assertion about the page, not a broken run
    catalogue = next(m for m in by_op["number_off_by_one"] if "#catalogue" in m["target"]["locator"])
    assert "4 products" in catalogue["run"]["message"], catalogue["run"]
    request = by_op["request_500"][0]
    assert request["target"]["locator"] == "GET /mutation/items.json" and request["run"]["failed_step"] == 1


@pytest.mark.slow
def test_an_unchecked_click_survives_with_a_suggested_check(
    mutation_run: tuple[subprocess.CompletedProcess[str], dict[str, Any]],
) -> None:
    proc, report = mutation_run
    (help_click,) = [
        m for m in _mutants(report, "basic.reuseit.yaml", "click_ignored") if "#help" in m["target"]["locator"]
    ]
    assert help_click["outcome"] == "survived" and help_click["target"]["step"] == 2
    # Derived from the clean run: the click led to help.html.
    assert 'expect: {url: {contains: "/mutation/help.html"}}' in help_click["suggestion"], help_click["suggestion"]
    assert "SURVIVED" in proc.stdout and 'expect: {url: {contains: "/mutation/help.html"}}' in proc.stdout


@pytest.mark.slow
def test_a_survivor_is_tried_against_the_next_workflow_that_uses_it(
    mutation_run: tuple[subprocess.CompletedProcess[str], dict[str, Any]],
) -> None:
    _, report = mutation_run
    # The Add button: "basic" uses it first and checks nothing; "strong" checks the basket.
    (add,) = [
        m
        for m in report["reuseit"]["mutants"]
        if m["operator"] == "click_ignored" and m["target"]["locator"] == "css='#add'"
    ]
    assert [(r["nodeid"], r["outcome"]) for r in add["runs"]] == [
        ("basic.reuseit.yaml::basic[default]@" + add["id"], "survived"),
        ("strong.reuseit.yaml::strong[default]@" + add["id"], "killed"),
    ]
    assert add["outcome"] == "killed" and add["target"]["file"] == "strong.reuseit.yaml" and add["localised"]


@pytest.mark.slow
def test_a_fallback_that_walks_around_a_regression_is_listed(
    mutation_run: tuple[subprocess.CompletedProcess[str], dict[str, Any]],
) -> None:
    proc, report = mutation_run
    removed = [
        m
        for m in _mutants(report, "healing.reuseit.yaml", "element_removed")
        if m["target"]["locator"] == "css='#add2'"
    ]
    assert removed, _mutants(report, "healing.reuseit.yaml", "element_removed")
    assert removed[0]["outcome"] == "healed around" and removed[0]["run"]["status"] == "recovered"
    assert "HEALED AROUND A REGRESSION" in proc.stdout
    assert report["reuseit"]["summary"]["healed_around"] >= 1


@pytest.mark.slow
def test_benign_banner_passes_and_a_failing_workflow_gets_no_mutants(
    mutation_run: tuple[subprocess.CompletedProcess[str], dict[str, Any]],
) -> None:
    proc, report = mutation_run
    banners = [m for m in report["reuseit"]["mutants"] if m["operator"] == "banner"]
    assert banners and all(m["outcome"] == "clean" for m in banners), banners
    assert report["reuseit"]["summary"]["false_alarms"] == 0
    assert [r["nodeid"] for r in report["reuseit"]["not_clean"]] == ["failing.reuseit.yaml::failing[default]"]
    assert "clean runs: 4 workflow run(s)" in proc.stdout  # the Python test is not one
    assert not _mutants(report, "failing.reuseit.yaml")
    assert "NOT CLEAN failing.reuseit.yaml::failing[default]" in proc.stdout


@pytest.mark.slow
def test_report_is_in_strykers_schema(mutation_run: tuple[subprocess.CompletedProcess[str], dict[str, Any]]) -> None:
    _, report = mutation_run
    assert report["schemaVersion"] == "2" and report["thresholds"]["break"] == 95
    strong = next(v for k, v in report["files"].items() if k.endswith("strong.reuseit.yaml"))
    assert strong["source"].startswith("name: Strong")
    lines = strong["source"].splitlines()
    for m in strong["mutants"]:
        assert m["status"] in ("Killed", "Survived", "Timeout", "RuntimeError", "Ignored")
        line = m["location"]["start"]["line"]
        assert 1 <= line <= len(lines)
    # A click's mutant sits at its op's line.
    click = next(m for m in strong["mutants"] if m["mutatorName"] == "click_ignored")
    assert "click:" in lines[click["location"]["start"]["line"] - 1]
    # Benign mutants are not Stryker mutants: they are in the report's own part only.
    assert all(m["mutatorName"] != "banner" for f in report["files"].values() for m in f["mutants"])


@pytest.mark.slow
def test_each_mutant_is_an_allure_result_a_reader_finds(
    mutation_run: tuple[subprocess.CompletedProcess[str], dict[str, Any]],
) -> None:
    proc, report = mutation_run
    results = report["allure"]
    assert len(results) == len(report["reuseit"]["mutants"])
    assert all({"name": "parentSuite", "value": "mutation testing"} in r["labels"] for r in results)
    by_outcome = {m["id"]: m["outcome"] for m in report["reuseit"]["mutants"]}
    for r in results:
        (mutant,) = [p["value"] for p in r["parameters"] if p["name"] == "mutant"]
        expected = {"killed": "passed", "clean": "passed", "survived": "failed", "healed around": "failed"}
        assert r["status"] == expected.get(by_outcome[mutant], r["status"])
    survivor = next(
        r for r in results if r["statusDetails"]["message"].startswith("survived:") and "#help" in r["name"]
    )
    assert 'expect: {url: {contains: "/mutation/help.html"}}' in survivor["statusDetails"]["message"]
    assert "allure: " in proc.stdout


@pytest.mark.slow
def test_usage_errors_are_one_line_with_status_2(tmp_path: Path, pages_url: str) -> None:
    (tmp_path / "strong.reuseit.yaml").write_text(WORKFLOWS["strong"], encoding="utf-8")
    proc = mutate(tmp_path, ".", "--operators", "no_such_operator", pytest_args=("--base-url", pages_url))
    assert proc.returncode == 2 and "unknown operator(s): no_such_operator" in proc.stderr, proc.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = mutate(empty, ".")
    assert proc.returncode == 2 and "no workflows selected" in proc.stderr, proc.stderr
    # A site that is down: nothing passes clean, so there is nothing to mutate.
    proc = mutate(tmp_path, ".", pytest_args=("--base-url", "http://127.0.0.1:9", "--reuseit-llm", "off"))
    assert proc.returncode == 2 and "no workflow passed clean (broken): is the site up?" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.slow
def test_a_check_in_words_kills_a_mutant_through_the_model(tmp_path: Path, pages_url: str, fake_llm_env: Any) -> None:
    """The plumbing with the model double: a words-only check is judged on the mutant's page, and a
    click that does nothing leaves a page on which the model finds the condition not met."""
    fake_llm_env.add_rule("condition_check", "The basket holds one apple", shows("Basket: 1"))
    post = "    post:\n      - The basket holds one apple\n"
    (tmp_path / "words.reuseit.yaml").write_text(
        "name: Words\ntask: Add an apple\n" + SHOP_START + FAST_SETTINGS + "steps:\n" + ADD_STEP + post,
        encoding="utf-8",
    )
    proc = mutate(
        tmp_path,
        ".",
        "--operators",
        "click_ignored",
        pytest_args=("--base-url", pages_url, "--reuseit-llm", "live", "--reuseit-llm-retries", "0"),
    )
    report = report_of(tmp_path)
    (mutant,) = report["reuseit"]["mutants"]
    assert mutant["outcome"] == "killed", (mutant, proc.stdout[-2000:])
    assert mutant["run"]["failed_phase"] == "post" and mutant["localised"]
    assert "The basket holds one apple" in mutant["run"]["message"]
    # The clean run was judged met on the real page, the mutant's not met: two judgements at least.
    assert fake_llm_env.calls("condition_check") >= 2


PATIENT = (
    "name: Patient\ntask: Type an apple\n"
    + SHOP_START
    + """settings: {retries: 0, check_timeout: 4, action_timeout: 4}
steps:
  - action: Type an apple
    do:
      - fill: {css: "#item", value: apple}
"""
)


_SLOW_STEP = PATIENT.replace(
    '    do:\n      - fill: {css: "#item", value: apple}\n',
    '    do:\n      - wait: 800\n      - click: {css: "#help"}\n',
)  # another element than patient's: the same element of the same page is one mutant


# One capped mutation run answers the questions about waits (the module fixture ``waits_run``):
# ``element_removed`` on ``patient`` (fills the field at once) and ``slow`` (waits 0.8 s in the same
# step, then clicks a link), and a suite's own operators, each on one workflow of the folder
# (``_only``):
# - ``late_page`` (benign, on ``patient``): the page shows 2 s late, longer than the capped wait
#   (under 2 s: the clean run filled at once) and shorter than the workflow's own (4 s);
# - ``late_then_removed`` (breaking, on ``pear``): the page also shows 2 s late, and the second
#   step's field is gone: under the capped waits the run fails at the first step, before the fault
#   is placed; with the workflow's own it fails at the second (whose own wait is 1 s: how long it
#   waits for the missing field asks nothing);
# - ``slower`` (benign, on ``catalogue``) says how much it slows each answer (a fixed 1 s): the caps
#   allow that much per fetch the step made. Without the allowance the catalogue's check would wait
#   0.5 s (its clean step needed almost nothing) for an answer that comes after 1 s.
# (``pear`` fills patient's field too: one element of one page is one mutant, tried against the
# first run that reaches it, patient's; ``catalogue``'s checked text is removed too, killed.)
WAITS_CONFTEST = """
from pathlib import Path

from pytest_reuseit.mutation import operators

LATE = ("document.addEventListener('DOMContentLoaded', () => {"
        "  document.body.style.visibility = 'hidden';"
        "  setTimeout(() => document.body.style.visibility = '', 2000);"
        "});")
DELAY = ("(() => { const f = window.fetch;"
         " window.fetch = (...a) => new Promise(r => setTimeout(r, 1000)).then(() => f(...a)); })()")


def _only(name, targets):
    return lambda run: targets(run) if Path(run.file).name == name else []


def _late(page, target, applied):
    page.add_init_script(LATE)
    applied()


def _late_unplaced(page, target, applied):
    page.add_init_script(LATE)  # the fault is the removed field, placed when the fill comes


def _slower(page, target, applied):
    page.add_init_script(DELAY)
    applied()


def _page(run):
    return [operators.Target("page", None, 1, "the whole page")]


removed = operators.get("element_removed")
operators.register(operators.Operator(
    "late_page", "benign", "the page shows 2 s late", targets=_only("patient.reuseit.yaml", _page), start=_late,
))
operators.register(operators.Operator(
    "late_then_removed", "breaking", "the page shows 2 s late, and the second step's field is gone",
    targets=_only("pear.reuseit.yaml", lambda run: [t for t in removed.targets(run) if t.step == 1]),
    start=_late_unplaced, on_op=removed.on_op,
))
operators.register(operators.Operator(
    "slower", "benign", "every fetch answers 1 s later",
    targets=_only("catalogue.reuseit.yaml", _page), start=_slower, slows_s=1.0,
))
"""


@pytest.fixture(scope="module")
def waits_run(
    tmp_path_factory: pytest.TempPathFactory, pages_url: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, dict[str, Any]]]:
    """The mutation run above: each own operator's mutant by its name, each removed element's by
    the file of the run it was tried against."""

    def make(folder: Path) -> tuple[subprocess.CompletedProcess[str], dict[str, dict[str, Any]]]:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "patient.reuseit.yaml").write_text(PATIENT, encoding="utf-8")
        assert "wait: 800" in _SLOW_STEP
        (folder / "slow.reuseit.yaml").write_text(_SLOW_STEP, encoding="utf-8")
        pear = '  - action: Type a pear\n    action_timeout: 1\n    do:\n      - fill: {css: "#item", value: pear}\n'
        (folder / "pear.reuseit.yaml").write_text(PATIENT + pear, encoding="utf-8")
        (folder / "catalogue.reuseit.yaml").write_text(
            "name: Catalogue\ntask: Read the catalogue\n"
            + SHOP_START
            + "settings: {retries: 0, check_timeout: 4, action_timeout: 4}\nsteps:\n"
            + CATALOGUE_STEP,
            encoding="utf-8",
        )
        (folder / "conftest.py").write_text(WAITS_CONFTEST, encoding="utf-8")
        proc = mutate(
            folder,
            ".",
            "--operators",
            "element_removed,late_page,late_then_removed,slower",
            pytest_args=("--base-url", pages_url, "--reuseit-llm", "off"),
        )
        mutants = report_of(folder)["reuseit"]["mutants"]
        by = {m["operator"]: m for m in mutants if m["operator"] != "element_removed"}
        by |= {m["runs"][0]["nodeid"].split("::")[0]: m for m in mutants if m["operator"] == "element_removed"}
        expected = {"late_page", "late_then_removed", "slower", "patient.reuseit.yaml", "slow.reuseit.yaml"}
        assert set(by) == expected | {"catalogue.reuseit.yaml"} and len(mutants) == 6, (
            mutants,
            proc.stdout[-2000:],
            proc.stderr[-2000:],
        )
        return proc, by

    # The tests only read the run: one run for both xdist workers.
    return run_once(
        tmp_path_factory,
        "waits-run",
        make,
        lambda made: [_proc_json(made[0]), made[1]],
        lambda data: (subprocess.CompletedProcess(*data[0]), data[1]),
    )


@pytest.mark.slow
def test_a_mutant_waits_as_its_clean_run_needed_unless_full_waits(
    waits_run: tuple[subprocess.CompletedProcess[str], dict[str, dict[str, Any]]], tmp_path: Path, pages_url: str
) -> None:
    """The clean run found the field at once: the mutant that removed it fails after its step's cap
    (at least 0.5 s, mutation/waits.py), not the workflow's 4 s; --full-waits keeps the workflow's
    (here the same workflow waiting 2 s: the cap, 0.5 s, is not that either)."""
    proc, mutants = waits_run
    mutant = mutants["patient.reuseit.yaml"]
    assert mutant["outcome"] == "killed" and mutant["localised"], (mutant, proc.stdout[-2000:])
    capped = re.search(r"Locator.fill: Timeout ([0-9.]+)ms exceeded", mutant["run"]["message"])
    assert capped and 500 <= float(capped.group(1)) < 4000, mutant["run"]
    patient = PATIENT.replace("check_timeout: 4, action_timeout: 4", "check_timeout: 2, action_timeout: 2")
    assert patient != PATIENT
    (tmp_path / "patient.reuseit.yaml").write_text(patient, encoding="utf-8")
    proc = mutate(
        tmp_path,
        ".",
        "--full-waits",
        "--operators",
        "element_removed",
        pytest_args=("--base-url", pages_url, "--reuseit-llm", "off"),
    )
    (full,) = report_of(tmp_path)["reuseit"]["mutants"]
    assert full["outcome"] == "killed", (full, proc.stdout[-2000:], proc.stderr[-2000:])
    assert "Locator.fill: Timeout 2000ms exceeded" in full["run"]["message"], full["run"]


@pytest.mark.slow
def test_each_op_waits_as_its_own_clean_run_needed_not_its_steps_slowest(
    waits_run: tuple[subprocess.CompletedProcess[str], dict[str, dict[str, Any]]],
) -> None:
    """The step waits 0.8 s, then clicks a link that was there at once: the mutant that removed the
    link fails after the click's own cap (0.5 s, more when the clean click took longer on a loaded
    machine), not the step's (1.6 s at least: the wait doubled)."""
    proc, mutants = waits_run
    mutant = mutants["slow.reuseit.yaml"]
    assert mutant["outcome"] == "killed" and mutant["localised"], (mutant, proc.stdout[-2000:])
    capped = re.search(r"Locator.click: Timeout ([0-9.]+)ms exceeded", mutant["run"]["message"])
    assert capped and 500 <= float(capped.group(1)) < 1600, mutant["run"]


@pytest.mark.slow
def test_a_benign_mutant_failing_under_the_cap_is_tried_again_with_full_waits(
    waits_run: tuple[subprocess.CompletedProcess[str], dict[str, dict[str, Any]]],
) -> None:
    """A page only slower than the cap allows is no false alarm: its run fails under the capped wait
    and passes with the workflow's own, and the report lists both tries."""
    proc, mutants = waits_run
    mutant = mutants["late_page"]
    assert mutant["outcome"] == "clean", (mutant, proc.stdout[-2000:])
    capped, full = mutant["runs"]
    assert (capped["outcome"], capped["full_waits"]) == ("false alarm", False), capped
    assert re.search(r"Timeout [0-9.]+ms exceeded", capped["message"]), capped
    assert (full["outcome"], full["full_waits"], full["status"]) == ("clean", True, "passed"), full
    # The two benign mutants (late_page, slower), neither a false alarm.
    assert "false alarms 0 of 2 benign" in proc.stdout, proc.stdout


@pytest.mark.slow
def test_a_run_that_fails_before_its_fault_is_placed_is_tried_again_with_full_waits(
    waits_run: tuple[subprocess.CompletedProcess[str], dict[str, dict[str, Any]]],
) -> None:
    """A busier machine than in the clean run can make a capped wait run out before the run meets
    its fault: 'not applied' under the caps, the mutant is tried with the workflow's own waits."""
    proc, mutants = waits_run
    mutant = mutants["late_then_removed"]
    assert mutant["outcome"] == "killed" and mutant["localised"], (mutant, proc.stdout[-2000:])
    capped, full = mutant["runs"]
    assert (capped["outcome"], capped["full_waits"], capped["failed_step"]) == ("not applied", False, 1), capped
    assert (full["outcome"], full["full_waits"], full["failed_step"]) == ("killed", True, 2), full


@pytest.mark.slow
def test_an_operator_that_slows_the_answers_gets_its_allowance_per_fetch(
    waits_run: tuple[subprocess.CompletedProcess[str], dict[str, dict[str, Any]]],
) -> None:
    proc, mutants = waits_run
    mutant = mutants["slower"]
    # Passed under the capped waits at once: no second try with the workflow's own waits.
    assert mutant["outcome"] == "clean", (mutant, proc.stdout[-2000:])
    assert [(r["outcome"], r["full_waits"]) for r in mutant["runs"]] == [("clean", False)], mutant


def test_each_op_and_check_needs_its_own_longest_wait_that_went_through() -> None:
    """Each op and check is measured on its own: the longest of its tries that went through (an
    action redone by a fallback is its ops again, from the first); a wait that ran out (a banner's
    pre check the fallback then fixed, an op that failed) is no measure. The step's need is its
    slowest single wait, fallback ops included."""
    from pytest_reuseit.engine.result import ActionRecord, Attempt, StepResult, Verdict
    from pytest_reuseit.mutation import waits

    def verdict(ok: bool | None, took: float) -> Verdict:
        return Verdict("c", "post", ok, "dom", started=100.0, ended=100.0 + took)

    def op(by: str, ok: bool, took: float) -> ActionRecord:
        return ActionRecord("op", by, ok, started=10.0, ended=10.0 + took)  # type: ignore[arg-type]

    step = StepResult(1, "a", 1)
    step.pre = [verdict(False, 5.0)]  # ran out
    step.actions = [op("do", True, 0.2), op("do", False, 3.0)]  # the second op failed first
    step.post = [verdict(True, 0.3), verdict(None, 0.1)]
    step.attempts = [
        Attempt(1, "pre", "f", [op("fallback", True, 0.4)], verdicts=[verdict(True, 0.05)]),
        Attempt(2, "action", "g", [op("fallback", False, 1.0), op("do", True, 0.1), op("do", True, 0.6)]),
    ]
    assert waits.needs(step) == {"step": 0.6, "ops": [0.2, 0.6], "pre": [0.05], "post": [0.3, 0.1]}
    step.attempts.append(Attempt(3, "post", "h", [], verdicts=[verdict(True, 0.7)]))
    assert waits.needs(step)["post"] == [0.7, 0.1] and waits.needs(step)["step"] == 0.7
    assert waits.needs(StepResult(2, "b", 2)) == {"step": 0.0, "ops": [], "pre": [], "post": []}
    # Only what went through counts: an op that never did has no need of its own.
    step = StepResult(3, "c", 3)
    step.actions = [op("do", False, 2.0)]
    step.attempts = [Attempt(1, "action", "agent", [op("agent", True, 1.5)])]
    assert waits.needs(step) == {"step": 1.5, "ops": [], "pre": [], "post": []}


def test_each_op_and_check_waits_what_its_clean_run_needed_and_fallbacks_the_steps() -> None:
    """2 x the need + 0.3 s (+ 0.8 s per fetch of the step under slow_responses), at least 0.5 s,
    never more than the file says. A do op and a pre/post check get their own cap as ``timeout``;
    the step's timeouts (its fallbacks, an op or check never measured) its slowest's; a step the
    clean run never reached, and the outcome checks, the largest."""
    from pytest_reuseit.mutation import waits
    from pytest_reuseit.workflow.loader import parse

    text = (
        "name: Caps\ntask: t\nstart_url: http://127.0.0.1/\nsettings: {check_timeout: 5, action_timeout: 10}\n"
        "steps:\n"
        "  - {action: a, do: [{click: '#a'}, {click: '#a2', timeout: 0.2}], post: ['#x'],"
        " fallback: [{do: [{click: '#f'}]}]}\n"
        "  - {action: b, do: [{click: '#b'}], post: [{expect: {visible: '#y'}}], check_timeout: 1}\n"
        "  - {action: c, do: [{click: '#c'}]}\n"
        "  - {action: d, do: [{click: '#d'}]}\n"
    )
    needs = [
        {"step": 1.0, "ops": [0.05, 0.05], "pre": [], "post": [1.0]},
        {"step": 2.0, "ops": [2.0], "pre": [], "post": [0.1]},
        {"step": 0.5, "ops": [None], "pre": [], "post": []},
    ]
    # Only a fault that slows the answers (slow_responses says 0.8 s each) gets the allowance per fetch.
    caps = waits.caps_for(needs, [0, 0, 2])
    assert caps == {
        "steps": [
            {"step": 2.3, "ops": [0.5, 0.5], "pre": [], "post": [2.3]},
            {"step": 4.3, "ops": [4.3], "pre": [], "post": [0.5]},
            {"step": 1.3, "ops": [None], "pre": [], "post": []},
        ],
        "run": 4.3,
    }
    assert waits.caps_for(needs, [0, 0, 2], slows_s=0.8)["steps"][2] == {
        "step": 2.9,
        "ops": [None],
        "pre": [],
        "post": [],
    }
    wf = waits.capped(parse(text, "caps.reuseit.yaml"), caps).workflow
    assert [(s.action_timeout, s.check_timeout) for s in wf.steps] == [(2.3, 2.3), (4.3, 1), (1.3, 1.3), (4.3, 4.3)]
    first, second, third, _ = wf.steps
    assert [o.timeout for o in first.do or ()] == [0.5, 0.2]  # never longer than the file says
    assert [c.timeout for c in first.post] == [2.3] and first.fallback[0].do[0].timeout is None  # type: ignore[index]
    assert [o.timeout for o in second.do or ()] == [4.3] and [c.timeout for c in second.post] == [0.5]
    assert [o.timeout for o in third.do or ()] == [None]
    assert (wf.settings.action_timeout, wf.settings.check_timeout) == (4.3, 4.3)


def test_progress_in_a_log_is_a_line_per_tenth_of_the_way_and_the_last() -> None:
    from pytest_reuseit.mutation.session import LogProgress

    lines: list[str] = []
    progress = LogProgress(lines.append, every_s=30)
    for done in range(1, 201):  # 200 runs ending 0.1 s apart: one line for each of them before
        progress("mutants", done, 200, done / 10, False)
    progress("mutants", 200, 200, 20.0, True)  # the end, nothing new: no second line
    assert lines[0] == "mutants: 1/200 done, 0m00s"
    assert [line.split()[1] for line in lines[1:]] == [f"{n}/200" for n in range(20, 201, 20)]
    # Slow runs: a line at least every 30 s while they keep ending, even within one tenth.
    lines.clear()
    slow = LogProgress(lines.append, every_s=30)
    for done in range(1, 6):
        slow("survivors", done, 100, done * 20.0, False)
    slow("survivors", 6, 100, 125.0, True)  # the session ended before the rest ran: its last line
    assert lines == [
        "survivors: 1/100 done, 0m20s",
        "survivors: 3/100 done, 1m00s",
        "survivors: 5/100 done, 1m40s",
        "survivors: 6/100 done, 2m05s",
    ]


@pytest.mark.slow
def test_a_request_that_never_answers_waits_a_capped_navigation_budget(
    mutation_run: tuple[subprocess.CompletedProcess[str], dict[str, Any]],
) -> None:
    """The help page's request never answers: the click that opens it waits the mutant's navigation
    budget (its clean need's cap, 5 s at least), not the workflow's 30 s; killed at that step."""
    proc, report = mutation_run
    (help_page,) = [
        m
        for m in report["reuseit"]["mutants"]
        if m["operator"] == "request_never" and "help.html" in m["target"]["locator"]
    ]
    assert help_page["outcome"] == "killed" and help_page["localised"], (help_page, proc.stdout[-2000:])
    assert help_page["target"]["file"] == "basic.reuseit.yaml" and help_page["run"]["failed_step"] == 2, help_page
    budget = re.search(r"did not answer within ([0-9.]+)s \(navigation_timeout\)", help_page["run"]["message"])
    # 5 s, the least budget a hang gets; more only if the clean click took over 2.3 s (a loaded machine);
    # a second try with the workflow's own waits (a run that ran out a cap before its fault) keeps it.
    assert budget and 5 <= float(budget.group(1)) < 30, help_page["run"]


def test_only_a_fault_that_hangs_a_request_caps_the_navigation_budget() -> None:
    from pytest_reuseit.mutation import waits
    from pytest_reuseit.workflow.loader import parse

    loaded = parse(WORKFLOWS["strong"], "strong.reuseit.yaml")  # navigation_timeout: the default 30 s
    caps = {"steps": [{"step": 0.5}, {"step": 8.0}], "run": 8.0}
    hung = waits.capped(loaded, caps, hangs=True).workflow
    assert hung.settings.navigation_timeout == 8.0  # the start page: the run's largest cap
    assert [s.navigation_timeout for s in hung.steps] == [5.0, 8.0]  # each step's cap, 5 s at least
    kept = waits.capped(loaded, caps).workflow
    assert kept.settings.navigation_timeout == 30 and [s.navigation_timeout for s in kept.steps] == [None, None]
    # A second try with the workflow's own waits: its element waits as the file says, a hang still capped.
    again = waits.capped(loaded, caps, hangs=True, element_waits=False).workflow
    assert [s.navigation_timeout for s in again.steps] == [5.0, 8.0] and again.settings.navigation_timeout == 8.0
    assert again.steps[0].action_timeout is None and again.steps[1].do == loaded.workflow.steps[1].do
    assert waits.capped(loaded, caps, hangs=True).workflow.steps[0].action_timeout == 0.5  # capped, as it was


def test_a_kill_a_busy_machine_could_have_made_is_confirmed_not_counted() -> None:
    """Under the caps an op's wait that ran out where the fault is not may be the machine's: such a
    kill is doubtful, and a surer try (full waits, another covering run) gives the verdict."""
    from pytest_reuseit.mutation import outcome
    from pytest_reuseit.mutation.operators import Target
    from pytest_reuseit.mutation.plan import Mutant

    request = Target("request", 0, 0, "GET /mutation/items.json")
    button = Target("op", 1, 12, "css='#add'", index=1, key="click")
    fill_ran_out = {"status": "failed", "failed_step": 1, "failed_phase": "action", "category": "site_changed"}
    on_request = Mutant("m1", "request_500", "breaking", "basic.reuseit.yaml", "basic", request)
    on_button = Mutant("m2", "element_removed", "breaking", "basic.reuseit.yaml", "basic", button)
    assert outcome.doubtful(on_request, fill_ran_out)  # a fault on a request, an op ran out
    assert outcome.doubtful(on_button, fill_ran_out)  # the button is step 2's: step 1's op ran out
    assert not outcome.doubtful(on_button, {**fill_ran_out, "failed_step": 2})  # at the target's step
    assert not outcome.doubtful(on_request, {**fill_ran_out, "failed_phase": "post"})  # a check read the change
    assert not outcome.doubtful(dataclasses.replace(on_request, full_waits=True), fill_ran_out)
    hang = {**fill_ran_out, "category": "page_not_ready"}
    assert outcome.doubtful(on_request, hang) and not outcome.doubtful(on_request, hang, hangs=True)

    doubted = outcome.judge(on_request, {**fill_ran_out, "applied": True}, 60.0)
    assert doubted.outcome == "killed"
    doubted.doubtful = True
    survived = outcome.judge(on_request.with_full_waits(), {"status": "passed", "applied": True}, 60.0)
    combined = outcome.combine([doubted, survived])
    assert combined.outcome == "survived" and [r.get("doubtful", False) for r in combined.tries] == [True, False]
    alone = outcome.judge(on_request, {**fill_ran_out, "applied": True}, 60.0)
    alone.doubtful = True
    assert outcome.combine([alone]).outcome == "killed"  # no surer try ran: the kill stands, marked
