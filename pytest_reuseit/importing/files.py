"""The files a source uploads, copied beside the workflow it becomes (``files/NAME``).

A written workflow says ``upload: {..., files: [files/orders.csv]}``, relative to its own folder,
and the runner refuses a file whose upload is not there. So the import puts each file there,
from where the source says it is, in this order:

- the bytes the source itself keeps (a trace of ``set_input_files`` given a buffer: the call's
  ``payloads``);
- the path the source names (a trace's ``localPaths``, a codegen file's ``files``), read only
  when it is a regular file under the folder the import runs in (the project whose tests made
  the trace) or the source's own folder: a source cannot make the import copy a file from
  anywhere else on this machine (``~/.ssh/...``) into a folder that may be committed;
- a file already at ``files/NAME`` (put there by hand after the import said it was missing).

Bounded like every other input: each file and all of one source's together have a size limit
checked before they are read; a name that is no plain file name (``../x``, ``a/b``, a control
character) is refused; nothing is written outside ``DIR/files`` or through a link. A file found
nowhere, or past a limit, refuses the source with one line saying which and where to put it.
A file already there with other bytes is replaced only with ``--force``.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from pathlib import Path

from ..atomic import write_bytes_atomic
from .demo import Demonstration, UnreadableInput, Upload

FILES = "files"  # the folder beside the workflow files, as the workflow names it
MB = 1024 * 1024
MAX_UPLOAD_BYTES = 16 * MB  # one file a source uploads
MAX_ALL_UPLOADS_BYTES = 64 * MB  # all of one source's
MAX_NAME_BYTES = 255  # a file name, as file systems allow

# Control characters, and the line and paragraph separators that YAML and terminals treat as breaks.
_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]")


def base_name(path: str) -> str:
    """The file name of a path written on any system (``C:\\data\\orders.csv`` too)."""
    return re.split(r"[\\/]", path)[-1]


def plain_name(name: str) -> bool:
    """Whether ``name`` is a file name and nothing more: no folder, no way out, nothing hidden in it."""
    return (
        bool(name.strip())
        and name not in (".", "..")
        and not name.startswith(".")
        and "/" not in name
        and "\\" not in name
        and name == name.strip()
        and not _UNSAFE.search(name)
        and len(name.encode("utf-8", "surrogatepass")) <= MAX_NAME_BYTES
    )


@dataclass(frozen=True)
class Planned:
    """One file to put beside the workflow: where, and its bytes (None: it is there already)."""

    name: str
    target: Path
    data: bytes | None


def plan(source: Path, demo: Demonstration, output: Path, *, force: bool) -> list[Planned]:
    """The files ``demo`` uploads, each with its bytes, read within the limits; UnreadableInput
    (one line naming the source and the file) for one that cannot be had or may not be written."""
    uploads = [f for step in demo.steps if step.kind == "upload" for f in step.files]
    if not uploads:
        return []
    folder = output / FILES
    _check_folder(source, output, folder)
    roots = _roots(source)
    planned: dict[str, Planned] = {}
    total = 0
    for upload in uploads:
        name = upload.name
        if not plain_name(name):
            raise UnreadableInput(
                f"{source}: it uploads a file named {name[:80]!r}, which is no plain file name "
                "(a folder, a way out of the output folder or a control character in it): not copied"
            )
        data = _bytes(source, upload, roots)
        target = folder / name
        if target.is_symlink():
            raise UnreadableInput(f"{source}: {target} is a link: the file it uploads is not written through it")
        if data is None:
            if not target.is_file():
                raise UnreadableInput(f"{source}: {_missing(upload, roots)}: put it at {target} and import again")
        elif name in planned and planned[name].data not in (None, data):
            raise UnreadableInput(f"{source}: it uploads two different files named {name!r}")
        elif target.is_file() and not force and _differs(target, data):
            raise UnreadableInput(
                f"{source}: {target} exists with other bytes than the file it uploads (--force replaces it)"
            )
        if data is not None:
            total += len(data) if name not in planned else 0
            if total > MAX_ALL_UPLOADS_BYTES:
                raise UnreadableInput(
                    f"{source}: the files it uploads are over the limit of {MAX_ALL_UPLOADS_BYTES // MB} MB together"
                )
        if name not in planned or data is not None:
            planned[name] = Planned(name, target, data)
    return list(planned.values())


def copy(planned: list[Planned]) -> list[Path]:
    """Writes the planned files; returns those it created (to be removed if the import of the
    source then fails)."""
    created: list[Path] = []
    for one in planned:
        if one.data is None:
            continue
        new = not one.target.exists()
        write_bytes_atomic(one.target, one.data)  # a link that appeared there meanwhile: replaced, not followed
        if new:
            created.append(one.target)
    return created


def remove(created: list[Path]) -> None:
    for path in created:
        try:
            path.unlink()
        except OSError:
            pass


def _check_folder(source: Path, output: Path, folder: Path) -> None:
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise UnreadableInput(f"{source}: {folder} is not a folder of its own: the files it uploads are not written")
    if folder.exists() and not folder.resolve().is_relative_to(output.resolve()):
        raise UnreadableInput(f"{source}: {folder} leads out of {output}: the files it uploads are not written")


def _roots(source: Path) -> tuple[Path, ...]:
    """The folders a file a source names may be read from: where the import runs, the source's own."""
    return tuple(dict.fromkeys(p.resolve() for p in (Path.cwd(), source.parent)))


def _bytes(source: Path, upload: Upload, roots: tuple[Path, ...]) -> bytes | None:
    """The file's bytes: kept in the source, else read from the path it names (under one of
    ``roots``); None when neither has them."""
    if upload.base64:
        if len(upload.base64) > (MAX_UPLOAD_BYTES + 2) * 4 // 3 + 4:
            raise UnreadableInput(f"{source}: the file {upload.name!r} it uploads is over the limit of {_mb()}")
        try:
            return base64.b64decode(upload.base64, validate=True)
        except (binascii.Error, ValueError):
            raise UnreadableInput(f"{source}: the bytes it keeps of {upload.name!r} are not base64") from None
    if not upload.path:
        return None
    path = _allowed(upload.path, roots)
    if path is None:
        return None
    size = path.stat().st_size
    if size > MAX_UPLOAD_BYTES:
        raise UnreadableInput(f"{source}: the file it uploads, {path}, is over the limit of {_mb()} ({size:,} bytes)")
    with path.open("rb") as f:
        data = f.read(MAX_UPLOAD_BYTES + 1)
    if len(data) > MAX_UPLOAD_BYTES:  # it grew while being read
        raise UnreadableInput(f"{source}: the file it uploads, {path}, is over the limit of {_mb()}")
    return data


def _allowed(named: str, roots: tuple[Path, ...]) -> Path | None:
    """The regular file at ``named``, links resolved, when it lies under one of ``roots``."""
    try:
        path = Path(named)
        if not path.is_absolute():
            path = Path.cwd() / path
        path = path.resolve()
        if not path.is_file() or not any(path.is_relative_to(root) for root in roots):
            return None
        return path
    except (OSError, ValueError, RuntimeError):  # a name the system cannot look up, a link loop
        return None


def _missing(upload: Upload, roots: tuple[Path, ...]) -> str:
    """Why a file it uploads cannot be copied, in words."""
    if not upload.path:
        return f"it uploads {upload.name!r}, whose bytes it does not keep"
    where = upload.path[:300]
    try:
        path = Path(upload.path).resolve()
        found = path.is_file()
        inside = any(path.is_relative_to(root) for root in roots)
    except (OSError, ValueError, RuntimeError):
        found = inside = False
    if found and not inside:
        folders = " or ".join(str(r) for r in roots)
        return f"it uploads {where}, which is outside {folders}: not copied from there"
    return f"it uploads {where}, which cannot be found"


def _differs(target: Path, data: bytes) -> bool:
    try:
        return target.stat().st_size != len(data) or target.read_bytes() != data
    except OSError:
        return True


def _mb() -> str:
    return f"{MAX_UPLOAD_BYTES // MB} MB"
