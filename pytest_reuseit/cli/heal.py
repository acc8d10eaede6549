"""``reuseit heal``: show (and with ``--apply`` write) the locators self-healing found."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..atomic import write_text_atomic
from ..authoring.heal import HealingFileError, heal_file, plan, read_suggestions
from ..authoring.yamledit import YamlEditError
from ..settings import default

# Where a pytest run with the default --reuseit-output writes its healing suggestions.
DEFAULT_HEALING = f"{default('output')}/healing.json"


def cmd_heal(args: argparse.Namespace) -> int:
    healing = Path(args.source)
    try:
        suggestions = read_suggestions(healing)
    except HealingFileError as exc:
        print(f"reuseit heal: {exc}", file=sys.stderr)
        return 2
    plans = plan(suggestions, healing, args.files)
    if not plans:
        scope = f" for {', '.join(args.files)}" if args.files else ""
        print(f"no healing suggestions{scope} in {healing}")
        return 0
    errors = 0
    changed = 0
    for fp in plans:
        print(f"== {fp.shown}")
        if not fp.path.exists():
            print(f"  cannot heal: {fp.shown} does not exist (any more)")
            errors += 1
            continue
        try:
            doc, text, changes = heal_file(fp)
        except YamlEditError as exc:
            print("  cannot heal:\n" + "\n".join(f"    {p}" for p in exc.problems))
            errors += 1
            continue
        for line in changes:
            print(f"  {line}")
        for note in fp.notes:
            print(f"  {note}")
        if text == doc.original:
            print("  nothing to change")
            continue
        if not doc.exact:
            print("  note: writing the file back changes some untouched formatting (see the diff)")
        sys.stdout.write(doc.diff(text))
        changed += 1
        if args.apply:
            write_text_atomic(fp.path, text)
            print(f"  wrote {fp.shown}")
    if changed and not args.apply:
        print(f"dry run: {changed} file(s) would change; add --apply to write them")
    return 1 if errors else 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("heal", help="write the locators that self-healing found back into workflow files")
    p.add_argument("files", nargs="*", help="only these workflow files or folders (default: every file named)")
    p.add_argument(
        "--from",
        dest="source",
        default=DEFAULT_HEALING,
        metavar="PATH",
        help=f"healing suggestions written by pytest [{DEFAULT_HEALING}]",
    )
    p.add_argument("--apply", action="store_true", help="write the files (default: only show the diff)")
    p.set_defaults(func=cmd_heal)
