"""Mutants a team chose to ignore, each with its reason, as Stryker's disable comments and PIT's
exclusions: from the workflow file (``mutation: {ignore: [...]}``, for that file's runs) or from
the pytest configuration (``reuseit_mutation_ignore``, for every run). An ignored mutant is not
run; the report lists it as ``Ignored`` with its reason, out of the score.
"""

from __future__ import annotations

import fnmatch
from dataclasses import asdict, dataclass
from typing import Any

from ..workflow.loader import LoadedWorkflow
from .operators import Target

INI_KEY = "reuseit_mutation_ignore"
INI_HELP = (
    "reuseit mutate: mutants to ignore, one a line: OPERATOR | TARGET OR URL | REASON "
    "(OPERATOR may be *; * in TARGET OR URL is any text)"
)


class BadRule(ValueError):
    """An ignore rule that cannot be read: the message names where it is."""


@dataclass(frozen=True)
class Rule:
    operator: str  # "" or "*": every operator
    target: str  # the element as the report names it (css='#help'); fnmatch pattern; "": any
    url: str  # a request's address or path, or an element's page; fnmatch pattern; "": any
    reason: str
    where: str  # file:line, or the ini key and line

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Rule:
        return cls(**data)

    def matches(self, operator: str, target: Target) -> bool:
        if self.operator not in ("", "*", operator):
            return False
        if self.target and not fnmatch.fnmatchcase(target.locator, self.target):
            return False
        return not self.url or any(fnmatch.fnmatchcase(place, self.url) for place in _places(target))


def _places(target: Target) -> list[str]:
    """What a url pattern is matched with: a request's method and path (as the report names it),
    its path and its host and path; an element's page."""
    d = target.detail
    if target.what == "request":
        return [target.locator, str(d.get("path", "")), f"{d.get('host', '')}{d.get('path', '')}"]
    page = str(d.get("page", ""))
    return [page, page.split("://", 1)[-1]] if page else []


def from_file(loaded: LoadedWorkflow) -> list[Rule]:
    out = []
    for n, rule in enumerate(loaded.workflow.mutation.ignore):
        out.append(
            Rule(
                rule.operator or "",
                rule.target.plain().describe() if rule.target is not None else "",
                rule.url or "",
                rule.reason,
                f"{loaded.source.path}:{loaded.source.line('mutation', 'ignore', n)}",
            )
        )
    return out


def from_ini(lines: list[str]) -> list[Rule]:
    out = []
    for n, line in enumerate((x for x in lines if x.strip() and not x.strip().startswith("#")), start=1):
        parts = [p.strip() for p in line.split("|")]
        if len(parts) != 3 or not all(parts):
            raise BadRule(f"{INI_KEY} line {n}: {line.strip()!r}: expected 'OPERATOR | TARGET OR URL | REASON'")
        operator, what, reason = parts
        # A request as the report names it ("GET /learn.json"), or a pattern with a slash, is a url;
        # anything else is an element as the report names it (css='#help').
        is_url = "/" in what and "=" not in what
        out.append(Rule(operator, "" if is_url else what, what if is_url else "", reason, f"{INI_KEY} line {n}"))
    return out


def check_operators(rules: list[Rule], known: tuple[str, ...]) -> None:
    for rule in rules:
        if rule.operator not in ("", "*") and rule.operator not in known:
            raise BadRule(f"{rule.where}: unknown mutation operator {rule.operator!r}; operators: {', '.join(known)}")


def reason_for(rules: list[Rule], operator: str, target: Target) -> str:
    """The first rule that ignores ``operator`` on ``target``, as "reason (where)"; "" if none."""
    rule = next((r for r in rules if r.matches(operator, target)), None)
    return f"{rule.reason} ({rule.where})" if rule else ""
