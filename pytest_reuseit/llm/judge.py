"""Condition checks judged by the model on a screenshot, and values read by the model."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from playwright.sync_api import Page

from ..browser.observe import capture, data_url
from ..engine.ports import Judgement
from ..engine.result import ModelUsage
from .client import LlmClient
from .long_text import LongTexts
from .prompts import JUDGE_SYSTEM, READER_SYSTEM, data_block
from .schemas import ConditionCheck, ExtractedValue


class ModelJudge:
    """Implements the engine's Judge port: one request per vote, asked in parallel; majority wins."""

    def __init__(
        self,
        client: LlmClient,
        usage: ModelUsage,
        *,
        model: str | None = None,
        detail: str = "auto",
        texts: LongTexts | None = None,
    ) -> None:
        self.client = client
        self.usage = usage
        self.model = model
        self.detail = detail
        self.texts = texts

    def messages(self, condition: str, screenshot: bytes, page_text: str) -> list[dict[str, object]]:
        return [
            {"role": "system", "content": JUDGE_SYSTEM},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": f"Condition to verify:\n{condition}"},
                    *([{"type": "text", "text": data_block("page_text", page_text)}] if page_text else []),
                    {"type": "image_url", "image_url": {"url": data_url(screenshot), "detail": self.detail}},
                ],
            },
        ]

    def knows(self, condition: str, screenshot: bytes, page_text: str, votes: int) -> bool:
        messages = self.messages(condition, screenshot, page_text)
        return all(
            self.client.cached("condition_check", messages, model=self.model, variant=n) for n in range(max(1, votes))
        )

    def judge(self, condition: str, screenshot: bytes, page_text: str, votes: int) -> Judgement:
        messages = self.messages(condition, screenshot, page_text)

        def vote(n: int) -> ConditionCheck:
            # Each vote is its own cache entry (variant), so a warm rerun replays every vote.
            answer = self.client.ask(
                "condition_check", messages, self.usage, model=self.model, variant=n, texts=self.texts
            )
            assert isinstance(answer, ConditionCheck)
            return answer

        if votes <= 1:
            answers = [vote(0)]
        else:
            # The votes are independent requests: asked together, a 3-vote check costs one call's latency.
            with ThreadPoolExecutor(max_workers=votes, thread_name_prefix="reuseit-vote") as pool:
                answers = list(pool.map(vote, range(votes)))
        yes = [a for a in answers if a.met]
        no = [a for a in answers if not a.met]
        # A tie is not a majority for "met": a check that must not flake should not pass on a coin toss.
        winners = yes if len(yes) > len(no) else no
        explanation = winners[0].explanation
        if votes > 1:
            explanation = f"{len(yes)}/{votes} votes met. {explanation}"
        return Judgement(met=len(yes) > len(no), explanation=explanation)


class ModelReader:
    """Implements the engine's Reader port (``extract: {query: ...}``)."""

    def __init__(
        self,
        client: LlmClient,
        usage: ModelUsage,
        mask: Callable[[str], str],
        *,
        model: str | None = None,
        texts: LongTexts | None = None,
    ) -> None:
        self.client = client
        self.usage = usage
        self.mask = mask
        self.model = model
        self.texts = texts

    def read(self, page: Page, query: str) -> str:
        shot = capture(page)
        text = self.mask(page.inner_text("body", timeout=2000))[:4000]
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": READER_SYSTEM},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": f"Value to read:\n{query}"},
                    {"type": "text", "text": data_block("page_text", text)},
                    {"type": "image_url", "image_url": {"url": data_url(shot), "detail": "auto"}},
                ],
            },
        ]
        answer = self.client.ask("extracted_value", messages, self.usage, model=self.model, texts=self.texts)
        assert isinstance(answer, ExtractedValue)
        if not answer.found:
            from ..browser.ops import OpFailed  # noqa: PLC0415 - avoid an import cycle at module load

            raise OpFailed(f"extract query {query!r}", "the model did not find it on the page", "not_found")
        return answer.value
