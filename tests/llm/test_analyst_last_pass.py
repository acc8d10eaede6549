"""The analyst sees the failing step's picture when the run last passed, beside this run's: what a
person compares first. It takes the place of this run's earliest picture (as many images as before)."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Callable
from typing import Any

import pytest
import yaml
from PIL import Image

from pytest_reuseit.browser.aria import PageSnapshot
from pytest_reuseit.engine.context import LastPass
from pytest_reuseit.engine.result import Screenshot
from pytest_reuseit.llm.analyst import MAX_IMAGES
from pytest_reuseit.runtime import Runtime
from pytest_reuseit.workflow.loader import parse
from tests.support.model_answers import ANALYSIS

pytestmark = pytest.mark.browser

SINCE = "2026-11-25T02:23:00Z"
WORKFLOW = {
    "name": "Sign in",
    "task": "Sign in as ada",
    "start_url": "{base_url}/changes/login.html",
    "settings": {"retries": 0, "action_timeout": 2, "check_timeout": 1},
    "steps": [
        {
            "action": "Sign in",
            "do": [{"fill": {"css": "#user", "value": "ada"}}, {"click": {"role": "button", "name": "Sign in"}}],
            # The page says "Signed in as ada": this check fails, as a renamed user would.
            "post": [{"expect": {"text": {"role": "status", "equals": "Signed in as bob"}}}],
        }
    ],
}


def _jpeg(colour: str) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (64, 48), colour).save(out, "JPEG")
    return out.getvalue()


def _analysis_images(fake: Any) -> tuple[list[str], list[str]]:
    """The labels and image addresses of the one analysis request."""
    (body,) = [json.loads(line) for line in fake.bodies_text().splitlines() if "challenge_analysis" in line]
    parts = body["messages"][1]["content"]
    labels = [p["text"] for p in parts if p["type"] == "text" and p["text"].startswith("Screenshot")]
    images = [p["image_url"]["url"] for p in parts if p["type"] == "image_url"]
    return labels, images


@pytest.mark.slow
@pytest.mark.parametrize("known", [True, False], ids=["last-pass-known", "no-last-pass"])
def test_the_analyst_sees_the_last_pass_s_picture_of_the_failing_step(
    make_runtime: Callable[..., Runtime], fake_llm_env: Any, known: bool
) -> None:
    fake_llm_env.add_rule("challenge_analysis", None, ANALYSIS)
    then = _jpeg("#3366cc")
    rt = make_runtime(screenshots="steps")
    if known:
        aria = '- heading "Sign in" [level=1]\n- status: Signed in as bob'
        last = LastPass(
            since=SINCE,
            pages={1: PageSnapshot("http://127.0.0.1/changes/login.html", "Sign in", aria)},
            screenshots={1: Screenshot("step 1 after action", then)},
        )
        rt.last_pass = lambda test: last  # type: ignore[method-assign]  # as read from the history
    result = rt.run(parse(yaml.safe_dump(WORKFLOW, sort_keys=False), "sign-in.reuseit.yaml"), None, "sign-in")
    assert result.status == "failed" and result.failed_step == 1, result.message
    assert result.analysis is not None and result.analysis.source == "model"
    labels, images = _analysis_images(fake_llm_env)
    assert 1 <= len(images) <= MAX_IMAGES and len(images) == len(labels)
    then_url = "data:image/jpeg;base64," + base64.b64encode(then).decode()
    if known:
        assert labels[0] == f"Screenshot when the run last passed ({SINCE}): step 1 after action", labels
        assert images[0] == then_url
        assert all(not label.startswith("Screenshot when") for label in labels[1:])
    else:
        assert then_url not in images and not any("last passed" in label for label in labels), labels
