"""The nightly templates keep the nightly history between nights as they keep the Allure history,
and report through `reuseit report --history ... --alert-webhook ...` instead of a message of
their own; the command lines they build are run here with the webhook set and unset.

Their optional mutation job (`reuseit mutate --incremental`, docs/mutation.md) is off unless
REUSEIT_MUTATION is "on", runs after the report job without holding it, keeps its last report in a
cache of its own, and passes only options the real `reuseit mutate` parser accepts: its script runs
here with a stand-in `reuseit` that records its arguments, which the package's parser then reads."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_reuseit.cli import build_parser
from tests.support.paths import ROOT

HISTORY = ".reuseit/history.sqlite"


def load(name: str) -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "ci" / name).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def github_steps() -> list[dict[str, Any]]:
    jobs = load("github-nightly.yml")["jobs"]
    return [step for job in jobs.values() for step in job["steps"]]


def cache_steps(steps: list[dict[str, Any]], prefix: str) -> list[dict[str, Any]]:
    """The actions/cache steps among ``steps`` whose key starts with ``prefix``."""
    return [
        s
        for s in steps
        if str(s.get("uses", "")).startswith("actions/cache") and str(s["with"]["key"]).startswith(prefix)
    ]


def test_github_caches_the_history_with_one_path_list_everywhere() -> None:
    caches = cache_steps(github_steps(), "reuseit-nightly-")
    # The shards' restore, the report job's restore and save, and the mutation job's restore (its
    # own report is under another prefix, below).
    assert len(caches) == 4
    paths = {s["with"]["path"] for s in caches}
    # actions/cache finds an entry only with the very paths it was saved with.
    assert len(paths) == 1
    assert HISTORY in paths.pop().split()
    saves = [s for s in caches if "save" in s["uses"]]
    assert len(saves) == 1  # only the report job saves the nightly cache
    assert HISTORY in saves[0]["if"]


def test_gitlab_caches_the_history_for_shards_and_report() -> None:
    data = load("gitlab-nightly.yml")
    assert HISTORY in data[".reuseit-cache"]["paths"]
    assert "notify-failure" not in data and "notify" not in data["stages"]


def _run(script: str, env: dict[str, str], shell: str) -> list[str]:
    fake = script.replace(".venv/bin/reuseit report", "printf '%s\\n'")
    fake = fake.replace('>> "$GITHUB_STEP_SUMMARY"', ">/dev/null")
    proc = subprocess.run(
        [shell, "-c", fake], env={"PATH": os.environ["PATH"], **env}, capture_output=True, text=True, timeout=10
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


@pytest.mark.slow
def test_github_report_step_passes_the_webhook_only_when_set(tmp_path: Path) -> None:
    step = next(s for s in github_steps() if s.get("id") == "report")
    assert "curl" not in (ROOT / "ci" / "github-nightly.yml").read_text(encoding="utf-8")
    assert step["env"]["REUSEIT_ALERT_WEBHOOK"].startswith("${{ secrets.REUSEIT_ALERT_WEBHOOK")
    script = f"cd {tmp_path}\nset -o pipefail\n{step['run']}"
    hook = "https://hooks.example.test/services/T/B/x"
    args = _run(script, {"REUSEIT_ALERT_WEBHOOK": hook, "REUSEIT_PUSHGATEWAY": ""}, "bash")
    assert args[args.index("--history") + 1] == HISTORY
    assert args[args.index("--alert-webhook") + 1] == hook
    assert "--pushgateway" not in args
    # An unset secret arrives as an empty string: no option then, not an empty URL.
    assert "--alert-webhook" not in _run(script, {"REUSEIT_ALERT_WEBHOOK": ""}, "bash")


@pytest.mark.slow
def test_gitlab_report_passes_the_webhook_and_the_older_name_in_plain_sh() -> None:
    script = "\n".join(load("gitlab-nightly.yml")["reuseit-report"]["script"][1:])
    assert "curl" not in script
    start = script.index('REUSEIT_ALERT_WEBHOOK="')
    end = script.index("|| report=$?", start) + len("|| report=$?")
    snippet = script[start:end]
    hook = "https://hooks.example.test/old"
    args = _run(snippet, {"REUSEIT_WEBHOOK_URL": hook, "REUSEIT_PUSHGATEWAY": "http://127.0.0.1:9091"}, "sh")
    assert args[args.index("--alert-webhook") + 1] == hook
    assert args[args.index("--pushgateway") + 1] == "http://127.0.0.1:9091"
    assert args[args.index("--history") + 1] == HISTORY
    assert "--alert-webhook" not in _run(snippet, {}, "sh")


# ----------------------------------------------------------------- the optional mutation job

MUTATION = "reuseit-mutation-"  # its cache's key prefix
NIGHTLY = "reuseit-nightly-"


def github_jobs() -> dict[str, dict[str, Any]]:
    jobs = load("github-nightly.yml")["jobs"]
    assert isinstance(jobs, dict)
    return jobs


def _needs(job: dict[str, Any]) -> list[str]:
    needs = job.get("needs", [])
    return [needs] if isinstance(needs, str) else [n if isinstance(n, str) else n["job"] for n in needs]


def _step(job: dict[str, Any], name: str) -> dict[str, Any]:
    found = [s for s in job["steps"] if s.get("name") == name]
    assert len(found) == 1, f"no single step {name!r}"
    return found[0]


def _header(name: str) -> str:
    lines = (ROOT / "ci" / name).read_text(encoding="utf-8").splitlines()
    return "\n".join(line for line in lines[: next(i for i, x in enumerate(lines) if x and not x.startswith("#"))])


def test_mutation_job_is_off_unless_its_variable_says_on_and_every_guide_names_that_variable() -> None:
    gate = github_jobs()["mutation"]["if"]
    # The whole condition is one conjunction: an `||` could run the job with the variable unset.
    assert "||" not in gate
    found = re.search(r"vars\.(\w+) == '(\w+)'", gate)
    assert found and found.groups() == ("REUSEIT_MUTATION", "on")
    rules = load("gitlab-nightly.yml")["reuseit-mutation"]["rules"]
    # GitLab adds a job when any rule matches: every rule must ask for the variable.
    assert rules and all('$REUSEIT_MUTATION == "on"' in rule["if"] for rule in rules)
    readme = (ROOT / "ci" / "README.md").read_text(encoding="utf-8")
    docs = (ROOT / "docs" / "mutation.md").read_text(encoding="utf-8")
    for where, text in [
        ("github header", _header("github-nightly.yml")),
        ("gitlab header", _header("gitlab-nightly.yml")),
        ("ci/README.md", readme),
        ("docs/mutation.md", docs),
    ]:
        assert "REUSEIT_MUTATION" in text and "REUSEIT_MUTATION_BREAK_AT" in text, where
    # How to turn it on, in the words the job reads.
    assert "`REUSEIT_MUTATION` = `on`" in readme
    assert "`REUSEIT_MUTATION` to `on`" in " ".join(docs.split())


def test_github_mutation_job_runs_after_the_report_and_holds_nothing() -> None:
    jobs = github_jobs()
    job = jobs["mutation"]
    assert _needs(job) == ["report"]
    # After the report job whatever its result (tests failed is a night like any other).
    assert "!cancelled()" in job["if"]
    assert _needs(jobs["report"]) == ["shard"]
    assert not [name for name, other in jobs.items() if "mutation" in _needs(other)]
    # It neither reads the shards' results nor writes the night's verdict.
    text = yaml.safe_dump(job)
    assert "download-artifact" not in text and "ci-summary" not in text
    # Artifact names are unique within a run (upload-artifact@v4 refuses a second one).
    names = [
        s["with"]["name"]
        for j in jobs.values()
        for s in j["steps"]
        if str(s.get("uses", "")).startswith("actions/upload")
    ]
    assert len(names) == len(set(names))


def test_gitlab_mutation_job_runs_in_a_stage_after_the_report_and_holds_nothing() -> None:
    data = load("gitlab-nightly.yml")
    job, report = data["reuseit-mutation"], data["reuseit-report"]
    stages = data["stages"]
    assert stages.index(job["stage"]) > stages.index(report["stage"])
    assert job["needs"] == [{"job": "reuseit-report", "artifacts": False}]  # not the shards' artifacts
    assert all(rule.get("when") == "always" for rule in job["rules"])  # also after a failed report job
    jobs = {name: j for name, j in data.items() if isinstance(j, dict) and "script" in j}
    assert not [name for name, other in jobs.items() if "reuseit-mutation" in _needs(other)]
    assert "ci-summary" not in "\n".join(job["script"])


def test_mutation_job_installs_as_the_shards_do() -> None:
    jobs = github_jobs()
    shard, job = jobs["shard"], jobs["mutation"]
    assert _step(job, "Install")["run"] == _step(shard, "Install")["run"]
    assert job["env"]["REUSEIT_EXTRAS"] == shard["env"]["REUSEIT_EXTRAS"]
    python = [s["with"] for s in job["steps"] if str(s.get("uses", "")).startswith("actions/setup-python")]
    assert python == [s["with"] for s in shard["steps"] if str(s.get("uses", "")).startswith("actions/setup-python")]
    data = load("gitlab-nightly.yml")
    gshard, gjob = data["reuseit-shard"], data["reuseit-mutation"]
    assert gjob["script"][0] == gshard["script"][0] == "bash ci/install.sh"
    assert gjob["image"] == gshard["image"]
    assert gjob["variables"]["REUSEIT_EXTRAS"] == gshard["variables"]["REUSEIT_EXTRAS"]


def test_github_mutation_report_is_restored_and_saved_under_its_own_prefix_with_one_path_list() -> None:
    jobs = github_jobs()
    steps = jobs["mutation"]["steps"]
    mine = cache_steps(steps, MUTATION)
    restore = [s for s in mine if s["uses"].startswith("actions/cache/restore")]
    save = [s for s in mine if s["uses"].startswith("actions/cache/save")]
    assert len(restore) == len(save) == 1
    assert restore[0]["with"]["path"] == save[0]["with"]["path"]
    # An entry cannot be overwritten: a new key each run, the newest found again by its prefix.
    key = save[0]["with"]["key"]
    assert key == restore[0]["with"]["key"] and "github.run_id" in key
    prefixes = [line.strip() for line in restore[0]["with"]["restore-keys"].splitlines() if line.strip()]
    assert prefixes and all(key.startswith(p) and p.startswith(MUTATION) for p in prefixes)
    assert "!cancelled()" in save[0]["if"]  # also when the score failed the job
    assert f"hashFiles('{save[0]['with']['path']}')" in save[0]["if"]
    # The order: restored before the run, saved after it.
    run = _step(jobs["mutation"], "Run the mutants")
    assert steps.index(restore[0]) < steps.index(run) < steps.index(save[0])
    # No other job touches that prefix; this job saves nothing under the nightly one.
    others = [s for name, j in jobs.items() if name != "mutation" for s in j["steps"]]
    assert not cache_steps(others, MUTATION)
    assert all("restore" in s["uses"] for s in cache_steps(steps, NIGHTLY))


def test_gitlab_mutation_report_has_a_cache_of_its_own_and_only_reads_the_nightly_one() -> None:
    data = load("gitlab-nightly.yml")
    caches = data["reuseit-mutation"]["cache"]
    mine = [c for c in caches if c["key"].startswith(MUTATION)]
    assert len(mine) == 1 and mine[0]["policy"] == "pull-push" and mine[0]["when"] == "always"
    assert mine[0]["key"] != data[".reuseit-cache"]["key"]
    nightly = [c for c in caches if c["key"] == data[".reuseit-cache"]["key"]]
    assert [c["policy"] for c in nightly] == ["pull"]  # the report job alone writes it


_STAND_IN = """#!/bin/sh
printf '%s\\n' "$@" > "$REUSEIT_ARGS"
echo "mutation score 90.0% (9 killed, 1 survived, 0 broken, 0 timeout); false alarms 0 of 2 benign; 12 mutants in 1m0s"
exit "${REUSEIT_EXIT:-0}"
"""


def _run_mutation_job(template: str, tmp_path: Path, break_at: str, exit_code: int) -> tuple[int, list[str], str]:
    """The job's script, run as its CI runs it, with a stand-in `reuseit` that records its arguments
    and exits with ``exit_code``: (the script's exit code, the arguments, the step summary)."""
    bindir = tmp_path / ".venv" / "bin"
    bindir.mkdir(parents=True, exist_ok=True)
    (bindir / "reuseit").write_text(_STAND_IN, encoding="utf-8")
    (bindir / "reuseit").chmod(0o755)
    summary = tmp_path / "summary.md"
    summary.write_text("", encoding="utf-8")
    env = {"PATH": os.environ["PATH"], "REUSEIT_ARGS": str(tmp_path / "args"), "REUSEIT_EXIT": str(exit_code)}
    if template == "github":
        step = _step(github_jobs()["mutation"], "Run the mutants")
        # GitHub passes an unset variable or secret as an empty string.
        env |= {name: "" for name in step["env"]} | {"GITHUB_STEP_SUMMARY": str(summary)}
        env["REUSEIT_MUTATION_BREAK_AT"] = break_at
        argv = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]]  # `shell: bash`
    else:
        script = load("gitlab-nightly.yml")["reuseit-mutation"]["script"]
        if break_at:
            env["REUSEIT_MUTATION_BREAK_AT"] = break_at
        argv = ["sh", "-e", "-c", "\n".join(script[1:])]  # after the install
    proc = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=10)
    args = (tmp_path / "args").read_text(encoding="utf-8").splitlines()
    return proc.returncode, args, summary.read_text(encoding="utf-8")


def _parse_mutate(args: list[str]) -> tuple[Any, list[str]]:
    """The package's own parser reads the options before `--`, as `reuseit mutate` does; the rest
    goes to pytest. An option it does not know (renamed, removed) fails here."""
    assert args[:1] == ["mutate"], args
    cut = args.index("--") if "--" in args else len(args)
    try:
        parsed = build_parser().parse_args(args[:cut])
    except SystemExit:
        pytest.fail(f"reuseit mutate does not accept: {' '.join(args[:cut])}")
    return parsed, args[cut + 1 :]


def _shard_pytest_line(template: str) -> str:
    if template == "github":
        script = _step(github_jobs()["shard"], "Run this shard's workflows")["run"]
    else:
        script = "\n".join(load("gitlab-nightly.yml")["reuseit-shard"]["script"])
    start = script.index("-m pytest ")
    return script[start : script.index("status=$?", start)]


def _mutation_paths(template: str) -> tuple[list[str], list[str]]:
    """What the mutation job caches of its own, and what it keeps as artifacts."""
    if template == "github":
        job = github_jobs()["mutation"]
        cached = cache_steps(job["steps"], MUTATION)[0]["with"]["path"].split()
        upload = [s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/upload-artifact")]
        assert len(upload) == 1 and upload[0]["if"] == "always()"
        return cached, upload[0]["with"]["path"].split()
    job = load("gitlab-nightly.yml")["reuseit-mutation"]
    cached = next(c for c in job["cache"] if c["key"].startswith(MUTATION))["paths"]
    assert job["artifacts"]["when"] == "always"
    return list(cached), list(job["artifacts"]["paths"])


@pytest.mark.slow
@pytest.mark.parametrize("template", ["github", "gitlab"])
def test_mutation_job_runs_reuseit_mutate_incrementally_with_options_the_real_parser_accepts(
    template: str, tmp_path: Path
) -> None:
    code, args, summary = _run_mutation_job(template, tmp_path, break_at="", exit_code=0)
    assert code == 0
    parsed, to_pytest = _parse_mutate(args)
    assert parsed.command == "mutate" and parsed.incremental is True
    # The shards' folder of workflows, and the shards' pytest options that fit a mutation run.
    shard_line = _shard_pytest_line(template)
    assert parsed.paths and all(f"pytest {p} " in shard_line for p in parsed.paths)
    assert to_pytest and [a for a in to_pytest if a.startswith("-") and f" {a} " not in shard_line] == []
    assert f" {' '.join(to_pytest)} " in shard_line
    # The cache holds exactly the report --incremental reads back; the artifacts keep it and the
    # Allure results.
    cached, kept = _mutation_paths(template)
    assert cached == [parsed.report]
    assert parsed.report in kept
    assert parsed.alluredir and any(k.rstrip("/") == parsed.alluredir for k in kept)
    # No threshold set: the score cannot fail the job.
    assert parsed.break_at is None
    if template == "github":
        assert summary.startswith("mutation score 90.0%")  # the score line on the run's summary page


@pytest.mark.slow
@pytest.mark.parametrize("template", ["github", "gitlab"])
def test_mutation_job_fails_on_the_score_only_with_the_threshold_its_user_set(template: str, tmp_path: Path) -> None:
    code, args, _ = _run_mutation_job(template, tmp_path, break_at="80", exit_code=1)
    parsed, _ = _parse_mutate(args)
    assert parsed.break_at == 80.0
    assert code == 1  # reuseit mutate's "below --break-at" fails the job
    # A command that cannot run (no workflow passes clean) fails it too, with its own code.
    code, _, _ = _run_mutation_job(template, tmp_path, break_at="", exit_code=2)
    assert code == 2
