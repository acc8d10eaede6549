"""Experience: short rules learnt on a site, handed to the agent on later runs there.

HxAgent's long-term experience memory (seeds 002: rules abstracted from past correct and
incorrect trajectories, given to the agent in its prompt) and AWM's reusable workflow rules, kept
per site in ``.reuseit/experience/<host>.json``: a JSON list of ``{rule, source, created, uses}``.
``uses`` counts how many runs taught the rule (1 when first learnt, +1 each time a run learns it
again), so the rules confirmed most often come first when the prompt has room for only a few.

Rules come from what actually worked in a test run (:func:`learn_from_result`): a fallback that
recovered a step, and the locator the agent used when a ``do`` op broke. Values of the run's
parameters and extracted values are written back as ``{name}``, so a rule learnt on one variation
is the same rule on another and is stored once.

Writes are atomic (temp file + ``os.replace``) under a file lock, so parallel test workers
(pytest-xdist) and the ``reuseit experience`` command can share a folder.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from filelock import FileLock

from .atomic import write_text_atomic
from .engine.result import RunResult, StepResult

log = logging.getLogger(__name__)

DEFAULT_DIR = ".reuseit/experience"
MAX_RULE_CHARS = 400
DEFAULT_LIMIT = 10
# Attempts that used no fallback from the workflow teach nothing about the site.
_DEFAULT_ATTEMPTS = ("redo the action", "wait, then judge again", "(none)")


def host_of(url_or_host: str) -> str:
    """The host a URL points at (``http://shop.test:8080/x`` → ``shop.test``); a bare host as is."""
    text = url_or_host.strip()
    if "://" in text:
        host = urlsplit(text).hostname or ""
    else:
        host = urlsplit("//" + text).hostname or text
    return host.lower()


def _file_name(host: str) -> str:
    return re.sub(r"[^a-z0-9._-]", "_", host.lower()) or "_"


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _norm(rule: str) -> str:
    return " ".join(rule.split()).casefold()


class ExperienceStore:
    """The rules of every site, one JSON file per host under ``folder``."""

    def __init__(self, folder: str | Path = DEFAULT_DIR) -> None:
        self.folder = Path(folder)

    def path(self, host: str) -> Path:
        return self.folder / f"{_file_name(host_of(host))}.json"

    def _lock(self, path: Path) -> FileLock:
        return FileLock(str(path) + ".lock", timeout=60)

    def _read(self, path: Path) -> list[dict[str, Any]]:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            log.warning("experience file %s cannot be read (%s); starting it afresh", path, exc)
            return []
        if not isinstance(data, list):
            return []
        return [r for r in data if isinstance(r, dict) and isinstance(r.get("rule"), str)]

    def _write(self, path: Path, rules: list[dict[str, Any]]) -> None:
        write_text_atomic(path, json.dumps(rules, indent=2, ensure_ascii=False) + "\n")

    def add(self, host: str, rule: str, source: str) -> bool:
        """Record ``rule`` for ``host``; True when it is new, False when it was known (its uses grow)."""
        rule = " ".join(rule.split())
        if not rule:
            return False
        if len(rule) > MAX_RULE_CHARS:
            rule = rule[: MAX_RULE_CHARS - 1] + "…"
        path = self.path(host)
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock(path):
            rules = self._read(path)
            key = _norm(rule)
            for r in rules:
                if _norm(r["rule"]) == key:
                    r["uses"] = int(r.get("uses", 1)) + 1
                    self._write(path, rules)
                    return False
            rules.append({"rule": rule, "source": source, "created": _now(), "uses": 1})
            self._write(path, rules)
            return True

    def rules(self, host: str) -> list[dict[str, Any]]:
        """The rules of ``host`` (a host or a URL), in the order they were learnt."""
        return self._read(self.path(host))

    def text(self, host: str, limit: int = DEFAULT_LIMIT) -> str:
        """Up to ``limit`` rules as the bullet list the agent's prompt takes; most confirmed first."""
        rules = self.rules(host)
        order = sorted(range(len(rules)), key=lambda n: (-int(rules[n].get("uses", 1)), -n))
        return "\n".join(f"- {rules[n]['rule']}" for n in order[: max(limit, 0)])

    def hosts(self) -> list[str]:
        if not self.folder.is_dir():
            return []
        return sorted(p.stem for p in self.folder.glob("*.json"))

    def clear(self, host: str | None = None) -> int:
        """Forget the rules of ``host`` (every host when None); returns how many rules went."""
        removed = 0
        for h in [host_of(host)] if host else self.hosts():
            path = self.path(h)
            with self._lock(path):
                removed += len(self._read(path))
                path.unlink(missing_ok=True)
            Path(str(path) + ".lock").unlink(missing_ok=True)
        return removed


# --------------------------------------------------------------------------- learning from runs


def _generalizer(values: Mapping[str, str]) -> Callable[[str], str]:
    """A function writing the run's values back as ``{name}`` (values of 3+ characters, whole words)."""
    pairs = sorted(((str(v), k) for k, v in values.items() if len(str(v).strip()) >= 3), key=lambda p: -len(p[0]))
    if not pairs:
        return lambda text: text
    names: dict[str, str] = {}
    parts: list[str] = []
    for value, name in pairs:
        if value in names:
            continue
        names[value] = name
        left = r"(?<!\w)" if re.match(r"\w", value) else ""
        right = r"(?!\w)" if re.search(r"\w$", value) else ""
        parts.append(left + re.escape(value) + right)
    pattern = re.compile("|".join(parts))
    return lambda text: pattern.sub(lambda m: "{" + names[m.group(0)] + "}", text)


def _failed_check(step: StepResult, phase: str) -> str:
    verdicts = step.pre if phase == "pre" else step.post if phase == "post" else []
    bad = next((v for v in verdicts if v.ok is False), None)
    return bad.check if bad is not None else ""


def _stable(locator: str) -> bool:
    parts = [p.strip() for p in locator.split(";") if p.strip()]
    return bool(parts) and not all(p.startswith("aria-ref=") for p in parts)


def rules_from_result(result: RunResult) -> list[tuple[str, str]]:
    """The ``(rule, source)`` pairs a run teaches."""
    general = _generalizer({**result.params, **result.extracted})
    source = f"{result.file} [{result.variation}]"
    out: list[tuple[str, str]] = []
    for step in result.steps:
        if step.status not in ("recovered", "healed"):
            continue
        att = next((a for a in step.attempts if a.ok), None)
        if att is None:
            continue
        fallback = att.fallback.strip()
        if fallback in _DEFAULT_ATTEMPTS or not fallback:
            continue
        if fallback.startswith("agent: "):
            fallback = fallback[len("agent: ") :]
        if att.phase in ("pre", "post"):
            check = _failed_check(step, att.phase)
            why = f"{att.phase} check '{check}' not met" if check else f"a {att.phase} check not met"
        else:
            why = "the action did not go through"
        rule = f"When '{step.action}' fails ({why}), '{fallback}' worked."
        out.append((general(rule), f"{source} step {step.index}"))
    for h in result.healing:
        if not _stable(h.replacement):
            continue
        healed = next((s for s in result.steps if s.index == h.step), None)
        action = healed.action if healed is not None else f"step {h.step}"
        out.append((general(f"To '{action}', use {h.replacement}."), f"{source} step {h.step} (healed)"))
    return out


def learn_from_result(result: RunResult, store: ExperienceStore) -> list[str]:
    """Store what ``result`` teaches under its site's host; returns the rules that were new."""
    host = host_of(result.start_url or result.final_url or "")
    if not host:
        return []
    new = []
    for rule, source in rules_from_result(result):
        if store.add(host, rule, source):
            new.append(rule)
    return new
