"""Selenium IDE projects and Katalon Recorder suites: two files, one language (Selenese).

- ``side.py``: a ``.side`` project, its fields checked and its version upgraded as side-model
  and side-migrate do (``side_project.py``);
- ``katalon.py``: a Katalon Recorder test suite (its HTML tables);
- what both share: ``selenese.py`` (locators, variables, patterns, keys), ``selenese_flow.py``
  (control flow, ``run``, ``times``) and ``selenese_commands.py`` (each command as its runner
  means it).
"""

from __future__ import annotations

from ..source import Source
from . import katalon, side

SIDE = Source("a Selenium IDE project (.side)", side.looks_like, side.given, side.read)
KATALON = Source("a Katalon Recorder test suite (.html)", katalon.in_folder, katalon.given, katalon.read)
SOURCES = (SIDE, KATALON)
