"""The nightly templates keep the nightly history between nights as they keep the Allure history,
and report through `reuseit report --history ... --alert-webhook ...` instead of a message of
their own; the command lines they build are run here with the webhook set and unset."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
HISTORY = ".reuseit/history.sqlite"


def load(name: str) -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "ci" / name).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def github_steps() -> list[dict[str, Any]]:
    jobs = load("github-nightly.yml")["jobs"]
    return [step for job in jobs.values() for step in job["steps"]]


def test_github_caches_the_history_with_one_path_list_everywhere() -> None:
    caches = [s for s in github_steps() if str(s.get("uses", "")).startswith("actions/cache")]
    assert len(caches) == 3  # the shards' restore, the report job's restore and save
    paths = {s["with"]["path"] for s in caches}
    # actions/cache finds an entry only with the very paths it was saved with.
    assert len(paths) == 1
    assert HISTORY in paths.pop().split()
    save = next(s for s in caches if "save" in s["uses"])
    assert HISTORY in save["if"]


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
