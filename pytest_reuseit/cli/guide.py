"""``reuseit guide FILE "GUIDANCE"``: fold guidance into a workflow's checks and fallbacks."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..atomic import write_text_atomic
from ..authoring.guide import NO_ENDPOINT, GuideError, GuideResult, guide
from ..authoring.yamledit import YamlEditError
from ..engine.result import ModelUsage
from ..errors import WorkflowFormatError
from ..llm.client import LlmClient, LlmConfig, ModelUnavailable, endpoint_configured
from ..llm.schemas import GuidanceEdits
from ..settings import default


def _read_guidance(arg: str) -> str:
    return sys.stdin.read() if arg == "-" else arg


def cmd_guide(args: argparse.Namespace) -> int:
    path = Path(args.file)
    guidance = _read_guidance(args.guidance).strip()
    if not guidance:
        print("reuseit guide: the guidance is empty", file=sys.stderr)
        return 2
    if not path.is_file():
        print(f"reuseit guide: {path} is not a file", file=sys.stderr)
        return 2
    if not endpoint_configured():
        print(NO_ENDPOINT, file=sys.stderr)
        return 2
    client = LlmClient(LlmConfig(model=args.model, mode="auto", cache_dir=args.cache))
    usage = ModelUsage()
    try:
        answer, result = guide(path, guidance, client, usage)
    except ModelUnavailable as exc:
        print(f"reuseit guide: the model is unavailable: {exc}", file=sys.stderr)
        return 1
    except WorkflowFormatError as exc:
        print(f"reuseit guide: {path} is not a valid workflow; fix it first (reuseit validate):", file=sys.stderr)
        for p in exc.problems:
            print(f"  {p}", file=sys.stderr)
        return 1
    except YamlEditError as exc:
        print(
            "reuseit guide: cannot apply the edits (nothing was changed):\n"
            + "\n".join(f"  {p}" for p in exc.problems),
            file=sys.stderr,
        )
        return 1
    except GuideError as exc:
        print(f"reuseit guide: {exc}", file=sys.stderr)
        return 1
    return _show(args, path, answer, result, usage)


def _show(args: argparse.Namespace, path: Path, answer: GuidanceEdits, result: GuideResult, usage: ModelUsage) -> int:
    """Print what the model proposed and the diff; write the file with --apply."""
    source = (
        "cached answer"
        if usage.cache_hits and not usage.calls
        else f"{usage.calls} call, {usage.prompt_tokens + usage.completion_tokens} tokens"
    )
    print(f"model ({args.model}, {source}): {answer.summary}")
    for line in result.changes:
        print(f"  {line}")
    for line in result.skipped:
        print(f"  skipped: {line}")
    if result.text == result.doc.original:
        print("nothing to change")
        return 0
    if not result.doc.exact:
        print("note: writing the file back changes some untouched formatting (see the diff)")
    sys.stdout.write(result.doc.diff(result.text))
    if args.apply:
        write_text_atomic(path, result.text)
        print(f"wrote {path}")
    else:
        print(f"dry run: add --apply to write {path}")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "guide", help="fold guidance (or a pasted failure analysis) into a workflow's checks and fallbacks"
    )
    p.add_argument("file", help="the workflow file")
    p.add_argument("guidance", help='the guidance in words, quoted; "-" reads it from standard input')
    p.add_argument("--apply", action="store_true", help="write the file (default: only show the diff)")
    p.add_argument(
        "--model",
        default=os.environ.get("REUSEIT_MODEL") or default("model"),
        help=f"model name [$REUSEIT_MODEL or {default('model')}]",
    )
    p.add_argument(
        "--cache",
        default=os.environ.get("REUSEIT_CACHE") or default("cache"),
        help=f"folder of the model response cache [$REUSEIT_CACHE or {default('cache')}]",
    )
    p.set_defaults(func=cmd_guide)
