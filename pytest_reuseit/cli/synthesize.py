"""``reuseit synthesize "TASK" --start-url URL``: explore, synthesize, write, verify."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from urllib.parse import urlsplit

from tqdm import tqdm

from ..api import default_settings
from ..browser.session import BrowserConfig, web_address
from ..errors import BrokenRun
from ..experience import ExperienceStore
from ..llm.client import LlmClient, LlmConfig, endpoint_configured
from ..runtime import Runtime
from ..settings import default
from ..sites import SiteServer
from ..synthesis.explore import RunRecord
from ..synthesis.pipeline import SynthesisError, SynthesisOptions, Synthesizer, summary, table
from ..workflow.loader import load


def _client(args: argparse.Namespace) -> LlmClient:
    return LlmClient(
        LlmConfig(
            model=args.model,
            mode="auto",
            cache_dir=args.cache,
            retries=args.llm_retries,
            backoff=args.llm_backoff,
            timeout=args.llm_timeout,
        )
    )


def _usage_error(args: argparse.Namespace) -> str | None:
    """What is wrong with the command line, before anything starts."""
    if not endpoint_configured():
        return "synthesis needs a model: set OPENAI_API_KEY (and OPENAI_BASE_URL for another endpoint)"
    bad = [k for k in _kinds(args) if k not in ("attribute", "category", "website")]
    if bad:
        return f"--kinds: unknown kind(s) {', '.join(bad)}; use attribute, category, website"
    bundled = args.start_url.replace("{demo_url}", "http://127.0.0.1").replace("{miniwob_url}", "http://127.0.0.1")
    if not web_address(bundled):
        return f"--start-url {args.start_url}: not a web address; write it with http:// or https://"
    for flag, value in (("--runs", args.runs), ("--concurrency", args.concurrency),
                        ("--max-actions", args.max_actions), ("--action-timeout", args.action_timeout)):  # fmt: skip
        if value <= 0:  # 0 would mean no run, or (a timeout) wait for ever
            return f"{flag}: expected a number above 0, got {value:g}"
    return None


def _kinds(args: argparse.Namespace) -> tuple[str, ...]:
    return tuple(k.strip() for k in args.kinds.split(",") if k.strip())


def cmd_synthesize(args: argparse.Namespace) -> int:
    error = _usage_error(args)
    if error:
        print(error, file=sys.stderr)
        return 2
    kinds = _kinds(args)
    client = _client(args)
    sites = None
    start_url = args.start_url
    if "{demo_url}" in start_url or "{miniwob_url}" in start_url:
        # The bundled sites: serve them for the exploration, keep the placeholder in the file.
        sites = SiteServer()
        start_url = start_url.replace("{demo_url}", sites.demo_url).replace("{miniwob_url}", sites.miniwob_url)
    host = urlsplit(start_url).hostname or ""
    store = ExperienceStore(Path(args.experience_dir))
    options = SynthesisOptions(
        experience=store.text(host) if host else "",
        task=args.task,
        start_url=start_url,
        start_url_template=args.start_url if sites else None,
        runs=args.runs,
        kinds=kinds,
        concurrency=args.concurrency,
        output=Path(args.output) if args.output else None,
        work_dir=Path(args.work_dir),
        max_actions=args.max_actions,
        action_timeout=args.action_timeout,
        browser=BrowserConfig(executable_path=args.browser_path or None),
    )
    synth = Synthesizer(client, options, say=lambda line: tqdm.write(line))
    bar = tqdm(total=0, desc="exploration runs", unit="run", disable=args.quiet, leave=True)

    def progress(record: RunRecord, resumed: bool) -> None:
        if bar.total == 0:
            bar.total = len(synth_total(options))
        bar.update(1)
        verdict = "resumed" if resumed else ("done" if record.done else "gave up")
        bar.set_postfix_str(f"{record.run_id}: {verdict}")

    try:
        result = synth.run(explore_progress=progress)
    except (SynthesisError, BrokenRun) as exc:
        bar.close()
        print(f"synthesis stopped: {exc}", file=sys.stderr)
        return 1
    finally:
        bar.close()
        if sites is not None:
            sites.close()
    learnt = [rule for rule, source in result.rules if store.add(host, rule, source)] if host else []
    if learnt:
        print(f"experience: {len(learnt)} new rule(s) for {host} (reuseit experience list --site {host})")
    if not args.no_verify:
        print("verifying: one run of the new workflow per variation")
        settings = default_settings(
            llm="auto",
            model=args.model,
            cache=args.cache,
            trace="off",
            browser_path=args.browser_path or "",
            llm_retries=args.llm_retries,
            llm_backoff=args.llm_backoff,
            llm_timeout=args.llm_timeout,
        )
        runtime = Runtime(settings, Path.cwd())
        try:
            loaded = load(result.path, builtin_names=runtime.builtin_names())
            for var in loaded.workflow.all_variations():
                run = runtime.run(loaded, var.id, f"synthesized-{var.id}")
                result.verification.append((var.id, run.label, run.duration))
                if run.status in ("failed", "broken"):
                    print(f"  {var.id}: {run.label}: {run.message}")
                result.usage.add(run.usage)
        finally:
            runtime.close()
        print(table(result.verification))
    print(summary(result))
    print(f"workflow: {result.path}  (run it: pytest {result.path})")
    failed = [v for v, label, _ in result.verification if label in ("failed", "broken")]
    return 1 if failed else 0


def synth_total(options: SynthesisOptions) -> range:
    # 1 original + one per requested kind, each run `runs` times (the bar's total).
    return range((1 + len(options.kinds)) * options.runs)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("synthesize", help="synthesize a guarded workflow from an agent's runs on a task")
    p.add_argument("task", help="the task in words")
    p.add_argument(
        "--start-url",
        required=True,
        help="page the agent starts from; {demo_url} and {miniwob_url} serve the bundled sites",
    )
    p.add_argument("--runs", type=int, default=5, help="runs per task of the family [5]")
    p.add_argument("--kinds", default="attribute,category", help="variation kinds [attribute,category]")
    p.add_argument("--concurrency", type=int, default=4, help="runs in parallel [4]")
    p.add_argument("-o", "--output", help="workflow file to write [<task-slug>.reuseit.yaml]")
    p.add_argument("--model", default=default("model"), help=f"model name [{default('model')}]")
    p.add_argument("--cache", default=default("cache"), help=f"model response cache [{default('cache')}]")
    p.add_argument("--work-dir", default=".reuseit/runs", help="where runs are recorded (resumable) [.reuseit/runs]")
    p.add_argument("--max-actions", type=int, default=15, help="agent actions per run [15]")
    p.add_argument(
        "--action-timeout", type=float, default=5, help="seconds the agent waits for an element to act on [5]"
    )
    p.add_argument("--browser-path", help="Chromium executable")
    p.add_argument("--llm-timeout", type=float, default=float(default("llm_timeout")))
    p.add_argument("--llm-retries", type=int, default=int(default("llm_retries")))
    p.add_argument("--llm-backoff", type=float, default=float(default("llm_backoff")))
    p.add_argument(
        "--experience-dir", default=".reuseit/experience", help="rules learnt per site [.reuseit/experience]"
    )
    p.add_argument("--no-verify", action="store_true", help="skip the verification runs")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_synthesize)
