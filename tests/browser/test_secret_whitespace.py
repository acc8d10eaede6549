"""A secret holding a run of spaces is shown by a page with one space (its text, its accessibility
tree, an element's name): that form of it is masked too, wherever the run writes or sends the page.

The page is tests/pages/masking/keys.html: the typed token is echoed back as text on Save.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import yaml

from pytest_reuseit.runtime import Runtime
from pytest_reuseit.workflow.loader import parse
from pytest_reuseit.workflow.placeholders import MASK, Values
from tests.support.model_answers import ANALYSIS, shows
from tests.support.pictures import VIEWPORT, has_detail, painted

pytestmark = pytest.mark.browser

SECRET = "open  sesame   42-xyz"  # what the page shows: "open sesame 42-xyz"
SHOWN = " ".join(SECRET.split())

WORKFLOW = {
    "name": "Spaced key",
    "task": "Save a key that holds runs of spaces",
    "start_url": "{base_url}/masking/keys.html",
    "settings": {"retries": 0, "check_timeout": 2, "action_timeout": 2},
    "steps": [
        {
            "action": "Save the API token",
            "do": [{"fill": {"css": "#token", "value": "{secret.REUSEIT_SPACED}"}}, {"click": "#save"}],
            # Judged by the model on the page's text (which shows the echo), then failed on
            # purpose: the analysis and the failing step's page are written too.
            "post": ["The page says the key was saved", {"expect": {"text": {"css": "#status", "equals": "Kept"}}}],
        }
    ],
}


def test_the_collapsed_form_of_a_secret_is_masked() -> None:
    values = Values(params={}, environ={"REUSEIT_SPACED": SECRET})
    values.load_secrets(["REUSEIT_SPACED"])
    assert values.mask(f"Your key is {SHOWN}.") == f"Your key is {MASK}."
    assert values.mask(f"typed {SECRET}") == f"typed {MASK}"
    assert values.holds_secret(f'paragraph: "Your key is {SHOWN}"')
    # A short secret's collapsed form is not masked across the text: "a b" would blank every "a b".
    short = Values(params={}, environ={"REUSEIT_SHORT": "a   b"})
    short.load_secrets(["REUSEIT_SHORT"])
    assert short.mask("a b c") == "a b c" and short.mask("x a   b") == f"x {MASK}"


@pytest.mark.slow
def test_a_page_that_shows_a_spaced_secret_collapsed_leaks_it_nowhere(
    make_runtime: Callable[..., Runtime], fake_llm_env: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REUSEIT_SPACED", SECRET)
    fake_llm_env.add_rule("condition_check", None, shows("Saved"))
    fake_llm_env.add_rule("challenge_analysis", None, ANALYSIS)
    rt = make_runtime()
    rt.step_pages = True  # every step's page is taken, as when run records are kept
    result = rt.run(parse(yaml.safe_dump(WORKFLOW, sort_keys=False), "spaced.reuseit.yaml"), None, "spaced")
    assert result.status == "failed" and result.failed_step == 1, result.message
    step = result.steps[0]
    # The page did show the secret, collapsed, where the run looked: masked there.
    assert f"Your key is {MASK}" in step.page_aria, step.page_aria
    assert fake_llm_env.calls("condition_check") >= 1
    written = json.dumps(result.to_dict(), default=str)
    for text in (step.page_aria, fake_llm_env.bodies_text(), written, result.message):
        assert "sesame" not in text, text[:2000]


def test_a_page_that_shows_the_secret_collapsed_is_painted_over(page, pages_url: str) -> None:  # type: ignore[no-untyped-def]
    """The site itself shows the secret with one space (a server that tidies what it echoes): the
    picture paints that text over too."""
    from pytest_reuseit.browser.masking import ScreenMasks, attach
    from pytest_reuseit.browser.observe import capture

    page.set_viewport_size(VIEWPORT)
    page.goto(f"{pages_url}/masking/keys.html")
    page.evaluate(f"document.getElementById('echo').textContent = {SHOWN!r}")
    attach(page.context, ScreenMasks(secret_values={"REUSEIT_SPACED": SECRET}, render=str))
    echo, heading = page.locator("#echo").bounding_box(), page.locator("h1").bounding_box()
    assert echo and heading
    image = capture(page, max_width=VIEWPORT["width"])
    box = (echo["x"], echo["y"], echo["width"], echo["height"])
    assert has_detail(image, (heading["x"], heading["y"], heading["width"], heading["height"]))
    assert painted(image, box) and not has_detail(image, box)
