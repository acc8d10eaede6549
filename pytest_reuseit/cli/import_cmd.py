"""``reuseit import`` and ``reuseit record``: guarded workflows from what a team already has
(docs/import.md): Playwright traces, Chrome DevTools recordings, ``playwright codegen`` files,
Selenium IDE projects and Katalon Recorder test suites."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from playwright.sync_api import Error as PlaywrightError

from .. import api
from ..browser import recorder
from ..engine.result import RunResult
from ..errors import ReuseitError
from ..importing.pipeline import Importer, ImportOptions, Summary
from ..importing.registry import find_sources
from ..runtime import Runtime
from ..workflow.loader import LoadedWorkflow


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "import",
        help="turn Playwright traces, Chrome DevTools recordings, codegen files, Selenium IDE projects and "
        "Katalon Recorder suites into guarded workflows",
        description="One workflow per test or recording: its steps with the locators a person writes (the "
        "source's own kept as fallbacks), its assertions as checks, and checks derived from what each step "
        "changed in --runs runs against the site.",
    )
    p.add_argument(
        "sources",
        nargs="+",
        help="trace.zip files, recordings (.json), codegen files (.jsonl), Selenium IDE projects (.side), "
        "Katalon Recorder suites (.html), folders",
    )
    _common(p)
    p.set_defaults(func=cmd_import)
    r = sub.add_parser(
        "record",
        help="record a flow with Playwright's recorder (needs a display), then import it",
        description="Opens Playwright's own recorder (playwright codegen) on URL; when its window closes, "
        "what was recorded is imported as `reuseit import` does.",
    )
    r.add_argument("url", help="the page to start on")
    r.add_argument(
        "-o",
        "--output",
        default="workflows/imported/recorded.reuseit.yaml",
        help="the workflow file (default: %(default)s)",
    )
    r.add_argument("--keep-recording", default="", help="also keep the recording (codegen JSONL) here")
    _common(r, output=False)
    r.set_defaults(func=cmd_record)


def _common(p: argparse.ArgumentParser, output: bool = True) -> None:
    if output:
        p.add_argument(
            "-o", "--output", default="workflows/imported", help="folder for the workflows (default: %(default)s)"
        )
    p.add_argument("--base-url", default="", help="the site's address: its URLs are written from {base_url}")
    p.add_argument("--runs", type=int, default=3, help="runs against the site to derive checks (default: 3)")
    p.add_argument("--no-derive", action="store_true", help="write what the source says and run nothing")
    p.add_argument("--force", action="store_true", help="replace existing workflow files")
    p.add_argument("--score", action="store_true", help="then run `reuseit mutate` on the new files")


def _runtime() -> Runtime:
    out = tempfile.mkdtemp(prefix="reuseit-import-out-")
    # As a pytest run would, without a model, pictures or a trace: the import's runs keep nothing.
    settings = api.default_settings(screenshots="off", trace="off", llm="off", artifacts="never", output=out)
    return Runtime(settings, Path.cwd())


def _options(args: argparse.Namespace, file: bool = False) -> ImportOptions | None:
    if args.runs < 1:
        print(f"reuseit {args.command}: --runs must be at least 1", file=sys.stderr)
        return None
    out = Path(args.output)
    return ImportOptions(
        output=out.parent if file else out,
        file_name=out.name if file else "",
        base_url=args.base_url.rstrip("/"),
        runs=args.runs,
        derive=not args.no_derive,
        force=args.force,
    )


def _import(sources: list[Path], opt: ImportOptions, score: bool) -> int:
    runtime = _runtime()

    def run(loaded: LoadedWorkflow, probe: Any, unique: str, origin: str, origins: tuple[str, ...]) -> RunResult:
        extra = {"unique": unique, **({"base_url": origin} if origin else {})}
        return runtime.run(loaded, None, f"import-{unique}", placeholders=(extra,), probe=probe, origins=origins)

    try:
        summary = Importer(opt, runtime.session.browser, run, say=lambda line: print(line, flush=True)).import_all(
            sources
        )
    finally:
        runtime.close()
    print(summary.total())
    if score and summary.exit_code == 0:
        return _score(summary, opt)
    return summary.exit_code


def _score(summary: Summary, opt: ImportOptions) -> int:
    from . import mutate

    files = [str(r.path) for r in summary.results if r.path is not None]
    if not files:
        return summary.exit_code
    # The workflows are written from {base_url}: run them where the import ran them.
    ran_on = next((o for r in summary.results if r.composed for o in r.composed.origins if o), "")
    base = opt.base_url or ran_on
    extra = [f"--base-url={base}"] if base else []
    args = argparse.Namespace(
        paths=files,
        operators="",
        break_at=None,
        report="reuseit-output/mutation.json",
        max_mutants=0,
        alluredir="",
        plan_only=False,
        full_waits=False,
        incremental=False,
        pytest_args=extra,
    )
    return int(mutate.cmd_mutate(args))


def cmd_import(args: argparse.Namespace) -> int:
    opt = _options(args)
    if opt is None:
        return 2
    sources = find_sources(args.sources)
    if not sources:
        print(f"reuseit import: no trace, recording or codegen file in {' '.join(args.sources)}", file=sys.stderr)
        return 2
    return _import(sources, opt, args.score)


def cmd_record(args: argparse.Namespace) -> int:
    opt = _options(args, file=True)
    if opt is None:
        return 2
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        print(
            "reuseit record: Playwright's recorder opens a browser window and there is no display here "
            "(DISPLAY is not set): record on a desktop, or import a trace or a recording instead",
            file=sys.stderr,
        )
        return 2
    with tempfile.TemporaryDirectory(prefix="reuseit-record-") as tmp:
        recording = Path(args.keep_recording) if args.keep_recording else Path(tmp) / "recording.jsonl"
        print(f"recording {args.url}: click through the flow, then close the browser window", flush=True)
        try:
            # A thread of its own: the caller's thread may already run a sync Playwright (one per thread).
            with ThreadPoolExecutor(max_workers=1, thread_name_prefix="reuseit-record") as thread:
                thread.submit(recorder.record, args.url, recording).result()
        except (PlaywrightError, ReuseitError) as exc:
            print(f"reuseit record: the recorder could not run: {str(exc).splitlines()[0]}", file=sys.stderr)
            return 2
        if not recording.exists() or not recording.read_text(encoding="utf-8").strip():
            print("reuseit record: the window closed with nothing recorded", file=sys.stderr)
            return 2
        return _import([recording], opt, args.score)
