"""``python -m pytest_reuseit.cli``: the ``reuseit`` command."""

from __future__ import annotations

import sys

from . import main

sys.exit(main())
