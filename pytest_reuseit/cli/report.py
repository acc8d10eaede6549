"""``reuseit report``: the night in the history, what changed since the last run, then the Allure report.

Order (docs/monitoring.md): the run records of the results folder; the history checked (a file
that is not one: exit 2 before anything is written), the night appended and compared with the last
one; the "since the last run" line; the webhook and the Pushgateway; the Allure report; then
``since-last.json``, ``monitor.html`` and ``metrics.prom`` in the output folder (after Allure,
whose ``generate --clean`` empties it; written also when Allure is missing or fails).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .. import project
from ..atomic import write_text_atomic
from ..report import alert_policy, alerts, allure_files, history, metrics, monitor, records, since_last
from .output import say

ALLURE_ENV = "REUSEIT_ALLURE"
WEBHOOK_ENV = "REUSEIT_ALERT_WEBHOOK"
SINCE_LAST = "since-last.json"
HEALING = "healing.json"  # the proven edits of the night, beside since-last.json


def find_allure(explicit: str | None) -> list[str] | None:
    """The Allure 2 command line: --allure, $REUSEIT_ALLURE, `allure` on PATH, or a local npm install."""
    for candidate in (explicit, os.environ.get(ALLURE_ENV)):
        if candidate:
            return candidate.split()
    found = shutil.which("allure")
    if found:
        return [found]
    local = Path("node_modules/.bin/allure")
    if local.exists():
        return [str(local)]
    return None


def _generate(allure: list[str], results: Path, reports: list[tuple[Path, bool]], *, env: dict[str, str]) -> bool:
    """``allure generate`` of ``results`` into each (folder, single file) of ``reports``, side by
    side: the example workflows' 482 results took 2.05-2.45 s for both at once against 2.85-3.13 s
    in turn, on a 2-core machine."""
    procs = []
    for output, single_file in reports:
        cmd = [*allure, "generate", str(results), "-o", str(output), "--clean"] + (
            ["--single-file"] if single_file else []
        )
        procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    ok = True
    try:
        for proc in procs:
            out, _ = proc.communicate(timeout=600)
            if proc.returncode != 0:
                print(f"allure generate failed ({proc.returncode}):\n{out}", file=sys.stderr)
                ok = False
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return ok


_SHORT_LIVED_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def cmd_report(args: argparse.Namespace) -> int:
    results, output = Path(args.results), Path(args.output)
    # Options first: a typo found only on the night something fails would lose that night's alert.
    policy = _policy(args)
    if isinstance(policy, str):
        print(f"reuseit report: {policy}", file=sys.stderr)
        return 2
    args.policy = policy
    if not results.is_dir() or not any(results.glob("*-result.json")):
        print(f"no Allure results in {results}: run pytest with --alluredir {results} first", file=sys.stderr)
        return 2
    bad = _bad_addresses(args)
    if bad:
        print(f"reuseit report: {bad}", file=sys.stderr)
        return 2
    night = _monitor(args, results)
    if isinstance(night, int):
        return night  # the history is not one: nothing written
    try:
        if args.no_allure:
            output.mkdir(parents=True, exist_ok=True)
            return 0
        return _allure_report(args, results, output)
    finally:
        # After Allure: `allure generate --clean` empties the output folder. Also when Allure is
        # missing or fails: the night's monitoring files do not depend on it.
        if night is not None:
            _write_monitoring(night, output)


def _bad_addresses(args: argparse.Namespace) -> str:
    """A webhook or Pushgateway address that cannot be one, said before anything is written (a typo
    found only on the night something fails would lose that night's alert)."""
    for what, value in (
        (f"--alert-webhook (or ${WEBHOOK_ENV})", args.alert_webhook or os.environ.get(WEBHOOK_ENV)),
        ("--pushgateway", args.pushgateway),
    ):
        if not value:
            continue
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            shown = f"{parts.scheme}://{parts.hostname}" if parts.scheme and parts.hostname else "the value given"
            return f"{what}: not an http(s) address ({shown}): write it as https://host/path"
    return ""


@dataclass
class _Night:
    records: list[dict[str, Any]]
    since: since_last.SinceLast | None


def _monitor(args: argparse.Namespace, results: Path) -> _Night | int | None:
    """Read the run records, append them to the history, compare, alert, push. An int: exit now."""
    found = records.read_all(results)
    if not found:
        print(
            f"no reuseit run records in {results} (results of an older pytest-reuseit?): "
            "no history, since-last or monitor page this time",
            file=sys.stderr,
        )
        return None
    since: since_last.SinceLast | None = None
    if args.no_history:
        print("history off (--no-history): nothing compared with the last run", file=sys.stderr)
    else:
        path = project.history_file(args.history)
        try:
            with history.writing(path) as kept:
                since_last.annotate(found)  # each failure's cause id goes into the history with it
                suite = kept.append(found)
                since = since_last.compare(kept, suite, found, policy=args.policy, heal_command=_heal_command(args))
                kept.trim()
        except history.HistoryError as exc:
            print(f"reuseit report: {exc}", file=sys.stderr)
            return 2
        say(since.line)
        say(since_last.states_line(since.data))
        sick = since.data.get("unhealthy")
        if sick:
            say(
                f"unhealthy night: {sick['cause']}: {sick['runs']} of {sick['of']} runs broken; counted toward no workflow's rule"
            )
        for cause in since.data["causes"]:
            if cause.get("heal"):
                say(f"  {cause['summary']}: {since_last.heal_words(cause['heal'])}")
        if not suite.new:
            print(f"history {path}: this results folder was already recorded; counted once", file=sys.stderr)
        webhook = args.alert_webhook or os.environ.get(WEBHOOK_ENV)
        if webhook and since.events:
            problem = alerts.post(webhook, alerts.message(since.events, since.data["causes"]))
            if problem:
                print(f"warning: {problem}", file=sys.stderr)
    if args.pushgateway:
        problem = metrics.push(args.pushgateway, found, states=_states(since))
        if problem:
            print(f"warning: {problem}", file=sys.stderr)
    return _Night(found, since)


def _states(since: since_last.SinceLast | None) -> dict[str, str] | None:
    """Each test's state under the alert policy (None without a history)."""
    if since is None:
        return None
    return {str(r.get("test")): str(r.get("state")) for r in since.data.get("states") or []}


def _heal_command(args: argparse.Namespace) -> str:
    """The command that writes the edits the history proves: it reads them from the report's own
    folder, which travels with the report (a CI artifact), not from one shard's output folder."""
    return f"reuseit heal --from {shlex.quote(str(Path(args.output) / HEALING))} --apply"


def _write_monitoring(night: _Night, output: Path) -> None:
    output.mkdir(parents=True, exist_ok=True)
    if night.since is not None:
        data = json.dumps(night.since.data, indent=1, ensure_ascii=False)
        write_text_atomic(output / SINCE_LAST, data + "\n")
        page = monitor.write(output, night.since.data, night.since.recent)
    # The edits the night's failures prove, for `reuseit heal --from` (none: no stale file left).
    proven = since_last.proven_entries(night.records)
    if proven:
        write_text_atomic(output / HEALING, json.dumps(proven, indent=1, ensure_ascii=False) + "\n")
    else:
        (output / HEALING).unlink(missing_ok=True)
    # Every file first, then what is printed: a reader that went away loses a line, not a file.
    metrics.write_textfile(output / metrics.FILE, night.records, _states(night.since))
    if night.since is not None:
        say(f"monitor: {page.resolve()}  (what needs attention, each workflow's recent runs, rates over time)")


def _allure_report(args: argparse.Namespace, results: Path, output: Path) -> int:
    allure = find_allure(args.allure)
    if allure is None:
        print(
            "the Allure command line is not installed: npm install -g allure-commandline "
            "(needs Java: apt-get install default-jre-headless), or pass --allure CMD",
            file=sys.stderr,
        )
        return 2
    allure_files.write_categories(results)
    # Allure's trends need the previous report's history inside the new results.
    allure_history = output / "history"
    if allure_history.is_dir():
        shutil.copytree(allure_history, results / "history", dirs_exist_ok=True)
    # Allure's JVM runs for a few seconds: the client compiler alone and one GC thread spend about
    # 40% less CPU on the same report. JAVA_OPTS of the caller's own come after ours and win.
    java_opts = f"{_SHORT_LIVED_JVM} {os.environ.get('JAVA_OPTS', '')}".strip()
    env = {**os.environ, "ALLURE_NO_ANALYTICS": "true", "JAVA_OPTS": java_opts}
    if args.multi_file:
        if not _generate(allure, results, [(output, False)], env=env):
            return 1
    else:
        # A single-file report has no history/ folder: build the classic one aside only to keep
        # its history next to index.html, where the next run picks it up.
        with tempfile.TemporaryDirectory(prefix="allure-history-") as tmp:
            if not _generate(allure, results, [(output, True), (Path(tmp) / "report", False)], env=env):
                return 1
            shutil.copytree(Path(tmp) / "report" / "history", allure_history, dirs_exist_ok=True)
    index = output / "index.html"
    say(f"report: {index.resolve()}  (open it in a browser; it works offline)")
    # What the report weighs: a big one is slow to open and to keep as a CI artifact. The history
    # kept beside it for the next run is no part of what a reader opens.
    weighed = output if args.multi_file else index
    files = [weighed] if weighed.is_file() else [p for p in output.rglob("*") if p.is_file()]
    report_bytes = sum(p.stat().st_size for p in files if "history" not in p.relative_to(output).parts)
    say(f"{weighed}{'/' if args.multi_file else ''}: {report_bytes / 1_000_000:.1f} MB")
    return 0


# Each alert policy option: its ini key and its environment variable (the command line wins, then
# the ini, then the environment, as for --history).
POLICY_OPTIONS = {
    "alert_after": ("reuseit_alert_after", "REUSEIT_ALERT_AFTER"),
    "alert_window": ("reuseit_alert_window", "REUSEIT_ALERT_WINDOW"),
    "recover_after": ("reuseit_recover_after", "REUSEIT_RECOVER_AFTER"),
    "remind_every": ("reuseit_remind_every", "REUSEIT_REMIND_EVERY"),
}
_MAX_RUNS = 1000
MAX_WINDOW = 100


def _policy(args: argparse.Namespace) -> alert_policy.Policy | str:
    """The alert policy from the command line, the ini and the environment; a str: what is wrong."""
    ini = project.find().ini
    values: dict[str, tuple[str, str]] = {}
    for name, (key, env) in POLICY_OPTIONS.items():
        given = getattr(args, name, None)
        if given is not None:
            values[name] = (str(given), f"--{name.replace('_', '-')}")
        elif ini.get(key):
            values[name] = (ini[key], f"ini {key}")
        elif os.environ.get(env):
            values[name] = (os.environ[env], f"${env}")
    numbers: dict[str, int] = {}
    for name, least in (("alert_after", 1), ("recover_after", 1), ("remind_every", 0)):
        if name in values:
            text, where = values[name]
            number = _whole(text.strip(), least)
            if isinstance(number, str):
                return f"{where}: {number}"
            numbers[name] = number
    k, m = 3, 10
    if "alert_window" in values:
        text, where = values["alert_window"]
        parts = text.strip().split("/")
        pair = [_whole(part.strip(), 1) for part in parts] if len(parts) == 2 else []
        if len(pair) != 2 or isinstance(pair[0], str) or isinstance(pair[1], str) or pair[0] > pair[1]:
            return f"{where}: {text.strip()!r} is not K/M, K of the last M runs with 1 <= K <= M (say 3/10)"
        k, m = int(pair[0]), int(pair[1])
        if m > MAX_WINDOW:
            return f"{where}: M is at most {MAX_WINDOW} runs (the history read back each night), not {m}"
    return alert_policy.Policy(
        alert_after=numbers.get("alert_after", 1),
        window_k=k,
        window_m=m,
        recover_after=numbers.get("recover_after", 1),
        remind_every=numbers.get("remind_every", 0),
    )


def _whole(text: str, least: int) -> int | str:
    try:
        value = int(text)
    except ValueError:
        return f"not a whole number: {text!r}"
    if value < least or value > _MAX_RUNS:
        return f"must be {least} to {_MAX_RUNS}, not {value}"
    return value


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "report",
        help="the Allure HTML report, the night in the history and what changed since the last run",
    )
    p.add_argument("--results", default="allure-results", help="Allure results folder [allure-results]")
    p.add_argument("--output", default="allure-report", help="report folder [allure-report]")
    p.add_argument("--allure", help="Allure 2 command (default: allure on PATH)")
    p.add_argument("--multi-file", action="store_true", help="a classic multi-file report instead of one index.html")
    # A team whose Allure report is built elsewhere (or a monitoring-only job) still wants the night
    # in the history, the since-last line, the monitor page, metrics and alerts.
    p.add_argument(
        "--no-allure",
        action="store_true",
        help="no Allure HTML this time: only the history, since-last.json, monitor.html, metrics.prom and alerts",
    )
    p.add_argument(
        "--history",
        metavar="FILE",
        help=f"the nightly history (SQLite) this report is added to [ini reuseit_history, ${history.ENV} or "
        f"{history.DEFAULT_PATH}, from the rootdir of pytest run here: the file the runs read]",
    )
    p.add_argument("--no-history", action="store_true", help="neither read nor write a history this time")
    p.add_argument(
        "--alert-webhook",
        metavar="URL",
        help=f"POST one message when something changed state (failing, fixed, drifting) [${WEBHOOK_ENV}]",
    )
    p.add_argument(
        "--alert-after",
        metavar="N",
        help="open a failing alert once a workflow run failed N runs of the suite in a row "
        f"[ini reuseit_alert_after, ${POLICY_OPTIONS['alert_after'][1]}, 1]",
    )
    p.add_argument(
        "--alert-window",
        metavar="K/M",
        help="also open it once K of its last M runs failed, passes between not resetting it "
        f"[ini reuseit_alert_window, ${POLICY_OPTIONS['alert_window'][1]}, 3/10]",
    )
    p.add_argument(
        "--recover-after",
        metavar="R",
        help="close an open alert (fixed) after R passes in a row; until then it is recovering and nothing is sent "
        f"[ini reuseit_recover_after, ${POLICY_OPTIONS['recover_after'][1]}, 1]",
    )
    p.add_argument(
        "--remind-every",
        metavar="N",
        help="send an open alert again every N runs while it stays open; 0: never "
        f"[ini reuseit_remind_every, ${POLICY_OPTIONS['remind_every'][1]}, 0]",
    )
    p.add_argument("--pushgateway", metavar="URL", help="push the last run's figures to this Prometheus Pushgateway")
    p.set_defaults(func=cmd_report)
