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
from ..authoring.history_edits import Cause
from ..authoring.yamledit import WorkflowDoc, YamlEditError, unified_diff
from ..engine.analysis import changes_sentence
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
    its edits. Returns (edits that could not be made, files changed or to change).

    Each file is loaded once: a second cause's hunk in it is the diff from the file as the first
    cause left it, and what is written is the file with every edit."""
    errors = 0
    docs: dict[Path, tuple[WorkflowDoc, str]] = {}  # path -> its document, and its text so far
    for cause in causes:
        if cause.kind == "check":
            _regression(cause)
            continue
        print(f"cause: {cause.summary} ({cause.files} file{'s' if cause.files != 1 else ''}; proven by the history)")
        print(f"  {_evidence(cause)}")
        for note in cause.notes:
            print(f"  {note}")
        for edit in cause.edits:
            key = edit.path.resolve()
            if key not in docs and not edit.path.exists():
                print(f"  cannot heal: {edit.file} does not exist (any more)")
                errors += 1
                continue
            try:
                doc, before = docs[key] if key in docs else (WorkflowDoc.load(edit.path, display=edit.file), "")
                before = before or doc.original
                change = history_edits.apply(doc, edit)
                text = doc.validated()[0] if change else before
            except YamlEditError as exc:
                print("\n".join(f"  {p}" for p in exc.problems))
                errors += 1
                continue
            if not change:
                print(f"  {edit.file}: already says this")
                continue
            docs[key] = (doc, text)
            print(f"  {edit.file}: {change}")
            sys.stdout.write(unified_diff(before, text, edit.file))
    if apply:
        for path, (doc, text) in docs.items():
            write_text_atomic(path, text)
            print(f"wrote {doc.path}")
    return errors, set(docs)


def _regression(cause: Cause) -> None:
    """A check the history explains: never changed here, said as what it may be."""
    for edit in cause.edits:
        print(f"possible regression, not applied: {edit.where}: {edit.summary}")
        print(f"  {_evidence(cause)}")
        print("  if the site changed this on purpose, edit the check by hand; if not, this is the bug to report")


def _evidence(cause: Cause) -> str:
    """The lines of the page that left and appeared since the last pass, in the words the
    failure's own analysis uses."""
    return changes_sentence({"removed": cause.removed, "added": cause.added, "since": cause.since})


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
        help=f"healing suggestions written by pytest, or by `reuseit report` beside since-last.json [{DEFAULT_HEALING}]",
    )
    p.add_argument("--apply", action="store_true", help="write the files (default: only show the diff)")
    p.set_defaults(func=cmd_heal)
