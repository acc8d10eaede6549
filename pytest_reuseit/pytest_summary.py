"""The reuseit section of pytest's terminal summary: its lines, from the runs' reports.

What a session's runs did (counts, model use, each failed, recovered or unjudged run), the edits
the history proves for its failures, and why the history could not be read. The plugin gathers the
reports and writes the lines (plugin.pytest_terminal_summary); each line is made here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .report import history
from .runtime import Runtime


def history_problem(runtime: Runtime) -> str:
    """Why the history could not be read (the runs went on without a last pass), or "". Under
    xdist the runs were the workers': the controller looks at the file itself (read-only)."""
    if runtime.history_problem:
        return runtime.history_problem
    path = runtime.history_path
    if path is None or not path.exists():
        return ""
    try:
        history.check(path)
    except history.HistoryError as exc:
        return str(exc)
    return ""


def summary_lines(runs: list[tuple[str, dict[str, Any]]], *, verbose: bool) -> Iterator[str]:
    """The reuseit section of the terminal summary: counts, model use, what failed, recovered or went unjudged."""
    counts: dict[str, int] = {}
    for _, info in runs:
        counts[info["label"]] = counts.get(info["label"], 0) + 1
    order = ("passed", "recovered", "healed", "failed", "broken")
    yield ", ".join(f"{counts.get(k, 0)} {k}" for k in order) + f"  ({len(runs)} workflow runs)"
    if counts.get("not judged"):
        yield f"{counts['not judged']} skipped: checks in words not judged (no model configured)"
    calls = sum(i["usage"]["calls"] for _, i in runs)
    if calls or any(i["usage"]["cache_hits"] for _, i in runs):
        hits = sum(i["usage"]["cache_hits"] for _, i in runs)
        tokens = sum(i["usage"]["tokens"] for _, i in runs)
        cost = sum(i["usage"]["cost"] for _, i in runs)
        yield f"model: {calls} calls, {hits} cache hits, {tokens} tokens, ${cost:.4f}"
    for nodeid, info in runs:
        if info["label"] in ("failed", "broken"):
            line = f"{info['label'].upper()} {nodeid} [{info['category']}] {info['why']}".splitlines()[0]
            infra = info.get("infrastructure")
            yield line + (f" (recovery cut short: {infra.splitlines()[0]})" if infra else "")
    for nodeid, info in runs:
        if info["recovered"]:
            yield f"{info['label'].upper()} {nodeid}:"
            yield from (f"    {line}" for line in info["recovered"])
    yield from unjudged_lines(runs, verbose=verbose)


def proven_lines(runs: list[tuple[str, dict[str, Any]]], command: str) -> Iterator[str]:
    """The edits the history proves for this session's failures, and the command that shows them;
    the checks it explains, which it never changes."""
    proven = [h for _, info in runs for h in info["healing"] if h.get("origin") == "history"]
    # Every place an edit touches (a rename's other uses too); the checks that no longer hold (a
    # check that only names a renamed element, never reached, is shown by `reuseit heal`).
    edits = {
        (h["file"], h["step"], h["kind"], h.get("fallback", -1), h["op_index"], h.get("part", ""))
        for h in proven
        if h["kind"] != "check"
    }
    checks = sum(1 for h in proven if h["kind"] == "check" and h.get("reached", True))
    show = command.removesuffix(" --apply")
    if edits:
        files = len({key[0] for key in edits})
        yield (
            f"PROVEN by the history: {len(edits)} edit{'s' if len(edits) != 1 else ''} in {files} "
            f"file{'s' if files != 1 else ''}; `{show}` shows them, `{command}` writes them"
        )
    if checks:
        yield (
            f"POSSIBLE REGRESSION: {checks} check{' that no longer holds' if checks == 1 else 's that no longer hold'} "
            f"since the last pass; `{show}` shows what the page shows now (it never changes a check)"
        )


def unjudged_lines(runs: list[tuple[str, dict[str, Any]]], *, verbose: bool) -> Iterator[str]:
    unjudged = [(nodeid, line) for nodeid, info in runs for line in info["not_judged"]]
    if unjudged and verbose:
        for nodeid, line in unjudged:
            yield f"NOT JUDGED {nodeid}: {line}"
    elif unjudged:
        n_runs = len({nodeid for nodeid, _ in unjudged})
        yield (
            f"NOT JUDGED: {len(unjudged)} model-only checks in {n_runs} runs (no model; -v lists them, "
            "--reuseit-strict fails them)"
        )
