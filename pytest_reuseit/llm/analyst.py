"""The challenge analysis written by the model from all attempts' messages and screenshots."""

from __future__ import annotations

import logging

from ..browser.observe import data_url
from ..engine.analysis import changes_text
from ..engine.result import Analysis, ModelUsage, RunResult
from .client import LlmClient, ModelUnavailable
from .long_text import LongTexts
from .prompts import ANALYST_SYSTEM, data_block
from .schemas import ChallengeAnalysis

log = logging.getLogger(__name__)

MAX_IMAGES = 4


class ModelAnalyst:
    """Implements the engine's Analyst port. Falls back to the observed analysis if the model fails:
    the run has already failed for its own reason, and that verdict must not turn into 'broken'."""

    def __init__(
        self, client: LlmClient, usage: ModelUsage, *, model: str | None = None, texts: LongTexts | None = None
    ) -> None:
        self.client = client
        self.usage = usage
        self.model = model
        self.texts = texts

    def messages(self, result: RunResult, observed: Analysis) -> list[dict[str, object]]:
        step = result.steps[result.failed_step - 1] if result.failed_step else None
        lines = [
            f"Task: {result.task}",
            f"Workflow: {result.workflow} [{result.variation}] ({result.file})",
            f"Failed phase: {result.failed_phase}",
            f"Runner's message: {result.message}",
        ]
        if step is not None:
            lines.append(f"Failed step {step.index}: {step.action}")
            for v in step.pre + step.post:
                lines.append(
                    f"  {v.phase} check '{v.check}': {'met' if v.ok else 'NOT met' if v.ok is False else 'not judged'}"
                    + (f" - {v.explanation}" if v.explanation else "")
                    + (f" (expected {v.expected}; actual {v.actual})" if v.expected or v.actual else "")
                )
        lines.append("What was tried:\n" + observed.what)
        lines.append(f"The runner's own reading: category {observed.category}; why: {observed.why}")
        if result.changed is not None:
            # The page's own words (element names, text), so they travel as data.
            step_index = result.failed_step or (result.steps[-1].index if result.steps else None)
            lines.append(
                "What is different on the failing page since the run last passed:\n"
                + data_block("page_text", changes_text(result.changed, step_index))
            )
        parts: list[dict[str, object]] = [{"type": "text", "text": "\n".join(lines)}]
        # The same point of the run when it last passed, beside this run's pictures: what a person
        # compares first. It takes the place of this run's earliest picture: as many images as before.
        then = result.last_pass_screenshot if result.changed is not None else None
        then = then if then is not None and then.data else None
        shots = [s for s in result.screenshots() if s.data][-(MAX_IMAGES - (then is not None)) :]
        if then is not None:
            since = str((result.changed or {}).get("since") or "")
            parts.append(
                {
                    "type": "text",
                    "text": f"Screenshot when the run last passed{f' ({since})' if since else ''}: {then.label}",
                }
            )
            parts.append({"type": "image_url", "image_url": {"url": data_url(then.data, then.mime), "detail": "low"}})
        for shot in shots:
            parts.append({"type": "text", "text": f"Screenshot: {shot.label}"})
            parts.append({"type": "image_url", "image_url": {"url": data_url(shot.data, shot.mime), "detail": "low"}})
        return [{"role": "system", "content": ANALYST_SYSTEM}, {"role": "user", "content": parts}]

    def analyze(self, result: RunResult, observed: Analysis) -> Analysis:
        try:
            answer = self.client.ask(
                "challenge_analysis", self.messages(result, observed), self.usage, model=self.model, texts=self.texts
            )
        except ModelUnavailable as exc:
            log.warning("analysis by the model failed: %s", exc)
            observed.guidance = [*observed.guidance, f"(the model could not write the analysis: {exc})"]
            return observed
        assert isinstance(answer, ChallengeAnalysis)
        return Analysis(
            where=answer.where,
            why=answer.why,
            what=answer.what or observed.what,
            guidance=list(answer.guidance),
            category=answer.category,
            source="model",
        )
