"""A mutant's outcome from its run's verdict, and the figures of a whole mutation run.

The words are Stryker's and PIT's (killed, survived, timeout), plus what a self-healing tool must
never hide: a breaking mutant whose run passed only by a fallback, healing or the agent is
*healed around* (a survivor, listed apart). Broken and timeout mutants are counted, never as
killed; a fault that could not be placed at all (the element never came), or that its check read
the element without (the page drew it again), is *not applied*, with why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .plan import Mutant

BREAKING_OUTCOMES = ("killed", "survived", "healed around", "broken", "timeout", "not applied", "not run", "ignored")
BENIGN_OUTCOMES = ("clean", "false alarm", "not applied", "not run", "ignored")


@dataclass
class MutantResult:
    mutant: Mutant
    outcome: str
    verdict: dict[str, Any] = field(default_factory=dict)  # the run's: status, failed_step, message, ...
    localised: bool | None = None  # killed: did it fail at the step that touches the target?
    tries: list[dict[str, Any]] = field(default_factory=list)  # every run tried against it, in order
    basis: str = ""  # what its verdict depends on (incremental.py)
    reused: bool = False  # its verdict is the last report's (--incremental): nothing it depends on changed
    kept: dict[str, Any] | None = None  # that report's record of it
    doubtful: bool = False  # a kill under the caps that a busier machine could have made (see doubtful)

    @property
    def status(self) -> str:
        return str(self.verdict.get("status", ""))


def judge(mutant: Mutant, verdict: dict[str, Any] | None, time_limit: float) -> MutantResult:
    """The outcome of one mutant from its run's verdict (None: the run gave none)."""
    if mutant.ignored:
        return MutantResult(mutant, "ignored", {"reason": mutant.ignored})
    if verdict is None:
        return MutantResult(mutant, "not run" if mutant.kind == "benign" else "broken")
    status = str(verdict.get("status", ""))
    timed_out = float(verdict.get("duration", 0.0)) > time_limit
    if mutant.kind == "benign":
        if not verdict.get("applied", True) and status in ("failed", "broken"):
            return MutantResult(mutant, "not applied", verdict)
        return MutantResult(mutant, "clean" if status in ("passed", "recovered", "healed") else "false alarm", verdict)
    if status == "failed":
        if not verdict.get("applied", False):
            return MutantResult(mutant, "not applied", verdict)
        outcome = "timeout" if timed_out else "killed"
        return MutantResult(mutant, outcome, verdict, localised=_localised(mutant, verdict))
    # The fault never went in (its element never showed), or its check read the element without it
    # (the page drew it again where the fault could not follow): the run says nothing about it.
    placed = bool(verdict.get("applied", False)) and bool(verdict.get("held", True))
    if status == "passed":
        return MutantResult(mutant, "survived" if placed else "not applied", verdict)
    if status in ("recovered", "healed"):
        return MutantResult(mutant, "healed around" if placed else "not applied", verdict)
    return MutantResult(mutant, "timeout" if timed_out else "broken", verdict)


# When a mutant was tried against several runs, the outcome that says most: a kill by any of them,
# then a pass (with the fault in, so no check noticed), then no verdict.
_PRIORITY = (
    "killed",
    "healed around",
    "survived",
    "clean",
    "false alarm",
    "timeout",
    "broken",
    "not applied",
    "not run",
    "ignored",
)


def doubtful(mutant: Mutant, verdict: dict[str, Any], hangs: bool = False) -> bool:
    """Whether a kill under the capped waits (waits.py) may be the machine's rather than the fault's:
    an op's wait ran out (the action phase) where the fault is not, that is anywhere but at the
    target op's own step, under a fault the page gets when it opens (a request, the storage, the
    whole page) too. A hang's navigation that ran out (``hangs``, the page not ready) is the
    fault's. A check that failed read what the fault changed: it is not doubted."""
    if mutant.full_waits or verdict.get("failed_phase") != "action":
        return False
    if hangs and verdict.get("category") == "page_not_ready":
        return False
    target = mutant.target
    return not (target.what == "op" and verdict.get("failed_step") == (target.step or 0) + 1)


def combine(tries: list[MutantResult]) -> MutantResult:
    """One mutant tried against several covering runs (see plan.py); a doubtful kill counts only
    when no other try gave a verdict (its second tries did not run)."""
    sure = [r for r in tries if not r.doubtful] or tries
    best = min(sure, key=lambda r: _PRIORITY.index(r.outcome))
    best.tries = [
        {
            "nodeid": r.mutant.nodeid,
            "outcome": r.outcome,
            "full_waits": r.mutant.full_waits,
            **({"doubtful": True} if r.doubtful else {}),
            **r.verdict,
        }
        for r in tries
    ]
    return best


def _localised(mutant: Mutant, verdict: dict[str, Any]) -> bool:
    target = mutant.target
    if target.step is None:  # an outcome check, or a page-wide fault
        return verdict.get("failed_phase") == "outcome" or target.what == "page"
    failed_step = verdict.get("failed_step")
    return failed_step == target.step + 1


@dataclass
class Summary:
    killed: int = 0
    survived: int = 0  # healed around included, as the score counts them
    healed_around: int = 0
    broken: int = 0
    timeout: int = 0
    not_applied: int = 0
    ignored: int = 0  # a rule said so (ignore.py): not run, out of the score and the false-alarm rate
    reused: int = 0  # verdicts kept from the last report (--incremental)
    benign: int = 0
    false_alarms: int = 0
    localised: int = 0
    total: int = 0
    seconds: float = 0.0

    @property
    def score(self) -> float | None:
        judged = self.killed + self.survived
        return 100.0 * self.killed / judged if judged else None

    @property
    def false_alarm_rate(self) -> float | None:
        return 100.0 * self.false_alarms / self.benign if self.benign else None

    @property
    def localisation(self) -> float | None:
        return 100.0 * self.localised / self.killed if self.killed else None

    def line(self) -> str:
        """The one summary line of the contract (docs/mutation.md)."""
        score = "n/a" if self.score is None else f"{self.score:.1f}%"
        minutes, seconds = divmod(int(round(self.seconds)), 60)
        return (
            f"mutation score {score} ({self.killed} killed, {self.survived} survived, {self.broken} broken, "
            f"{self.timeout} timeout); false alarms {self.false_alarms} of {self.benign} benign; "
            f"{self.total} mutants in {minutes}m{seconds:02d}s"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "killed": self.killed,
            "survived": self.survived,
            "healed_around": self.healed_around,
            "broken": self.broken,
            "timeout": self.timeout,
            "not_applied": self.not_applied,
            "ignored": self.ignored,
            "reused": self.reused,
            "benign": self.benign,
            "false_alarms": self.false_alarms,
            "localised": self.localised,
            "mutants": self.total,
            "score": self.score,
            "false_alarm_rate": self.false_alarm_rate,
            "localisation_rate": self.localisation,
            "seconds": round(self.seconds, 1),
        }


def summarise(results: list[MutantResult], seconds: float) -> Summary:
    s = Summary(total=len(results), seconds=seconds)
    for r in results:
        s.reused += r.reused
        if r.outcome == "ignored":
            s.ignored += 1
            continue
        if r.mutant.kind == "benign":
            if r.outcome in ("clean", "false alarm"):
                s.benign += 1
                s.false_alarms += r.outcome == "false alarm"
            elif r.outcome == "not applied":
                s.not_applied += 1
            continue
        if r.outcome == "killed":
            s.killed += 1
            s.localised += bool(r.localised)
        elif r.outcome in ("survived", "healed around"):
            s.survived += 1
            s.healed_around += r.outcome == "healed around"
        elif r.outcome == "broken":
            s.broken += 1
        elif r.outcome == "timeout":
            s.timeout += 1
        elif r.outcome == "not applied":
            s.not_applied += 1
    return s
