"""Secrets never travel as pixels: every picture a run produces has the secret's fields painted over.

The pictures are decoded (Pillow) and the regions where the secret was (the field it was typed
into, the page text that echoes it, the same inside an iframe, a field that keeps only part of
it) are checked to be one flat colour, while an ordinary heading in the same picture is not: the
decoding would see text if it were there. The secret's bytes being absent proves nothing (a JPEG
never holds text), so that is not what is checked.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Any

import pytest
from PIL import Image

from pytest_reuseit.browser.observe import capture
from pytest_reuseit.runtime import Runtime
from pytest_reuseit.workflow.loader import parse
from tests.support.llm_server import FakeLLM
from tests.support.pictures import VIEWPORT, Box, has_detail, painted

pytestmark = pytest.mark.browser

TOKEN = "tok-7Hq2-Xw9Z-4KmP"  # typed into a plain text field, echoed by the page
BACKUP = "bak-3Rt8-Lp5N-0Vc1"  # typed into a field inside an iframe, echoed there
PIN = "90817263"  # typed into a field that keeps only its first 6 characters

WORKFLOW = """
name: Keys
task: Save the API keys
start_url: "{base_url}/masking/keys.html"
settings: {retries: 0, check_timeout: 2, action_timeout: 5}
steps:
  - action: Save the API token and the backup token
    do:
      - fill: {css: "#token", value: "{secret.REUSEIT_TOKEN}"}
      - click: "#save"
      - fill: {selector: "#frame >> internal:control=enter-frame >> #frame-token", value: "{secret.REUSEIT_BACKUP}"}
      - type: {css: "#pin", value: "{secret.REUSEIT_PIN}"}
    post:
      - check: The page says the key was saved
outcome:
  - check: The saved key is shown
"""


@pytest.fixture
def secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REUSEIT_TOKEN", TOKEN)
    monkeypatch.setenv("REUSEIT_BACKUP", BACKUP)
    monkeypatch.setenv("REUSEIT_PIN", PIN)


@pytest.fixture
def boxes(page, pages_url: str) -> dict[str, Box]:  # type: ignore[no-untyped-def]
    """Where each secret-holding element is on the page once the workflow's ops ran (CSS pixels,
    in the viewport): the same page laid out at the same size, measured in our own browser page."""
    page.set_viewport_size(VIEWPORT)
    page.goto(f"{pages_url}/masking/keys.html")
    page.fill("#token", TOKEN)
    page.click("#save")
    frame = page.frame_locator("#frame")
    frame.locator("#frame-token").fill(BACKUP)
    page.locator("#pin").press_sequentially(PIN)
    assert page.locator("#pin").input_value() == PIN[:6]  # the field keeps part of the secret only
    found = {}
    for name, loc in {
        "token": page.locator("#token"),
        "echo": page.locator("#echo"),
        "pin": page.locator("#pin"),
        "frame-token": frame.locator("#frame-token"),
        "frame-echo": frame.locator("#frame-echo"),
        "heading": page.locator("h1"),
    }.items():
        b = loc.bounding_box()
        assert b is not None, name
        found[name] = (b["x"], b["y"], b["width"], b["height"])
    return found


SECRET_REGIONS = ("token", "echo", "pin", "frame-token", "frame-echo")


def assert_masked(image: bytes, boxes: dict[str, Box], where: str) -> bool:
    """No region that holds a secret is readable; True when all of them are painted over (False
    for a picture taken before anything was typed, where they are blank)."""
    # The decoding sees text where there is text: the heading in the same picture is readable ...
    assert has_detail(image, boxes["heading"]), f"{where}: the control region shows no text: bad decoding?"
    # ... and no region that held a secret shows anything: painted over, or still empty.
    for name in SECRET_REGIONS:
        assert not has_detail(image, boxes[name]), f"{where}: the {name} region is readable"
    return all(painted(image, boxes[name]) for name in SECRET_REGIONS)


def _met(when: str) -> dict[str, Any]:
    return {"met": True, "explanation": f"{when}: yes"}


@pytest.mark.slow
@pytest.mark.usefixtures("secrets")
def test_a_passing_run_masks_the_secret_in_every_picture(
    pytester: pytest.Pytester, pages_url: str, fake_llm: FakeLLM, boxes: dict[str, Box], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Model requests, Allure attachments, the run folder: no picture shows a secret; the run passes."""
    fake_llm.add_rule("condition_check", None, _met("check"))
    monkeypatch.setenv("OPENAI_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    pytester.path.joinpath("keys.reuseit.yaml").write_text(WORKFLOW)
    allure_dir = pytester.path / "allure-results"
    result = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "--base-url",
        pages_url,
        "--reuseit-llm",
        "auto",
        "--reuseit-llm-backoff",
        "0.01",
        "--reuseit-cache",
        str(pytester.path / "cache"),
        "--reuseit-artifacts",
        "always",
        "--reuseit-screenshots",
        "steps",
        "--reuseit-trace",
        "on",
        "--alluredir",
        str(allure_dir),
    )
    result.assert_outcomes(passed=1)

    sent = [img for r in fake_llm.requests for img in r.images]
    assert len(sent) == fake_llm.calls("condition_check") == 2
    for n, image in enumerate(sent):  # both taken after the typing: every region painted over
        assert assert_masked(image, boxes, f"model request {n + 1}")

    attached = sorted(p for p in allure_dir.iterdir() if p.suffix in (".jpg", ".jpeg", ".png"))
    assert len(attached) >= 3  # after the action, the post check, the outcome
    painted_over = [assert_masked(p.read_bytes(), boxes, f"Allure attachment {p.name}") for p in attached]
    assert painted_over.count(False) == 1  # the picture before the action: nothing typed yet

    (folder,) = (p for p in (pytester.path / "reuseit-output").iterdir() if p.is_dir())
    kept = sorted(folder.glob("*.jpg"))
    assert len(kept) == len(attached)
    painted_over = [assert_masked(p.read_bytes(), boxes, f"run folder {p.name}") for p in kept]
    assert painted_over == [False] + [True] * (len(kept) - 1)  # 01 is the picture before the action

    # The report says why regions were painted over, per step, without the values.
    saved = json.loads((folder / "result.json").read_text())
    step_masked = saved["steps"][0]["masked"]
    assert "secret: fill css='#token' (value {secret.REUSEIT_TOKEN})" in step_masked
    assert "secret: type css='#pin' (value {secret.REUSEIT_PIN})" in step_masked
    assert any(m.startswith("secret: fill selector=") for m in step_masked)
    assert any(m.endswith("element(s) showing a secret's value") for m in step_masked)
    assert saved["steps"][0]["after"]["masked"]
    # No trace: it would hold the typed values. The report says so.
    assert saved["trace"] is None and "a secret was typed" in saved["trace_withheld"]
    assert not (folder / "trace.zip").exists()
    allure_text = "".join(p.read_text() for p in allure_dir.glob("*-result.json"))
    assert "masked in screenshots" in allure_text and "trace withheld" in allure_text

    # The cache keeps answers only, keyed on the masked pictures; nothing anywhere holds a value.
    assert list((pytester.path / "cache").glob("*/*.json"))
    everything = b"".join(p.read_bytes() for p in pytester.path.rglob("*") if p.is_file())
    for value in (TOKEN, BACKUP, PIN, PIN[:6]):
        assert value.encode() not in everything
        assert value not in fake_llm.bodies_text()


@pytest.fixture
def runtime_overrides() -> dict[str, Any]:
    """This module's changes to the shared ``make_runtime`` settings (tests/conftest.py)."""
    return {"llm_retries": 0, "llm_timeout": 5, "artifacts": "always"}


@pytest.mark.usefixtures("secrets")
@pytest.mark.slow
def test_a_failing_run_masks_the_secret_in_the_analysis_pictures(
    make_runtime: Callable[..., Runtime], fake_llm_env: FakeLLM, boxes: dict[str, Box]
) -> None:
    """The challenge analysis sends the run's screenshots to the model: masked too."""
    fake_llm_env.add_rule("condition_check", None, {"met": False, "explanation": "no"})
    fake_llm_env.add_rule(
        "challenge_analysis",
        None,
        {"where": "step 1", "why": "no", "what": "-", "guidance": ["-"], "category": "product_defect"},
    )
    result = make_runtime().run(parse(WORKFLOW, "keys.reuseit.yaml"), None, "failing")
    assert result.status == "failed" and result.failed_phase == "post"
    (analysis,) = [r for r in fake_llm_env.requests if r.schema_name == "challenge_analysis"]
    assert len(analysis.images) >= 2
    painted_over = [assert_masked(image, boxes, f"analysis picture {n + 1}") for n, image in enumerate(analysis.images)]
    assert painted_over.count(True) >= 1
    for shot in result.screenshots():
        typed = assert_masked(shot.data, boxes, f"result screenshot {shot.label}")
        assert typed == (shot.label != "step 1 before action"), shot.label


def test_the_scaled_capture_path_is_masked_too(page, pages_url: str, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """A viewport wider than max_width is captured another way (scaled in the browser): the
    masks hold there as well. Here the secret is only shown by the page, never typed."""
    from pytest_reuseit.browser.masking import ScreenMasks, attach

    page.set_viewport_size({"width": 1600, "height": 720})
    page.goto(f"{pages_url}/masking/keys.html")
    page.evaluate(f"document.getElementById('echo').textContent = {TOKEN!r}")
    attach(page.context, ScreenMasks(secret_values={"T": TOKEN}, render=str))
    echo = page.locator("#echo").bounding_box()
    heading = page.locator("h1").bounding_box()
    assert echo and heading
    image = capture(page, max_width=1280)
    assert Image.open(io.BytesIO(image)).width == 1280
    scale = 1280 / 1600
    box = tuple(v * scale * VIEWPORT["width"] / 1280 for v in (echo["x"], echo["y"], echo["width"], echo["height"]))
    head = tuple(
        v * scale * VIEWPORT["width"] / 1280 for v in (heading["x"], heading["y"], heading["width"], heading["height"])
    )
    assert has_detail(image, head)  # type: ignore[arg-type]
    assert painted(image, box)  # type: ignore[arg-type]
    # After the capture the page is as it was: the overlay is gone.
    assert page.locator("[data-reuseit-overlay]").count() == 0
