"""Chrome DevTools Recorder exports: ``recording.py`` reads one as ``@puppeteer/replay`` replays
it, after ``schema.py`` has checked its fields as replay's own parser does."""

from __future__ import annotations

from ..source import Source
from . import recording

RECORDING = Source("a Chrome DevTools recording (.json)", recording.in_folder, recording.given, recording.read_file)
SOURCES = (RECORDING,)
