"""What an import source gives the pipeline: how to tell its files, and how to read one.

Each family of sources (``playwright/``, ``chrome/``, ``selenium/``) declares its sources as
:class:`Source` values in its ``__init__.py``; ``registry.py`` lists the families, in the order a
file given by name is offered to them. Everything after reading (locators, derivation, the file
written) knows only the :class:`~.demo.Demonstration` a source reads into, as
``@puppeteer/replay`` knows a recording only through its schema and Stryker a test runner only
through its plugin interface.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .demo import Demonstration


@dataclass(frozen=True)
class Source:
    """One kind of file ``reuseit import`` reads."""

    # What the file is, in the words of the line that refuses a file no source reads:
    # "a Chrome DevTools recording (.json)".
    name: str
    # A file found in a folder: whether it is one of these, by what its start holds (not its name
    # alone). A damaged one is too, so that it gets its line. Asked of every file under a folder:
    # cheap, and it reads no more than the file's start.
    in_folder: Callable[[Path], bool]
    # A file given by name, with its first two bytes: whether this source is the one to read it.
    # The sources are asked in the registry's order and the first that says yes reads the file
    # (and refuses it in one line if it cannot): a source that tells its files by what they hold
    # comes before one that goes by the name alone.
    given: Callable[[Path, bytes], bool]
    # The file's tests or recording, one Demonstration each; a file it cannot read raises
    # UnreadableInput with one line naming it (and nothing is written for it).
    read: Callable[[Path], list[Demonstration]]
