"""Writing a file in one step: a reader (another test worker, the next run after a crash) sees the
old content or the new one, never half of it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_text_atomic(path: str | Path, text: str) -> None:
    """Replace ``path``'s content with ``text`` (temp file beside it + ``os.replace``).

    The folder is created if needed; an existing file keeps its permissions. Line endings in
    ``text`` are written as they are.
    """
    write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """Replace ``path``'s content with ``data``, as :func:`write_text_atomic` does. A link at
    ``path`` is replaced by the file, never written through."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=str(target.parent))
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        try:
            os.chmod(tmp, target.stat().st_mode & 0o7777)
        except OSError:  # a new file: the temp file's own mode
            pass
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
