"""``reuseit heal``: show (and with ``--apply`` write) the edits runs proposed for workflow files:
the edits the history proves (a renamed element, a dialog to dismiss), one diff per cause, and
the locators self-healing found."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..atomic import write_text_atomic
from ..authoring import history_edits
from ..authoring.heal import HealingFileError, heal_file, plan, read_healing, selected
from ..authoring.history_edits import Cause, HistoryEdit
from ..authoring.yamledit import WorkflowDoc, YamlEditError
from ..settings import default

# Where a pytest run with the default --reuseit-output writes its healing suggestions.
DEFAULT_HEALING = f"{default('output')}/healing.json"


def cmd_heal(args: argparse.Namespace) -> int:
    healing = Path(args.source)
    try:
        suggestions, proven = read_healing(healing)
    except HealingFileError as exc:
        print(f"reuseit heal: {exc}", file=sys.stderr)
        return 2
    wanted = [Path(f).resolve() for f in args.files]
    proven = [e for e in proven if selected(e.path, wanted)]
    plans = plan(suggestions, healing, args.files)
    if not plans and not proven:
        scope = f" for {', '.join(args.files)}" if args.files else ""
        print(f"no healing suggestions{scope} in {healing}")
        return 0
    errors, changed = _history(history_edits.group(proven), apply=args.apply)
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
        changed.add(fp.path.resolve())
        if args.apply:
            write_text_atomic(fp.path, text)
            print(f"  wrote {fp.shown}")
    if changed and not args.apply:
        print(f"dry run: {len(changed)} file(s) would change; add --apply to write them")
    return 1 if errors else 0


def _history(causes: list[Cause], *, apply: bool) -> tuple[int, set[Path]]:
    """Show each cause with its diff per file; with ``apply``, write every file once with all of
    its edits. Returns (edits that could not be made, files changed or to change)."""
    errors = 0
    to_write: dict[Path, list[HistoryEdit]] = {}
    for cause in causes:
        if cause.kind == "check":
            _regression(cause)
            continue
        print(f"cause: {cause.summary} ({cause.files} file{'s' if cause.files != 1 else ''}; proven by the history)")
        print(f"  {_evidence(cause)}")
        for note in cause.notes:
            print(f"  {note}")
        for edit in cause.edits:
            if not edit.path.exists():
                print(f"  cannot heal: {edit.file} does not exist (any more)")
                errors += 1
                continue
            try:
                doc = WorkflowDoc.load(edit.path, display=edit.file)
                change = history_edits.apply(doc, edit)
                text, _ = doc.validated() if change else (doc.original, None)
            except YamlEditError as exc:
                print("\n".join(f"  {p}" for p in exc.problems))
                errors += 1
                continue
            if not change:
                print(f"  {edit.file}: already says this")
                continue
            print(f"  {edit.file}: {change}")
            sys.stdout.write(doc.diff(text))
            to_write.setdefault(edit.path.resolve(), []).append(edit)
    if apply:
        for path, edits in to_write.items():
            try:
                doc = WorkflowDoc.load(path, display=edits[0].file)
                for edit in edits:
                    history_edits.apply(doc, edit)
                text, _ = doc.validated()
            except YamlEditError as exc:  # each edit went in alone; together they do not
                print(f"cannot heal {edits[0].file}:\n" + "\n".join(f"  {p}" for p in exc.problems))
                errors += 1
                continue
            write_text_atomic(path, text)
            print(f"wrote {edits[0].file}")
    return errors, set(to_write)


def _regression(cause: Cause) -> None:
    """A check the history explains: never changed here, said as what it may be."""
    for edit in cause.edits:
        print(f"possible regression, not applied: {edit.where}: {edit.summary}")
        print(f"  {_evidence(cause)}")
        print("  if the site changed this on purpose, edit the check by hand; if not, this is the bug to report")


def _evidence(cause: Cause) -> str:
    """The lines of the page that left and appeared since the last pass, in one line."""
    since = f" ({cause.since[:16].replace('T', ' ')})" if cause.since else ""
    parts = []
    if cause.removed:
        parts.append("gone: " + "; ".join(line.removeprefix("- ") for line in cause.removed[:3]))
    if cause.added:
        parts.append("new: " + "; ".join(line.removeprefix("- ") for line in cause.added[:3]))
    return f"since the last pass{since}: " + (", ".join(parts) if parts else "the page reads the same")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "heal",
        help="write into workflow files the edits runs proposed: what the history proves, what self-healing found",
    )
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
