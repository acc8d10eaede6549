"""Options, resolved once into a frozen object: command line > ini > environment > default.

Every ``--reuseit-X`` flag has a ``reuseit_X`` ini key and, where it makes sense, an environment
variable ``REUSEIT_X``. The plugin registers them (``add_options``); :func:`resolve` reads them.
``OPTIONS`` is the one place a default is written (the screenshot ones come from the engine's
``RunOptions``, the model ones from ``LlmConfig``); :func:`defaults` builds settings from it
without pytest, :func:`default` gives one as text.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, get_args

import pytest

from .browser.grid import check_url as check_grid_url
from .browser.grid import parse_capabilities
from .browser.tracing import TRACE_MODES, TraceMode
from .engine.context import RunOptions, ScreenshotMode
from .errors import ReuseitError
from .llm.client import LlmConfig
from .report.history import DEFAULT_PATH as HISTORY_PATH
from .workflow.loader import FILE_PATTERNS

DEFAULT_FILES = FILE_PATTERNS
_RUN = RunOptions()
_LLM = LlmConfig()

# name: (help, choices or None, default)
OPTIONS: dict[str, tuple[str, tuple[str, ...] | None, str]] = {
    "browser_path": (
        "Chromium executable (default: $REUSEIT_CHROMIUM, headless Debian's chromium-headless-shell, /usr/bin/chromium, Playwright's own)",
        None,
        "",
    ),
    "connect": ("ws:// URL of a Playwright browser server to use instead of launching Chromium", None, ""),
    "cdp": (
        "http:// or ws:// Chrome DevTools Protocol endpoint of a running Chromium (Browserless, Selenium Grid 4,"
        " --remote-debugging-port) to use instead of launching one",
        None,
        "",
    ),
    "grid": (
        "http(s):// address of a Selenium Grid 4 router or hub: each pytest worker takes one Grid session "
        "(a browser on one of its nodes) instead of launching Chromium, and deletes it at the end",
        None,
        "",
    ),
    "grid_capabilities": (
        "JSON object of the W3C capabilities the Grid session asks for (default: headless Chromium, "
        '{"browserName": "chrome", "goog:chromeOptions": {"args": [...]}})',
        None,
        "",
    ),
    "output": ("folder for screenshots, traces and result files", None, "reuseit-output"),
    "artifacts": ("which runs keep their screenshots and result file", ("on-failure", "always", "never"), "on-failure"),
    "screenshots": (
        "which screenshots to take: before/after every step, only at failures, none",
        get_args(ScreenshotMode),
        _RUN.screenshots,
    ),
    "trace": (
        "Playwright trace: recorded from a run's first retry and kept when it fails; recorded "
        "throughout and kept when it fails; always; or not recorded",
        TRACE_MODES,
        TRACE_MODES[0],
    ),
    "llm": (
        "model use: auto (cache, then live), live, replay (cache only), refresh, off",
        ("auto", "live", "replay", "refresh", "off"),
        _LLM.mode,
    ),
    "model": ("model name for checks, agent and analysis", None, _LLM.model),
    "cache": ("folder of the model response cache", None, _LLM.cache_dir),
    "llm_timeout": ("seconds to wait for one model answer", None, f"{_LLM.timeout:g}"),
    "llm_budget": (
        "seconds one model call may take in all (tries, waits, backoff); past it the run is broken",
        None,
        f"{_LLM.budget:g}",
    ),
    "llm_retries": ("retries of a model call on 429/5xx/timeouts/malformed answers", None, str(_LLM.retries)),
    "llm_backoff": ("seconds before the first retry (doubles each time)", None, f"{_LLM.backoff:g}"),
    "prices": ("JSON file: model -> [USD per 1M input tokens, per 1M output tokens]", None, ""),
    "max_cost": (
        "USD of model calls per session (all xdist workers together); past it no more calls, and runs that need one are broken (0: no limit)",
        None,
        f"{_LLM.max_cost:g}",
    ),
    "screenshot_width": (
        "screenshots wider than this many pixels are scaled down (model images and reports)",
        None,
        str(_RUN.max_width),
    ),
    "jpeg_quality": ("JPEG quality of screenshots, 1-100", None, str(_RUN.jpeg_quality)),
    "image_detail": ("the 'detail' of images sent to the model", ("auto", "low", "high"), "auto"),
    "page_text": ("characters of page text sent with each model check (0: none)", None, str(_RUN.page_text_chars)),
    "slow_mo": ("milliseconds to wait after each browser operation (watching a headed run)", None, "0"),
    "order": (
        "under -n, which workflow runs start first: the ones that took longest last time (as pytest's "
        "cache recorded them; new ones count as long), or the collection's order",
        ("slowest-first", "collected"),
        "slowest-first",
    ),
    "history": (
        "the nightly history file (SQLite, relative to the rootdir) that `reuseit report` appends to: a run that "
        "fails where it passed before says what changed on the page since its last pass (empty: not read)",
        None,
        HISTORY_PATH,
    ),
    "attach_max": (
        "MB: the largest attachment (download, trace, screenshot, analysis page) put in the Allure report whole; "
        "a larger one is listed by name, size and path (the report embeds what it is given)",
        None,
        "1",
    ),
}
BOOL_OPTIONS: dict[str, str] = {
    "strict": "fail runs that needed recovery or healing, and model checks that were not judged",
    "agent_marks": "draw element ids on the agent's screenshots (set-of-marks)",
    "learn": "keep rules learnt from recovered and healed runs in .reuseit/experience for the agent's later runs",
}


@dataclass(frozen=True)
class ReuseitSettings:
    browser_path: str
    connect: str
    cdp: str
    grid: str
    grid_capabilities: str  # JSON text, checked by browser.grid.parse_capabilities
    output: str
    artifacts: str
    screenshots: ScreenshotMode
    trace: TraceMode
    llm: str
    model: str
    cache: str
    slow_mo: float
    screenshot_width: int
    jpeg_quality: int
    image_detail: str
    page_text: int
    attach_max: float  # MB
    history: str
    order: str
    llm_timeout: float
    llm_budget: float
    llm_retries: int
    llm_backoff: float
    prices: str
    max_cost: float
    strict: bool
    learn: bool
    agent_marks: bool
    headed: bool
    base_url: str
    params: dict[str, str]
    files: tuple[str, ...]


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("reuseit", "guarded web workflows (pytest-reuseit)")
    for name, (help_text, choices, default) in OPTIONS.items():
        flag = "--reuseit-" + name.replace("_", "-")
        group.addoption(
            flag,
            dest=f"reuseit_{name}",
            default=None,
            choices=choices,
            help=f"{help_text} [default: {default or 'none'}]",
        )
        parser.addini(f"reuseit_{name}", help_text, default=None)
    for name, help_text in BOOL_OPTIONS.items():
        flag = "--reuseit-" + name.replace("_", "-")
        group.addoption(flag, dest=f"reuseit_{name}", action="store_true", default=None, help=help_text)
        if flag != "--reuseit-" + name:
            # The spelling of earlier releases keeps working, with a deprecation warning (see _flag).
            group.addoption(
                "--reuseit-" + name,
                dest=f"reuseit_{name}_old",
                action="store_true",
                default=None,
                help=argparse.SUPPRESS,
            )
        parser.addini(f"reuseit_{name}", help_text, type="bool", default=None)
    group.addoption(
        "--reuseit-param",
        dest="reuseit_param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override a workflow parameter for every run (repeatable)",
    )
    parser.addini("reuseit_files", "glob patterns of workflow files", type="args", default=list(DEFAULT_FILES))
    # Flags other plugins may own too (pytest-playwright, pytest-base-url): add them only if free.
    for flag, dest, kwargs in (
        ("--headed", "headed", {"action": "store_true", "default": False, "help": "run the browser headed"}),
        ("--base-url", "base_url", {"default": None, "help": "base URL for {base_url} in workflows"}),
    ):
        try:
            group.addoption(flag, dest=dest, **kwargs)
        except ValueError:
            pass
    parser.addini("base_url", "base URL for {base_url} in workflows", default=None)


def _choose(config: pytest.Config, name: str) -> str:
    cli = config.getoption(f"reuseit_{name}", None)
    if cli is not None:
        return str(cli)
    ini = config.getini(f"reuseit_{name}")
    if ini not in (None, ""):
        return str(ini)
    return os.environ.get(f"REUSEIT_{name.upper()}", OPTIONS[name][2])


# The least each number may be, and whether that least itself is allowed. A timeout or budget of 0
# would fail every call at once; a negative count or delay means nothing; infinity or NaN would
# wait for ever.
_BOUNDS: dict[str, tuple[float, bool]] = {
    "slow_mo": (0, True),
    "llm_timeout": (0, False),
    "llm_budget": (0, False),
    "llm_backoff": (0, True),
    "max_cost": (0, True),
    "screenshot_width": (1, True),
    "page_text": (0, True),
    "llm_retries": (0, True),
    "jpeg_quality": (1, True),
    "attach_max": (0, True),
}


def _number(name: str, value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise ReuseitError(f"reuseit_{name}: expected a number, got {value!r}") from None
    least, allowed = _BOUNDS.get(name, (-math.inf, True))
    if not math.isfinite(number) or number < least or (number == least and not allowed):
        wanted = f"{least:g} or more" if allowed else f"above {least:g}"
        raise ReuseitError(f"reuseit_{name}: expected a number {wanted}, got {value!r}")
    return number


def _screenshot_mode(value: str) -> ScreenshotMode:
    for mode in get_args(ScreenshotMode):
        if value == mode:
            return mode
    raise ReuseitError(f"reuseit_screenshots = {value!r} is not one of: {', '.join(get_args(ScreenshotMode))}")


def _typed(raw: Callable[[str], str]) -> dict[str, Any]:
    """The valued options, checked and converted; ``raw(name)`` gives each one's text."""
    text: dict[str, str] = {}
    for name, (_, choices, _) in OPTIONS.items():
        value = raw(name)
        if choices and value not in choices:
            raise ReuseitError(f"reuseit_{name} = {value!r} is not one of: {', '.join(choices)}")
        text[name] = value
    out: dict[str, Any] = dict(text)
    for name in ("slow_mo", "llm_timeout", "llm_budget", "llm_backoff", "max_cost", "attach_max"):
        out[name] = _number(name, text[name])
    for name in ("screenshot_width", "page_text", "llm_retries"):
        out[name] = int(_number(name, text[name]))
    out["jpeg_quality"] = max(1, min(100, int(_number("jpeg_quality", text["jpeg_quality"]))))
    out["screenshots"] = _screenshot_mode(text["screenshots"])
    remote = [f"--reuseit-{name}" for name in ("connect", "cdp", "grid") if out[name]]
    if len(remote) > 1:
        both = "both" if len(remote) == 2 else "all"
        raise ReuseitError(f"{' and '.join(remote)} {both} name a remote browser: give one of them")
    if out["grid"]:
        out["grid"] = check_grid_url(out["grid"])
    parse_capabilities(out["grid_capabilities"])  # bad JSON: one line now, not at the first run
    return out


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("", "0", "false", "no", "off")


def _flag(config: pytest.Config, name: str) -> bool:
    if config.getoption(f"reuseit_{name}", None):
        return True
    if config.getoption(f"reuseit_{name}_old", None):
        new = "--reuseit-" + name.replace("_", "-")
        config.issue_config_time_warning(
            pytest.PytestDeprecationWarning(f"--reuseit-{name} is deprecated: write {new} (as every other option)"),
            stacklevel=2,
        )
        return True
    try:
        if config.getini(f"reuseit_{name}"):
            return True
    except (ValueError, pytest.UsageError) as exc:  # pytest's words ("invalid truth value") name no setting
        raise ReuseitError(f"reuseit_{name}: {exc}; expected true or false") from None
    env = f"REUSEIT_{name.upper()}"
    value = os.environ.get(env, "").strip().lower()
    if value not in _TRUE + _FALSE:
        raise ReuseitError(f"{env}={os.environ[env]!r}: expected true or false (1/0, yes/no, on/off)")
    return value in _TRUE


def resolve(config: pytest.Config) -> ReuseitSettings:
    params: dict[str, str] = {}
    for item in config.getoption("reuseit_param", []) or []:
        if "=" not in item:
            raise ReuseitError(f"--reuseit-param expects NAME=VALUE, got {item!r}")
        key, value = item.split("=", 1)
        params[key.strip()] = value
    base_url = config.getoption("base_url", None) or config.getini("base_url") or os.environ.get("REUSEIT_BASE_URL", "")
    return ReuseitSettings(
        **_typed(lambda name: _choose(config, name)),
        strict=_flag(config, "strict"),
        learn=_flag(config, "learn"),
        agent_marks=_flag(config, "agent_marks"),
        headed=bool(config.getoption("headed", False)),
        base_url=str(base_url or "").rstrip("/"),
        params=params,
        files=tuple(config.getini("reuseit_files")),
    )


def default(name: str) -> str:
    """The default of option ``name`` as text (as a flag would give it)."""
    return OPTIONS[name][2]


def defaults(**overrides: Any) -> ReuseitSettings:
    """The settings a run has when nothing is configured, with ``overrides`` (no pytest needed)."""
    base = ReuseitSettings(
        **_typed(lambda name: OPTIONS[name][2]),
        strict=False,
        learn=False,
        agent_marks=False,
        headed=False,
        base_url="",
        params={},
        files=DEFAULT_FILES,
    )
    return replace(base, **overrides)
