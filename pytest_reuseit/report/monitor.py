"""``monitor.html``: the page a team reads each morning, one file that opens offline.

``write(output_dir, since_last, recent)`` takes:

- ``since_last``: the ``since-last.json`` dict (docs/monitoring.md): ``new_failures``,
  ``still_failing``, ``fixed``, ``newly_recovered``, ``slower``, ``flaky`` (lists of runs
  ``{"test", "workflow", "variation", "status", "step", "action", ...}``; a still failing run also
  has ``since`` and ``runs_failing``, a newly recovered one ``fallback`` or ``recovered``, a slower
  one ``duration`` and ``usual``) and ``causes`` (``{"id", "summary", "tests", "step", "locator",
  "first_seen", "changed": {"removed", "added", "url", "title"}}``). Missing keys count as empty.
- ``recent``: the last runs of the suite, OLDEST FIRST, the reported one last::

      [{"id": str,                       # the suite run's id in the history
        "reported_at": "2024-05-02T02:23:00Z",   # ISO 8601 (or Unix seconds)
        "runs": [{"test": node id, "workflow": file as collected, "variation": str,
                  "status": "passed|recovered|healed|failed|broken|skipped",
                  "duration": seconds, "cost": model cost in USD, "calls": model calls}]}]

The page holds, in this order: what needs attention (new failures grouped by cause with what
changed on the page since the last pass, still failing since when, newly recovered by which
fallback, slower), then every workflow run with one cell per suite run coloured by status, then
the suite's pass / recovered / failed rates, its duration and its model cost over time as charts.
The charts are drawn by uPlot (vendor/uplot, MIT), inlined: 51 KB for a library made for time
series on a canvas, where Chart.js weighs four times that. Every value from the suite is
HTML-escaped; the inputs are already masked and nothing else is added.
"""

from __future__ import annotations

import html
import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..atomic import write_text_atomic
from ..browser.aria import set_aside_words
from .alert_policy import counted_states, worst_first
from .since_last import heal_extent

PAGE = "monitor.html"
VENDOR = Path(__file__).parent / "vendor" / "uplot"
FAILED = ("failed", "broken")
HELPED = ("recovered", "healed")
# Rows in the workflow table, worst first: what failed in the last run, then what needed help.
SEVERITY = {"failed": 0, "broken": 0, "recovered": 1, "healed": 1, "skipped": 3, "passed": 2}
MAX_DIFF_LINES = 12


def write(output_dir: Path | str, since_last: dict[str, Any], recent: list[dict[str, Any]]) -> Path:
    """Write ``monitor.html`` in ``output_dir`` (replaced at once) and return its path."""
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / PAGE
    write_text_atomic(path, render(since_last, recent))
    return path


def render(since_last: dict[str, Any], recent: list[dict[str, Any]]) -> str:
    last = recent[-1] if recent else {}
    when = _when_text(last.get("reported_at")) if last else "no run recorded"
    runs = [r for r in last.get("runs", []) if isinstance(r, dict)] if last else []
    counts = {s: sum(1 for r in runs if r.get("status") in group) for s, group in _GROUPS.items()}
    tally = " · ".join(f"<span class='n {s}'>{n} {s}</span>" for s, n in counts.items() if n)
    body = [
        "<header>",
        f"<h1>reuseit nightly <small>{_e(when)}</small></h1>",
        f"<p class='line'>{_e(since_line(since_last))}</p>",
        _states_line(since_last),
        _unhealthy(since_last),
        f"<p class='tally'>{len(runs)} runs in the last suite run{': ' + tally if tally else ''}"
        " · <a href='index.html'>full Allure report</a></p>",
        "</header>",
        _attention(since_last),
        _workflows(recent, _states_of(since_last)),
        _charts(recent),
    ]
    return _page("\n".join(body), _chart_data(recent))


def since_line(since_last: dict[str, Any]) -> str:
    """The contract's one line: the dict's own ``line`` when it has one, else counted from it."""
    if isinstance(since_last, dict) and isinstance(since_last.get("line"), str):
        return str(since_last["line"])
    new = _list(since_last, "new_failures")
    n_causes = len(_causes_of(new, _list(since_last, "causes")))
    return (
        f"since the last run: {len(new)} new failure{'s' if len(new) != 1 else ''} ({n_causes} cause"
        f"{'s' if n_causes != 1 else ''}), {len(_list(since_last, 'still_failing'))} still failing, "
        f"{len(_list(since_last, 'fixed'))} fixed, {len(_list(since_last, 'newly_recovered'))} newly recovered, "
        f"{len(_list(since_last, 'slower'))} slower"
    )


_GROUPS = {"passed": ("passed",), "recovered": HELPED, "failed": FAILED, "skipped": ("skipped",)}


def _attention(since_last: dict[str, Any]) -> str:
    new = _list(since_last, "new_failures")
    still = _list(since_last, "still_failing")
    recovered = _list(since_last, "newly_recovered")
    slower = _list(since_last, "slower")
    fixed = _list(since_last, "fixed")
    flaky = _list(since_last, "flaky")
    causes = _list(since_last, "causes")
    flapping = [r for r in _list(since_last, "states") if r.get("state") == "flapping"]
    parts = ["<section id='attention'><h2>Needs attention</h2>"]
    if not (new or still or recovered or slower or flapping):
        parts.append(
            "<p class='calm'>Nothing: no new failure, nothing still failing, no new recovery, nothing slower.</p>"
        )
    if new:
        parts.append(f"<h3 class='failed'>New failures <span>{len(new)}</span></h3>")
        for cause, runs in _causes_of(new, causes):
            parts.append(_cause_card(cause, runs))
    if still:
        rows = "".join(
            f"<tr><td>{_test(r)}</td><td>{_e(_when_text(r.get('since')))}</td>"
            f"<td class='num'>{_e(r.get('runs_failing', ''))}</td><td>{_step(r)}</td>"
            f"<td>{_e(cause.get('summary', ''))}{_heal(cause.get('heal'))}</td></tr>"
            for r, cause in ((r, _cause_of(r, causes)) for r in still)
        )
        parts.append(
            f"<h3 class='failed'>Still failing <span>{len(still)}</span></h3><table class='list'>"
            f"<tr><th>run</th><th>failing since</th><th>runs</th><th>step</th><th>cause</th></tr>{rows}</table>"
        )
    if flapping:
        rows = "".join(
            f"<tr><td>{_test(r)}</td><td><code class='strip'>{_e(r.get('strip'))}</code></td>"
            f"<td>{_e(r.get('rule'))}</td></tr>"
            for r in flapping
        )
        parts.append(
            f"<h3 class='flapping'>Flapping <span>{len(flapping)}</span></h3>"
            "<p class='hint'>Failing and passing by turns: one message when it started, the next when it is steady.</p>"
            f"<table class='list'><tr><th>run</th><th>last runs</th><th>rule</th></tr>{rows}</table>"
        )
    if recovered:
        rows = "".join(f"<tr><td>{_test(r)}</td><td>{_step(r)}</td><td>{_e(_fallback(r))}</td></tr>" for r in recovered)
        parts.append(
            f"<h3 class='recovered'>Newly recovered <span>{len(recovered)}</span></h3>"
            "<p class='hint'>Passed only because a fallback or healing got past something that changed: "
            "the site drifted, the test has not failed yet.</p>"
            f"<table class='list'><tr><th>run</th><th>step</th><th>got past by</th></tr>{rows}</table>"
        )
    if slower:
        rows = "".join(
            f"<tr><td>{_test(r)}</td><td class='num'>{_seconds(r.get('duration'))}</td>"
            f"<td class='num'>{_seconds(r.get('usual'))}</td></tr>"
            for r in slower
        )
        parts.append(
            f"<h3 class='slower'>Slower <span>{len(slower)}</span></h3>"
            f"<table class='list'><tr><th>run</th><th>took</th><th>usually</th></tr>{rows}</table>"
        )
    also = []
    if fixed:
        also.append(f"<h3 class='passed'>Fixed <span>{len(fixed)}</span></h3><ul>{_items(fixed)}</ul>")
    if flaky:
        also.append(f"<h3 class='flaky'>Flaky <span>{len(flaky)}</span></h3><ul>{_items(flaky)}</ul>")
    if also:
        parts.append("<div class='also'>" + "".join(also) + "</div>")
    parts.append("</section>")
    return "\n".join(parts)


def _causes_of(
    runs: list[dict[str, Any]], causes: list[dict[str, Any]]
) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """The causes of ``runs``, most runs first, each with its runs; runs of no known cause last."""
    groups: dict[str, tuple[dict[str, Any], list[dict[str, Any]]]] = {}
    for run in runs:
        cause = _cause_of(run, causes)
        key = str(cause.get("id", "")) if cause else ""
        groups.setdefault(key, (cause, []))[1].append(run)
    return sorted(groups.values(), key=lambda g: (not g[0], -len(g[1])))


def _cause_of(run: dict[str, Any], causes: list[dict[str, Any]]) -> dict[str, Any]:
    """The run's cause: by the id the run carries, else the cause that lists its test."""
    for cause in causes:
        if run.get("cause") and cause.get("id") == run.get("cause"):
            return cause
    for cause in causes:
        if str(run.get("test")) in [str(t) for t in cause.get("tests", []) or []]:
            return cause
    return {}


def _cause_card(cause: dict[str, Any], runs: list[dict[str, Any]]) -> str:
    summary = cause.get("summary") or "no cause recorded"
    facts = []
    if cause.get("step"):
        facts.append(f"step {_e(cause['step'])}")
    if cause.get("locator"):
        facts.append(f"locator <code>{_e(cause['locator'])}</code>")
    if cause.get("first_seen"):
        facts.append(f"first seen {_e(_when_text(cause['first_seen']))}")
    tests = "".join(f"<li>{_test(r)} <span class='muted'>{_step(r)}</span></li>" for r in runs)
    return (
        f"<article class='cause'><h4>{_e(summary)} <span class='count'>{len(runs)} run{'s' if len(runs) != 1 else ''}</span></h4>"
        f"<p class='facts'>{' · '.join(facts)}</p>{_heal(cause.get('heal'))}{_changed(cause.get('changed'))}"
        f"<ul>{tests}</ul></article>"
    )


def _heal(heal: Any) -> str:
    """The edit the history proves for a cause, and the command that writes it."""
    if not isinstance(heal, dict):
        return ""
    edits = "; ".join(str(e) for e in heal.get("edits") or [])
    return (
        f"<p class='heal'>Proven by the history: <code>{_e(heal.get('command', ''))}</code> edits "
        f"{_e(heal_extent(heal))} ({_e(edits)}); without <code>--apply</code> it shows the diff.</p>"
    )


def _changed(changed: Any) -> str:
    """What differs on the page since the last pass: lines that left and appeared, url and title."""
    if not isinstance(changed, dict):
        return "<p class='muted'>No earlier pass of this step to compare with.</p>"
    lines = []
    for key, sign, css in (("url", "page", "ctx"), ("title", "title", "ctx")):
        pair = changed.get(key)
        if isinstance(pair, list) and len(pair) == 2 and pair[0] != pair[1]:
            lines.append(f"<div class='{css}'>{sign}: {_e(pair[0])} → {_e(pair[1])}</div>")
    for key, sign, css in (("removed", "−", "del"), ("added", "+", "add")):
        items = [str(x) for x in changed.get(key) or []]
        lines += [f"<div class='{css}'>{sign} {_e(_aria_line(x))}</div>" for x in items[:MAX_DIFF_LINES]]
        if len(items) > MAX_DIFF_LINES:
            lines.append(f"<div class='ctx'>… {len(items) - MAX_DIFF_LINES} more {key}</div>")
    aside = set_aside_words(changed)
    churn = f"<div class='ctx'>{aside} set aside (the page's own churn)</div>" if aside else ""
    if not lines:
        return f"<p class='muted'>The page reads the same as when it last passed.</p>{churn}"
    return "<div class='diff'><div class='ctx'>since the last pass:</div>" + "".join(lines) + churn + "</div>"


def _aria_line(line: str) -> str:
    # An ARIA snapshot line begins with its list dash; beside the diff's own sign it reads as noise.
    return line[2:] if line.startswith("- ") else line


def _states_of(since_last: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {str(r.get("test")): r for r in _list(since_last, "states")}


def _states_line(since_last: dict[str, Any]) -> str:
    counts = counted_states([str(run.get("state")) for run in _list(since_last, "states")])
    if not counts:
        return ""
    shown = " · ".join(f"<span class='st st-{_e(s)}'>{n} {_e(s)}</span>" for s, n in counts)
    return f"<p class='states'>states: {shown}</p>"


def _unhealthy(since_last: dict[str, Any]) -> str:
    sick = since_last.get("unhealthy") if isinstance(since_last, dict) else None
    if not isinstance(sick, dict):
        return ""
    nights = int(_num(sick.get("nights")) or 1)
    again = f" ({nights} nights in a row)" if nights > 1 else ""
    return (
        f"<p class='sick'>Unhealthy night{again}: {_e(sick.get('cause'))} broke {_e(sick.get('runs'))} of "
        f"{_e(sick.get('of'))} runs. They were not judged: they count toward no workflow's rule and open no alert.</p>"
    )


def _workflows(recent: list[dict[str, Any]], states: dict[str, dict[str, Any]] | None = None) -> str:
    states = states or {}
    if not recent:
        return "<section id='workflows'><h2>Workflows</h2><p class='muted'>No run recorded yet.</p></section>"
    rows: dict[str, list[dict[str, Any] | None]] = {}
    for i, suite in enumerate(recent):
        for run in suite.get("runs", []):
            if isinstance(run, dict):
                rows.setdefault(str(run.get("test", "?")), [None] * len(recent))[i] = run

    def rank(test: str) -> tuple[int, int, str]:
        state = str(states.get(test, {}).get("state", ""))
        return (worst_first(state), _severity(rows[test][-1]), test)

    order = sorted(rows, key=rank)
    whens = [_when_text(s.get("reported_at")) for s in recent]  # once a night, not once a cell
    head = "".join(
        f"<th class='day' title='{_e(_when_text(s.get('reported_at')))} ({_e(s.get('id', ''))})'>{_e(_day(s.get('reported_at')))}</th>"
        for s in recent
    )
    body = []
    for test in order:
        cells = rows[test]
        known = [c for c in cells if c]
        first = known[-1]
        last = cells[-1]
        variation = f" <span class='var'>{_e(first.get('variation'))}</span>" if first.get("variation") else ""
        strip = "".join(_cell(run, when) for run, when in zip(cells, whens, strict=True))
        state = states.get(test, {})
        shown = (
            f"<td class='state st-{_e(state.get('state'))}' title='{_e(state.get('rule'))}'>{_e(state.get('state'))}"
            f"<small>{_e(state.get('rule'))}</small></td>"
            if state
            else "<td class='state'></td>"
        )
        body.append(
            f"<tr><td class='wf' title='{_e(test)}'>{_e(first.get('workflow') or test)}{variation}</td>{shown}{strip}"
            f"<td class='num'>{_seconds(last.get('duration')) if last else '–'}</td>"
            f"<td>{_spark([c.get('duration') if c else None for c in cells])}</td>"
            f"<td class='num'>{_cost(last.get('cost')) if last else '–'}</td>"
            f"<td class='num'>{_cost(sum(_num(c.get('cost')) for c in known))}</td></tr>"
        )
    legend = "".join(f"<span class='cell s-{s}'></span>{s} " for s in (*SEVERITY, "uncounted", "none"))
    legend = legend.replace("uncounted ", "broken on an unhealthy night (not counted) ")
    return (
        f"<section id='workflows'><h2>Workflows <span class='muted'>{len(order)} runs × last {len(recent)} nights</span></h2>"
        f"<p class='legend'>{legend.replace('none ', 'not run')}</p>"
        f"<div class='scroll'><table class='grid'><tr><th>workflow</th><th>state</th>{head}<th>duration</th><th>over time</th>"
        f"<th>cost</th><th>cost, {len(recent)} nights</th></tr>{''.join(body)}</table></div></section>"
    )


def _cell(run: dict[str, Any] | None, when: str) -> str:
    if run is None:
        return f"<td class='cell s-none' title='{_e(when)}: not run'></td>"
    status = str(run.get("status", "broken"))
    css = status if status in SEVERITY else "broken"
    if run.get("uncounted"):
        css, status = "uncounted", f"{status} on an unhealthy night (not counted)"
    calls = int(_num(run.get("calls")))
    tip = f"{when}: {status}, {_seconds(run.get('duration'))}, {_cost(run.get('cost'))} ({calls} model calls)"
    return f"<td class='cell s-{css}' title='{_e(tip)}'></td>"


def _spark(values: list[Any]) -> str:
    """Each night's duration as a small line: a run getting slower shows before it times out."""
    points = [(i, _num(v)) for i, v in enumerate(values) if v is not None]
    if len(points) < 2:
        return ""
    top = max(v for _, v in points) or 1.0
    width, height = 90, 18
    step = width / max(1, len(values) - 1)
    # Scaled from 0 to the slowest night: a run twice as slow draws twice as high.
    coords = " ".join(f"{i * step:.1f},{height - 1 - (v / top) * (height - 2):.1f}" for i, v in points)
    return f"<svg class='spark' width='{width}' height='{height}'><polyline points='{coords}'/></svg>"


def _charts(recent: list[dict[str, Any]]) -> str:
    if not recent:
        return ""
    return (
        "<section id='trends'><h2>The suite over time</h2>"
        "<div class='charts'><figure><figcaption>runs by outcome, % of the suite run</figcaption>"
        "<div id='chart-rates' class='chart'></div></figure>"
        "<figure><figcaption>duration of all runs (s) and model cost (USD)</figcaption>"
        "<div id='chart-cost' class='chart'></div></figure></div></section>"
    )


def _chart_data(recent: list[dict[str, Any]]) -> dict[str, list[Any]]:
    data: dict[str, list[Any]] = {"x": [], "passed": [], "recovered": [], "failed": [], "duration": [], "cost": []}
    for i, suite in enumerate(recent):
        runs = [r for r in suite.get("runs", []) if isinstance(r, dict)]
        total = len(runs) or 1
        stamp = _stamp(suite.get("reported_at"))
        # uPlot needs increasing x: a suite run without a readable time takes the next second.
        x = stamp if stamp is not None else (data["x"][-1] + 1 if data["x"] else float(i))
        if data["x"] and x <= data["x"][-1]:
            x = data["x"][-1] + 1
        data["x"].append(x)
        for name, group in (("passed", ("passed",)), ("recovered", HELPED), ("failed", FAILED)):
            data[name].append(round(100 * sum(1 for r in runs if r.get("status") in group) / total, 1))
        data["duration"].append(round(sum(_num(r.get("duration")) for r in runs), 1))
        data["cost"].append(round(sum(_num(r.get("cost")) for r in runs), 4))
    return data


def _page(body: str, chart_data: dict[str, list[Any]]) -> str:
    css = (VENDOR / "uPlot.min.css").read_text(encoding="utf-8")
    js = (VENDOR / "uPlot.iife.min.js").read_text(encoding="utf-8")
    # JSON inside <script>: "<" escaped so no value can close the element.
    data = json.dumps(chart_data).replace("<", "\\u003c")
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>reuseit nightly monitor</title><style>{css}</style><style>{_STYLE}</style></head>"
        f"<body>{body}<script id='chart-data' type='application/json'>{data}</script>"
        f"<script>{js}</script><script>{_SCRIPT}</script></body></html>"
    )


def _items(runs: list[dict[str, Any]]) -> str:
    return "".join(f"<li>{_test(r)}</li>" for r in runs)


def _test(run: dict[str, Any]) -> str:
    variation = f" <span class='var'>{_e(run.get('variation'))}</span>" if run.get("variation") else ""
    name = run.get("workflow") or run.get("test") or "?"
    return f"<span class='test' title='{_e(run.get('test', ''))}'>{_e(name)}</span>{variation}"


def _step(run: dict[str, Any]) -> str:
    if not run.get("step"):
        return ""
    action = f" {_e(run.get('action'))}" if run.get("action") else ""
    return f"step {_e(run['step'])}{action}"


def _fallback(run: dict[str, Any]) -> str:
    """What got the run past: ``fallback``, or each of its ``recovered`` steps with the fallback used."""
    if run.get("fallback"):
        return str(run["fallback"])
    recovered = run.get("recovered")
    if isinstance(recovered, list) and recovered:
        return "; ".join(
            f"step {r.get('step')} {r.get('action') or ''}: {r.get('fallback') or 'recovered'}".replace(" :", ":")
            for r in recovered
            if isinstance(r, dict)
        )
    return "healing" if run.get("status") == "healed" else str(run.get("status", ""))


def _severity(run: dict[str, Any] | None) -> int:
    return 4 if run is None else SEVERITY.get(str(run.get("status")), 0)


def _list(data: dict[str, Any], key: str) -> list[dict[str, Any]]:
    value = data.get(key) if isinstance(data, dict) else None
    return [x for x in value if isinstance(x, dict)] if isinstance(value, list) else []


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _num(value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0.0
    return number if number == number else 0.0


def _seconds(value: Any) -> str:
    seconds = _num(value)
    return f"{seconds:.1f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def _cost(value: Any) -> str:
    cost = _num(value)
    return "$0" if cost == 0 else f"${cost:.4f}" if cost < 1 else f"${cost:.2f}"


def _stamp(value: Any) -> float | None:
    if isinstance(value, (int, float)):
        return float(value)
    try:
        when = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).timestamp()


def _when_text(value: Any) -> str:
    stamp = _stamp(value)
    if stamp is None:
        return str(value or "")
    return datetime.fromtimestamp(stamp, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def _day(value: Any) -> str:
    stamp = _stamp(value)
    return "" if stamp is None else datetime.fromtimestamp(stamp, timezone.utc).strftime("%d")


_STYLE = """
:root{--passed:#2f9e44;--recovered:#f59f00;--healed:#e67700;--failed:#e03131;--broken:#a61e4d;
--skipped:#adb5bd;--ink:#212529;--muted:#868e96;--line:#dee2e6}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);margin:0;background:#f8f9fa}
header,section{max-width:1280px;margin:0 auto;padding:12px 24px}
header{padding-top:20px}
h1{font-size:22px;margin:0}h1 small{font-weight:400;color:var(--muted);font-size:15px;margin-left:8px}
h2{font-size:17px;margin:18px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{font-size:15px;margin:14px 0 6px}h3 span{display:inline-block;min-width:22px;padding:0 6px;border-radius:10px;
color:#fff;text-align:center;font-size:12px;margin-left:4px;background:var(--muted)}
h3.failed span{background:var(--failed)}h3.recovered span{background:var(--recovered)}
h3.passed span{background:var(--passed)}h3.slower span{background:#1971c2}
p.line{font-size:16px;font-weight:600;margin:6px 0 2px}p.tally{margin:0;color:var(--muted)}
.n.failed{color:var(--failed);font-weight:600}.n.recovered{color:var(--healed);font-weight:600}
.n.passed{color:var(--passed)}
.calm{padding:10px 14px;background:#ebfbee;border-left:4px solid var(--passed)}
.cause{background:#fff;border:1px solid var(--line);border-left:4px solid var(--failed);border-radius:4px;
padding:8px 14px;margin:8px 0}
.cause h4{margin:2px 0;font-size:15px}.count{font-weight:400;color:var(--muted);font-size:13px}
.facts{margin:2px 0 6px;color:#495057}.heal{margin:4px 0;padding:4px 8px;background:#e7f5ff;border-left:3px solid #1c7ed6}.cause ul{margin:6px 0 2px;padding-left:18px}
.diff{font:12.5px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f8f9fa;
border:1px solid var(--line);border-radius:3px;padding:4px 8px;white-space:pre-wrap;word-break:break-word}
.diff .del{background:#ffe3e3;color:#c92a2a}.diff .add{background:#d3f9d8;color:#2b8a3e}.diff .ctx{color:var(--muted)}
table.list{border-collapse:collapse;background:#fff;width:100%}
.list td,.list th{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
.list th,.grid th{font-weight:600;color:#495057;font-size:12px}
.num{text-align:right;white-space:nowrap}.muted,.hint{color:var(--muted)}.hint{margin:0 0 4px}
.var{display:inline-block;background:#e7f5ff;color:#1864ab;border-radius:3px;padding:0 5px;font-size:12px}
.test{font-weight:500}code{font-size:12.5px;background:#f1f3f5;padding:0 3px;border-radius:3px}
.also{display:flex;gap:40px;flex-wrap:wrap}.also ul{margin:0;padding-left:18px}
.scroll{overflow-x:auto;background:#fff;border:1px solid var(--line);border-radius:4px}
table.grid{border-collapse:separate;border-spacing:2px;font-size:13px}
.grid td,.grid th{padding:2px 6px;white-space:nowrap}
.grid th.day{padding:0;width:14px;min-width:14px;font-weight:400;font-size:10px;color:var(--muted);text-align:center}
.grid td.wf{max-width:420px;overflow:hidden;text-overflow:ellipsis}
.cell{width:14px;min-width:14px;height:18px;padding:0!important;border-radius:2px}
span.cell{display:inline-block;height:12px;width:12px;vertical-align:-1px;margin:0 3px 0 10px}
.s-passed{background:var(--passed)}.s-recovered{background:var(--recovered)}.s-healed{background:var(--healed)}
.s-failed{background:var(--failed)}.s-broken{background:var(--broken)}.s-skipped{background:var(--skipped)}
.s-none{background:#fff;outline:1px dashed #ced4da;outline-offset:-1px}
.legend{margin:0 0 6px;color:#495057;font-size:12px}
.spark polyline{fill:none;stroke:#1971c2;stroke-width:1.5}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(460px,1fr));gap:16px}
figure{margin:0;background:#fff;border:1px solid var(--line);border-radius:4px;padding:8px}
figcaption{font-weight:600;font-size:13px;color:#495057;margin-bottom:4px}.chart{min-height:240px}
a{color:#1971c2}
.s-uncounted{background:repeating-linear-gradient(45deg,var(--broken) 0 3px,#fff 3px 6px)}
p.states{margin:2px 0;color:#495057}.st{font-weight:600}.st-failing{color:var(--failed)}
.st-flapping{color:#ae3ec9}.st-broken{color:var(--broken)}.st-pending{color:#e8590c}.st-recovering{color:#1971c2}
.st-drifting{color:var(--healed)}.st-passing{color:var(--passed)}
.sick{padding:8px 14px;background:#fff0f6;border-left:4px solid var(--broken);margin:8px 0 0}
td.state{font-weight:600;max-width:260px;white-space:normal!important;font-size:12px}
td.state small{display:block;font-weight:400;color:var(--muted);font-size:11px;line-height:1.3}
h3.flapping span{background:#ae3ec9}code.strip{white-space:nowrap;letter-spacing:1px}
"""

_SCRIPT = """
(function(){
  var d = JSON.parse(document.getElementById('chart-data').textContent);
  if (!d.x.length || typeof uPlot === 'undefined') return;
  var css = getComputedStyle(document.documentElement);
  function color(n){ return css.getPropertyValue('--' + n).trim(); }
  // The legend shows the hovered night, and the last night when the cursor is elsewhere.
  function shown(values, fmt){
    return function(u, v, si, idx){
      var x = idx == null ? values[values.length - 1] : v;
      return x == null ? '-' : fmt(x);
    };
  }
  function pct(x){ return x + ' %'; }
  var date = uPlot.fmtDate('{YYYY}-{MM}-{DD} {HH}:{mm}');
  var night = {label: 'night', value: shown(d.x, function(x){ return date(new Date(x * 1000)); })};
  // Ticks a day apart at least: suite runs are nights, not hours.
  var days = [1, 2, 7, 14, 30, 91, 182, 365].map(function(n){ return n * 86400; });
  function opts(el, series, axes, scales){
    axes[0] = {incrs: days, space: 50};
    return {width: Math.max(300, el.clientWidth), height: 240, series: [night].concat(series),
            axes: axes, scales: scales, cursor: {drag: {x: false, y: false}}};
  }
  function line(label, name, values, fill){
    return {label: label, stroke: color(name), width: 2, fill: fill ? color(name) + '22' : undefined,
            points: {show: d.x.length < 60}, value: shown(values, pct)};
  }
  var charts = [];
  var rates = document.getElementById('chart-rates');
  charts.push([rates, new uPlot(opts(rates,
    [line('passed', 'passed', d.passed, true), line('recovered / healed', 'recovered', d.recovered),
     line('failed / broken', 'failed', d.failed, true)],
    [{}, {size: 60, values: function(u, vs){ return vs.map(pct); }}],
    {x: {time: true}, y: {range: [0, 100]}}), [d.x, d.passed, d.recovered, d.failed], rates)]);
  var cost = document.getElementById('chart-cost');
  function sec(x){ return x + ' s'; }
  function usd(x){ return '$' + Number(x.toFixed(4)); }
  charts.push([cost, new uPlot(opts(cost,
    [{label: 'duration', stroke: '#1971c2', width: 2, scale: 's', value: shown(d.duration, sec)},
     {label: 'model cost', stroke: '#7048e8', width: 2, scale: 'usd', value: shown(d.cost, usd)}],
    [{}, {scale: 's', size: 60, values: function(u, vs){ return vs.map(sec); }},
     {scale: 'usd', side: 1, size: 70, grid: {show: false}, values: function(u, vs){ return vs.map(usd); }}],
    {x: {time: true}, s: {range: function(u, lo, hi){ return [0, hi > 0 ? hi * 1.1 : 1]; }},
     usd: {range: function(u, lo, hi){ return [0, hi > 0 ? hi * 1.1 : 0.01]; }}}), [d.x, d.duration, d.cost], cost)]);
  window.addEventListener('resize', function(){
    charts.forEach(function(c){ c[1].setSize({width: Math.max(300, c[0].clientWidth), height: 240}); });
  });
})();
"""
