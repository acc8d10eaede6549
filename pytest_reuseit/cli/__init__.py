"""The ``reuseit`` command: schema and validate here, every other command in its own module of this package."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..errors import WorkflowFormatError
from ..sites import LocalSites
from ..workflow.loader import FILE_PATTERNS, load
from ..workflow.schema import schema_text
from . import experience, guide, heal, import_cmd, mutate, promote, report, synthesize, trace
from .output import stdout_gone


def _expand(paths: list[str]) -> list[Path]:
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files.extend(sorted(f for pattern in FILE_PATTERNS for f in p.rglob(pattern)))
        else:
            files.append(p)
    return files


def cmd_schema(args: argparse.Namespace) -> int:
    text = schema_text()
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"wrote {args.output}")
    else:
        sys.stdout.write(text)
    return 0


def _ops_conftests(file: Path) -> list[Path]:
    """The conftest.py files over ``file`` that register a suite's own ops: pytest loads them, this
    command does not (it would have to start pytest's plugins), so a file using one reads invalid."""
    found = []
    for folder in file.resolve().parents:
        conftest = folder / "conftest.py"
        try:
            if "def pytest_reuseit_ops" in conftest.read_text(encoding="utf-8", errors="replace"):
                found.append(conftest)
        except OSError:
            continue
    return found


def cmd_validate(args: argparse.Namespace) -> int:
    files = _expand(args.files)
    if not files:
        print(f"no workflow files found ({' / '.join(FILE_PATTERNS)})", file=sys.stderr)
        return 2
    bad = 0
    own_ops: dict[Path, None] = {}  # the conftests that register ops, over an invalid file
    for f in files:
        try:
            loaded = load(f, builtin_names=LocalSites.NAMES)
        except WorkflowFormatError as exc:
            bad += 1
            print(f"INVALID {f}")
            for problem in exc.problems:
                print(f"  {problem}")
            own_ops.update(dict.fromkeys(_ops_conftests(f)))
            continue
        unset = loaded.unset_variables(os.environ)
        if unset:  # a run would stop at its start: say it now, before a browser starts
            bad += 1
            print(f"INVALID {f}")
            for problem in unset:
                print(f"  {problem}")
            continue
        wf = loaded.workflow
        print(f"ok      {f}: '{wf.name}', {len(wf.steps)} steps, {len(wf.all_variations())} variation(s)")
    print(f"{len(files) - bad} valid, {bad} invalid")
    for conftest in own_ops:
        print(
            f"note: {conftest} registers the suite's own ops (pytest_reuseit_ops), which this command "
            "does not know: run pytest on the files to check them with those ops (an invalid file fails at once, before "
            "a browser starts)"
        )
    return 1 if bad else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="reuseit", description="Guarded web workflows: validate, report, synthesize.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("schema", help="print the JSON Schema of workflow files")
    p.add_argument("-o", "--output", help="write it to this file instead")
    p.set_defaults(func=cmd_schema)
    p = sub.add_parser("validate", help="check workflow files without running them")
    p.add_argument("files", nargs="+", help="files or folders")
    p.set_defaults(func=cmd_validate)
    report.register(sub)
    trace.register(sub)
    heal.register(sub)
    guide.register(sub)
    promote.register(sub)
    experience.register(sub)
    synthesize.register(sub)
    mutate.register(sub)
    import_cmd.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        code = _main(argv)
        sys.stdout.flush()  # here, not at exit, where a closed reader would print a traceback
        return code
    except BrokenPipeError:
        # Whoever read the output went away (`reuseit ... | head -1`) while a command printed:
        # say nothing more. 141 is what a shell reports for it.
        stdout_gone()
        return 141


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    passed_on: list[str] = []
    if argv[:1] == ["mutate"] and "--" in argv:
        # Everything after -- is for each pytest session the command starts.
        cut = argv.index("--")
        argv, passed_on = argv[:cut], argv[cut + 1 :]
    args = parser.parse_args(argv)
    if passed_on:
        args.pytest_args = passed_on
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
