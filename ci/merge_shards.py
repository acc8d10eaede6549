"""Merge what the shards of a nightly run left, for one report and the next run.

    python ci/merge_shards.py SHARD_DIR... [--results allure-results] [--cache .reuseit/cache]
                              [--durations .test_durations]

Each SHARD_DIR is one shard's download (the CI's artifact of that matrix job) holding any of:

- ``allure-results/``: that shard's Allure result files. Their names are unique (UUIDs), so the
  merged folder is their union, and ``reuseit report`` builds one report from it.
- ``cache/``: the model response cache as the shard left it. An entry's file name is the hash of
  everything that decides the answer, so two shards that wrote the same name asked the same
  question; the entry already in the merged cache is kept (both are valid answers).
- ``durations.json``: the durations of the tests the shard ran (pytest-split
  ``--store-durations --clean-durations`` writes only those). Merged over the old file, so tests
  that did not run this time keep their last duration.

Files are copied with an atomic rename, so a merge that stops half-way leaves whole files only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path


def _copy_atomic(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{dst.name}.", suffix=".tmp", dir=str(dst.parent))
    os.close(fd)
    try:
        shutil.copyfile(src, tmp)
        os.replace(tmp, dst)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def merge_tree(sources: list[Path], target: Path, *, overwrite: bool) -> int:
    """Copy every file under each source into ``target`` (same relative path); returns how many
    were copied. Lock files and temporary files of an interrupted write are skipped."""
    copied = 0
    for source in sources:
        if not source.is_dir():
            continue
        for path in sorted(source.rglob("*")):
            if not path.is_file() or path.name.endswith((".lock", ".tmp")):
                continue
            dst = target / path.relative_to(source)
            if dst.exists() and not overwrite:
                continue
            _copy_atomic(path, dst)
            copied += 1
    return copied


def merge_durations(files: list[Path], target: Path) -> int:
    """The old durations updated with every shard's; returns how many tests the shards timed."""
    merged: dict[str, float] = {}
    if target.is_file():
        merged.update(json.loads(target.read_text(encoding="utf-8")))
    timed = 0
    for path in files:
        if path.is_file():
            shard = json.loads(path.read_text(encoding="utf-8"))
            merged.update(shard)
            timed += len(shard)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=str(target.parent))
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(merged, fh, indent=1, sort_keys=True)
    os.replace(tmp, target)
    return timed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("shards", nargs="+", type=Path, help="one folder per shard")
    ap.add_argument("--results", type=Path, default=Path("allure-results"))
    ap.add_argument("--cache", type=Path, default=Path(".reuseit/cache"))
    ap.add_argument("--durations", type=Path, default=Path(".test_durations"))
    args = ap.parse_args(argv)
    missing = [str(s) for s in args.shards if not s.is_dir()]
    if missing:
        print(f"merge_shards: not a folder: {', '.join(missing)} (a shard that left nothing?)", file=sys.stderr)
    results = merge_tree([s / "allure-results" for s in args.shards], args.results, overwrite=True)
    cache = merge_tree([s / "cache" for s in args.shards], args.cache, overwrite=False)
    timed = merge_durations([s / "durations.json" for s in args.shards], args.durations)
    print(
        f"merged {len(args.shards)} shards: {results} result files into {args.results}, "
        f"{cache} new cache entries into {args.cache}, durations of {timed} tests into {args.durations}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
