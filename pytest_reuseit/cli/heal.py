"""``reuseit heal``: show (and with ``--apply`` write) the edits runs proposed for workflow files:
the edits the history proves (a renamed element, a dialog to dismiss), one diff per cause, and
the locators self-healing found."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from ..atomic import write_text_atomic
from ..authoring import history_edits
from ..authoring.heal import HealingFileError, heal_file, plan, read_healing, selected
from ..authoring.history_edits import Cause, HistoryEdit
from ..authoring.yamledit import WorkflowDoc, YamlEditError, unified_diff
from ..engine.analysis import changes_sentence
from ..settings import default
from .heal_verify import Run, runs_of
from .heal_verify import verify as check

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
    errors, changed = _history(
        history_edits.group(proven), apply=args.apply, verify=args.verify, healing=healing, base_url=args.base_url
    )
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


Docs = dict[Path, tuple[WorkflowDoc, str]]  # path -> its document, and its text so far


def _history(
    causes: list[Cause], *, apply: bool, verify: bool = False, healing: Path = Path(), base_url: str = ""
) -> tuple[int, set[Path]]:
    """Show each cause with one diff per file (every place of the cause in it); with ``apply``,
    write every file once with all of its edits; with ``verify``, first run the workflows the
    edits touch from a copy and keep only the causes the site confirms. Returns (edits that could
    not be made or were not confirmed, files changed or to change).

    Each file is loaded once: a second cause's hunk in it is the diff from the file as the first
    cause left it, and what is written is the file with every edit."""
    errors, docs, made = _edit(causes, say=print)
    refused: dict[str, list[Run]] = {}
    if verify and made:
        runs = runs_of([c for c in causes if c.key in made], healing, base_url)
        check(runs, {path: text for path, (_, text) in docs.items()})
        for run in runs:
            if not run.ok:
                for key in run.causes:
                    refused.setdefault(key, []).append(run)
        for cause in causes:
            if cause.key in refused:
                print(
                    f"not written: {cause.summary}: " + "; ".join(f"{r.shown}: {r.reason}" for r in refused[cause.key])
                )
                errors += 1
            elif cause.key in made:
                print(f"confirmed by the site: {cause.summary}")
        if refused:  # the files again, with the confirmed causes' edits only
            _, docs, _ = _edit([c for c in causes if c.key not in refused], say=lambda _: None)
    if apply:
        for path, (doc, text) in docs.items():
            write_text_atomic(path, text)
            print(f"wrote {doc.path}")
    return errors, set(docs)


def _edit(causes: list[Cause], say: Callable[[str], None]) -> tuple[int, Docs, set[str]]:
    """Make every cause's edits in documents (nothing written); say each cause, its places and
    diffs. Returns (edits that could not be made, the documents, the causes that change a file)."""
    errors = 0
    docs: Docs = {}
    made: set[str] = set()
    for cause in causes:
        if cause.kind == "check":
            _regression(cause, say)
            continue
        files, places = cause.files, cause.places
        say(
            f"cause: {cause.summary} ({files} file{'s' if files != 1 else ''}"
            + (f", {places} places" if places != files else "")
            + "; proven by the history)"
        )
        say(f"  {_evidence(cause)}")
        for note in cause.notes:
            say(f"  {note}")
        by_file: dict[Path, list[HistoryEdit]] = {}
        for edit in cause.changes:
            by_file.setdefault(edit.path.resolve(), []).append(edit)
        for key, edits in by_file.items():
            failed, changed = _edit_file(docs, key, edits, say)
            errors += failed
            if changed:
                made.add(cause.key)
        for edit in cause.regressions:
            say(f"  possible regression, not applied: {edit.where}: {edit.summary}")
    return errors, docs, made


def _edit_file(docs: Docs, key: Path, edits: list[HistoryEdit], say: Callable[[str], None]) -> tuple[int, bool]:
    """One cause's edits of one file, shown as one hunk. Returns (edits not made, file changed)."""
    first = edits[0]
    if key not in docs and not first.path.exists():
        say(f"  cannot heal: {first.file} does not exist (any more)")
        return len(edits), False
    try:
        doc, before = docs[key] if key in docs else (WorkflowDoc.load(first.path, display=first.file), "")
    except YamlEditError as exc:
        say("\n".join(f"  {p}" for p in exc.problems))
        return len(edits), False
    before = before or doc.original
    errors, changes = 0, []
    for edit in edits:
        try:
            change = history_edits.apply(doc, edit)
        except YamlEditError as exc:
            say("\n".join(f"  {p}" for p in exc.problems))
            errors += 1
            continue
        if not change:
            say(f"  {edit.file}: already says this")
        changes.append(change)
    if not any(changes):
        return errors, False
    try:
        text = doc.validated()[0]
    except YamlEditError as exc:
        say("\n".join(f"  {p}" for p in exc.problems))
        return errors + 1, False
    docs[key] = (doc, text)
    for change in filter(None, changes):
        say(f"  {first.file}: {change}")
    say(unified_diff(before, text, first.file).rstrip("\n"))
    return errors, True


def _regression(cause: Cause, say: Callable[[str], None]) -> None:
    """A check the history explains: never changed here, said as what it may be."""
    for edit in cause.edits:
        say(f"possible regression, not applied: {edit.where}: {edit.summary}")
        say(f"  {_evidence(cause)}")
        say("  if the site changed this on purpose, edit the check by hand; if not, this is the bug to report")


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
    p.add_argument(
        "--verify",
        action="store_true",
        help="first run each workflow a proven edit touches, once, from a copy with the edits, against the site "
        "its failing run used; write only the edits whose workflows then pass",
    )
    p.add_argument(
        "--base-url", default="", help="with --verify: the site to run against (default: the failing run's base URL)"
    )
    p.set_defaults(func=cmd_heal)
