"""A copy of the example workflows whose random parts are decided once, for benchmarks that
compare two runs of them."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The demo's cookie banner shows in a random half of the sessions (`cookies=random`), and a run
# that meets it waits out its pre check (5 s) before the fallback: the example workflows' total
# work varies by tens of seconds from one session to the next (serial runs of 44 to 66 s), more
# than the difference being measured. Both sides get the same draw, fixed in a copy of the
# examples: these files always show the banner, the other random ones never (4 of the 8 runs).
BANNER_ALWAYS = ("search.reuseit.yaml", "login.reuseit.yaml")


def fixed_examples(folder: Path) -> Path:
    """A copy of ``workflows/`` in ``folder`` whose random cookie banners are decided once."""
    copy = folder / "workflows"
    shutil.copytree(ROOT / "workflows", copy, ignore=shutil.ignore_patterns("__pycache__"))
    for path in copy.rglob("*.reuseit.yaml"):
        text = path.read_text(encoding="utf-8")
        if "cookies=random" in text:
            fixed = "always" if path.name in BANNER_ALWAYS else "never"
            path.write_text(text.replace("cookies=random", f"cookies={fixed}"), encoding="utf-8")
    if (ROOT / "node_modules").is_dir():  # the TodoMVC example's application, found beside the workflows
        (folder / "node_modules").symlink_to(ROOT / "node_modules")
    return folder
