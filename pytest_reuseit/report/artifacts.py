"""Writing a run's screenshots and result file to its own folder under the output directory."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

from ..engine.result import RunResult

log = logging.getLogger(__name__)


def slug(text: str) -> str:
    """A folder name from a node id: ``workflows/a.reuseit.yaml::a[x]`` → ``workflows-a.reuseit.yaml-a-x``."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")[:150] or "run"


def write(result: RunResult, folder: Path) -> Path:
    """Write every screenshot (numbered in the order taken) and ``result.json``; set their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    for n, shot in enumerate(result.screenshots(), start=1):
        ext = "jpg" if shot.mime == "image/jpeg" else "png"
        path = folder / f"{n:02d}-{slug(shot.label)}.{ext}"
        path.write_bytes(shot.data)
        shot.path = str(path)
    result.artifacts_dir = str(folder)
    (folder / "result.json").write_text(json.dumps(result.to_dict(), indent=2, default=str), encoding="utf-8")
    return folder
