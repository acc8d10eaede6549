"""The project a ``reuseit`` command runs in, found as pytest finds it: the rootdir and its ini.

The plugin resolves a project file (the nightly history) from pytest's rootdir; a command must
resolve it from the same folder, or a team that runs ``pytest`` and ``reuseit report`` from two
folders of one project writes two histories. pytest's own search is private API, so this is that
search, for the case a command has: pytest run here with no arguments. From the folder upwards,
the first folder with ``pytest.ini`` or ``.pytest.ini``, ``pyproject.toml`` with a
``[tool.pytest.ini_options]`` (or ``[tool.pytest]``) table, ``tox.ini`` with ``[pytest]`` or
``setup.cfg`` with ``[tool:pytest]`` is the rootdir, and that file's options are the ini's; else
the first folder with a ``pyproject.toml`` or ``setup.py``; else the folder itself.
"""

from __future__ import annotations

import configparser
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .report import history

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest depends on tomli below 3.11, and reads its pyproject.toml with it
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]


@dataclass(frozen=True)
class Project:
    root: Path
    ini: dict[str, str] = field(default_factory=dict)


def _ini_file(folder: Path) -> dict[str, str] | None:
    """The pytest options of the first config file of ``folder`` that holds them, else None."""
    for name, section in (("pytest.ini", "pytest"), (".pytest.ini", "pytest")):
        path = folder / name
        if path.is_file():
            return _cfg(path, section) or {}
    path = folder / "pyproject.toml"
    if path.is_file():
        try:
            tool = tomllib.loads(path.read_text(encoding="utf-8")).get("tool", {})
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            tool = {}
        table: Any = tool.get("pytest", {}) if isinstance(tool, dict) else {}
        if isinstance(table, dict) and table:
            options = table.get("ini_options", table)
            return {str(k): str(v) for k, v in options.items()} if isinstance(options, dict) else {}
    for name, section in (("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")):
        path = folder / name
        if path.is_file():
            found = _cfg(path, section)
            if found is not None:
                return found
    return None


def _cfg(path: Path, section: str) -> dict[str, str] | None:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(path, encoding="utf-8")
    except (OSError, UnicodeDecodeError, configparser.Error):
        return None
    return dict(parser[section]) if parser.has_section(section) else None


def find(start: Path | None = None) -> Project:
    """The project pytest would see when run in ``start`` (default: here) with no arguments."""
    here = (start or Path.cwd()).resolve()
    folders = [here, *here.parents]
    for folder in folders:
        ini = _ini_file(folder)
        if ini is not None:
            return Project(folder, ini)
    for folder in folders:
        if (folder / "pyproject.toml").is_file() or (folder / "setup.py").is_file():
            return Project(folder)
    return Project(here)


def history_file(given: str | None = None, start: Path | None = None) -> Path:
    """The nightly history a command uses: ``given`` (a path on its command line, from here), else
    the one the plugin reads for pytest run here: ini ``reuseit_history``, then ``$REUSEIT_HISTORY``,
    then the default, relative to the rootdir (the plugin's order: ini before environment)."""
    if given:
        return Path(given)
    project = find(start)
    value = project.ini.get("reuseit_history") or os.environ.get(history.ENV) or history.DEFAULT_PATH
    return project.root / value
