"""``reuseit promote [FILES] [--apply]``: checks in words become DOM assertions (see authoring/promote.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..atomic import write_text_atomic
from ..authoring.judged_pages import DEFAULT_DIR
from ..authoring.yamledit import YamlEditError
from ..engine.result import ModelUsage
from ..errors import BrokenRun, WorkflowFormatError
from ..settings import default


def cmd_promote(args: argparse.Namespace) -> int:
    from . import _expand  # noqa: PLC0415 - the package's own helper, defined before the commands load

    files = _expand(args.files or ["."])
    if not files:
        print("reuseit promote: no workflow files found", file=sys.stderr)
        return 2
    # The openai client and the browser are imported only here: other commands start quickly.
    from ..authoring.promote import promote, summary  # noqa: PLC0415
    from ..browser.session import BrowserConfig, BrowserSession  # noqa: PLC0415
    from ..llm.client import LlmClient, LlmConfig, ModelUnavailable, endpoint_configured  # noqa: PLC0415

    if not endpoint_configured():
        print("reuseit promote: no model endpoint (set OPENAI_API_KEY, or OPENAI_BASE_URL)", file=sys.stderr)
        return 2
    client = LlmClient(LlmConfig(model=args.model, mode="auto", cache_dir=args.cache))
    session = BrowserSession(BrowserConfig(executable_path=args.browser_path or None))
    usage, status = ModelUsage(), 0
    try:
        for path in files:
            try:
                doc, text, results = promote(path, client, session, Path(args.records), usage)
            except (WorkflowFormatError, YamlEditError) as exc:
                print(f"reuseit promote: {path}:\n" + "\n".join(f"  {p}" for p in exc.problems), file=sys.stderr)
                status = 1
                continue
            print(f"{path}:")
            for line in summary(results) or ["no checks written only in words"]:
                print(f"  {line}")
            if text != doc.original:
                sys.stdout.write(doc.diff(text))
                if args.apply:
                    write_text_atomic(path, text)
                    print(f"wrote {path}")
    except (ModelUnavailable, BrokenRun) as exc:
        print(f"reuseit promote: {exc}", file=sys.stderr)
        return 1
    finally:
        session.close()
    print(f"model: {usage.calls} call(s), {usage.cache_hits} cached, ${usage.cost:.4f}")
    if not args.apply:
        print("(a dry run: nothing written; --apply writes the files)")
    return status


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("promote", help="turn checks in words into DOM assertions verified on the recorded pages")
    p.add_argument("files", nargs="*", help="workflow files or folders [.]")
    p.add_argument("--apply", action="store_true", help="write the files (default: show the diff)")
    p.add_argument("--records", default=DEFAULT_DIR, help=f"folder of the judged pages [{DEFAULT_DIR}]")
    p.add_argument("--model", default=default("model"), help="model name")
    p.add_argument("--cache", default=default("cache"), help="model response cache folder")
    p.add_argument("--browser-path", default="", help="Chromium executable")
    p.set_defaults(func=cmd_promote)
