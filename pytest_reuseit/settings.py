"""Options, resolved once into a frozen object: command line > ini > environment > default.

Every ``--reuseit-X`` flag has a ``reuseit_X`` ini key and, where it makes sense, an environment
variable ``REUSEIT_X``. The plugin registers them (``add_options``); :func:`resolve` reads them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from .errors import ReuseitError

DEFAULT_FILES = "*.reuseit.yaml *.reuseit.yml"

# name: (help, choices or None, default)
OPTIONS: dict[str, tuple[str, tuple[str, ...] | None, str]] = {
    "browser_path": ("Chromium executable (default: $REUSEIT_CHROMIUM, /usr/bin/chromium, Playwright's own)", None, ""),
    "connect": ("ws:// URL of a Playwright browser server to use instead of launching Chromium", None, ""),
    "output": ("folder for screenshots, traces and result files", None, "reuseit-output"),
    "artifacts": ("which runs keep their screenshots and result file", ("on-failure", "always", "never"), "on-failure"),
    "screenshots": (
        "which screenshots to take: before/after every step, only at failures, none",
        ("steps", "failures", "off"),
        "failures",
    ),
    "trace": (
        "Playwright trace: kept for failed runs, always, or not recorded",
        ("retain-on-failure", "on", "off"),
        "retain-on-failure",
    ),
    "llm": (
        "model use: auto (cache, then live), live, replay (cache only), refresh, off",
        ("auto", "live", "replay", "refresh", "off"),
        "auto",
    ),
    "model": ("model name for checks, agent and analysis", None, "gpt-4o-mini"),
    "cache": ("folder of the model response cache", None, ".reuseit/cache"),
    "llm_timeout": ("seconds to wait for one model answer", None, "60"),
    "llm_budget": (
        "seconds one model call may take in all (tries, waits, backoff); past it the run is broken",
        None,
        "90",
    ),
    "llm_retries": ("retries of a model call on 429/5xx/timeouts/malformed answers", None, "3"),
    "llm_backoff": ("seconds before the first retry (doubles each time)", None, "1"),
    "prices": ("JSON file: model -> [USD per 1M input tokens, per 1M output tokens]", None, ""),
    "screenshot_width": (
        "screenshots wider than this many pixels are scaled down (model images and reports)",
        None,
        "1280",
    ),
    "jpeg_quality": ("JPEG quality of screenshots, 1-100", None, "70"),
    "image_detail": ("the 'detail' of images sent to the model", ("auto", "low", "high"), "auto"),
    "page_text": ("characters of page text sent with each model check (0: none)", None, "4000"),
    "slow_mo": ("milliseconds to wait after each browser operation (watching a headed run)", None, "0"),
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
    output: str
    artifacts: str
    screenshots: str
    trace: str
    llm: str
    model: str
    cache: str
    slow_mo: float
    screenshot_width: int
    jpeg_quality: int
    image_detail: str
    page_text: int
    llm_timeout: float
    llm_budget: float
    llm_retries: int
    llm_backoff: float
    prices: str
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
        group.addoption("--reuseit-" + name, dest=f"reuseit_{name}", action="store_true", default=None, help=help_text)
        parser.addini(f"reuseit_{name}", help_text, type="bool", default=None)
    group.addoption(
        "--reuseit-param",
        dest="reuseit_param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override a workflow parameter for every run (repeatable)",
    )
    parser.addini("reuseit_files", "glob patterns of workflow files", type="args", default=DEFAULT_FILES.split())
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


def _choose(config: pytest.Config, name: str, default: str, check: Callable[[str], Any] | None = None) -> str:
    cli = config.getoption(f"reuseit_{name}", None)
    if cli is not None:
        return str(cli)
    ini = config.getini(f"reuseit_{name}")
    if ini not in (None, ""):
        value = str(ini)
    else:
        value = os.environ.get(f"REUSEIT_{name.upper()}", default)
    choices = OPTIONS.get(name, (None, None, None))[1]
    if choices and value not in choices:
        raise ReuseitError(f"reuseit_{name} = {value!r} is not one of: {', '.join(choices)}")
    if check is not None:
        check(value)
    return value


def _float(value: str) -> None:
    try:
        float(value)
    except ValueError:
        raise ReuseitError(f"expected a number, got {value!r}") from None


def _flag(config: pytest.Config, name: str) -> bool:
    if config.getoption(f"reuseit_{name}", None):
        return True
    return bool(config.getini(f"reuseit_{name}") or os.environ.get(f"REUSEIT_{name.upper()}") in ("1", "true"))


def resolve(config: pytest.Config) -> ReuseitSettings:
    params: dict[str, str] = {}
    for item in config.getoption("reuseit_param", []) or []:
        if "=" not in item:
            raise ReuseitError(f"--reuseit-param expects NAME=VALUE, got {item!r}")
        key, value = item.split("=", 1)
        params[key.strip()] = value
    strict, learn, agent_marks = (_flag(config, name) for name in ("strict", "learn", "agent_marks"))
    base_url = config.getoption("base_url", None) or config.getini("base_url") or os.environ.get("REUSEIT_BASE_URL", "")
    return ReuseitSettings(
        browser_path=_choose(config, "browser_path", ""),
        connect=_choose(config, "connect", ""),
        output=_choose(config, "output", "reuseit-output"),
        artifacts=_choose(config, "artifacts", "on-failure"),
        screenshots=_choose(config, "screenshots", "failures"),
        trace=_choose(config, "trace", "retain-on-failure"),
        llm=_choose(config, "llm", "auto"),
        model=_choose(config, "model", "gpt-4o-mini"),
        cache=_choose(config, "cache", ".reuseit/cache"),
        slow_mo=float(_choose(config, "slow_mo", "0", _float)),
        screenshot_width=int(float(_choose(config, "screenshot_width", "1280", _float))),
        jpeg_quality=max(1, min(100, int(float(_choose(config, "jpeg_quality", "70", _float))))),
        image_detail=_choose(config, "image_detail", "auto"),
        page_text=int(float(_choose(config, "page_text", "4000", _float))),
        llm_timeout=float(_choose(config, "llm_timeout", "60", _float)),
        llm_budget=float(_choose(config, "llm_budget", "90", _float)),
        llm_retries=int(float(_choose(config, "llm_retries", "3", _float))),
        llm_backoff=float(_choose(config, "llm_backoff", "1", _float)),
        prices=_choose(config, "prices", ""),
        strict=strict,
        learn=learn,
        agent_marks=agent_marks,
        headed=bool(config.getoption("headed", False)),
        base_url=str(base_url or "").rstrip("/"),
        params=params,
        files=tuple(config.getini("reuseit_files")),
    )
