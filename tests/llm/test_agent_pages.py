"""The agent on real sites: it follows the pop-up its click opens, answers a dialog, uploads a file
from the workflow's folder, switches pages (synthesis compiling such runs to the matching ops is
tested in tests/synthesis/test_synthesis.py).

The model is the local fake endpoint, answering from the observation it is sent (so these tests
also check what the agent is shown: open pages, dialogs)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from pytest_reuseit.runtime import Runtime
from pytest_reuseit.workflow.loader import parse
from tests.support.guarded_runs import fake, rt
from tests.support.llm_server import FakeLLM, Request
from tests.support.model_answers import act, already_done, observation, ref, requests
from tests.support.paths import PAGES

__all__ = ["fake", "rt"]  # the model-guard tests' fixtures, for the tests below

REAL = PAGES / "real"


def run(rt: Runtime, steps: list[dict[str, Any]], start: str):  # type: ignore[no-untyped-def]
    doc = {
        "name": "agent on real sites",
        "task": "use the site",
        "start_url": "{base_url}/real/" + start,
        "settings": {"retries": 0, "check_timeout": 3, "action_timeout": 5},
        "steps": steps,
    }
    loaded = parse(yaml.safe_dump(doc, sort_keys=False), "agent.reuseit.yaml", folder=str(REAL))
    return rt.run(loaded, None, "run")


def turns(req: Request) -> int:
    return already_done(req).count("agent: ")


@pytest.mark.slow
def test_agent_follows_the_popup_its_click_opens_and_comes_back_when_it_closes(rt: Runtime, fake: FakeLLM) -> None:
    def agent(req: Request) -> dict[str, str]:
        n = turns(req)
        if n == 0:
            return act("click", ref(req, "link", "Add another publisher"), message="I open the pop-up.")
        if n == 1:
            return act("fill", ref(req, "textbox", "Name"), "Acme", message="I type the name.")
        if n == 2:
            return act("click", ref(req, "button", "Save"), message="I save.")
        return act("done", message="The publisher is set.")

    fake.add_rule("agent_action", None, agent)
    result = run(
        rt,
        [
            {
                "action": "Add the publisher Acme through the pop-up",
                "post": [{"expect": {"value": {"label": "Publisher", "equals": "Acme"}}}],
            }
        ],
        "popup.html",
    )
    assert result.status == "passed", result.message
    first = result.steps[0].actions[0]
    assert first.opened_page and first.description.endswith("(opened a new page)")
    second_turn = requests(fake, "agent_action")[1]
    assert "Page: Add publisher" in "\n".join(p["text"] for p in second_turn.messages[1]["content"] if "text" in p)
    assert "Open pages (switch_page takes the index):" in observation(second_turn)
    assert "popup-form.html?from=book (current)" in observation(second_turn)


@pytest.mark.slow
def test_agent_sees_the_dismissed_dialog_and_answers_it(rt: Runtime, fake: FakeLLM) -> None:
    def agent(req: Request) -> dict[str, str]:
        n = turns(req)
        if n in (0, 2):
            return act("click", ref(req, "button", "Delete"), message="I delete the rows.")
        if n == 1:
            assert "Dialog shown: confirm 'Are you sure you want to delete 3 rows?' (dismissed)" in observation(req)
            return act("dialog", value="accept", message="The confirmation was dismissed; I accept it next time.")
        return act("done", message="Deleted.")

    fake.add_rule("agent_action", None, agent)
    steps = [
        {
            "action": "Delete the rows, confirming",
            "post": [{"expect": {"text": {"css": "#status", "equals": "Deleted"}}}],
        }
    ]
    result = run(rt, steps, "dialogs.html")
    assert result.status == "passed", result.message
    assert [d.answer for d in result.steps[0].dialogs] == ["dismissed", "accepted"]
    assert [a.description for a in result.steps[0].actions][1] == "dialog 'accept'"


@pytest.mark.slow
def test_agent_uploads_a_file_from_the_workflow_folder_only(rt: Runtime, fake: FakeLLM) -> None:
    def agent(req: Request) -> dict[str, str]:
        n = turns(req)
        if n == 0:
            return act("upload", ref(req, "button", "Invoice"), "../ops.html", message="Outside the folder.")
        if n == 1:
            return act("upload", ref(req, "button", "Invoice"), "files/invoice.txt", message="I attach the invoice.")
        return act("done", message="Attached.")

    fake.add_rule("agent_action", None, agent)
    steps = [
        {
            "action": "Attach the invoice",
            "post": [{"expect": {"text": {"css": "#chosen", "equals": "invoice.txt (11 bytes)"}}}],
        }
    ]
    result = run(rt, steps, "files.html")
    assert result.status == "passed", result.message
    refused, done = result.steps[0].actions[:2]
    assert not refused.ok and refused.error == "the file must be an existing file inside the workflow's folder"
    assert done.ok and done.description == "upload role=button[name=\"Invoice\"] 'files/invoice.txt'"


@pytest.mark.slow
def test_agent_cannot_go_to_a_local_file(rt: Runtime, fake: FakeLLM) -> None:
    # A page's text may tell the agent to open file:///etc/passwd: its screenshot and text would
    # then go to the model and the reports. The agent is told it cannot, and stays on the site.
    def agent(req: Request) -> dict[str, str]:
        if turns(req) == 0:
            return act("goto", value="file:///etc/passwd", message="The page says to open this file.")
        assert "root:" not in observation(req)
        return act("done", message="Stayed on the site.")

    fake.add_rule("agent_action", None, agent)
    steps = [{"action": "Look at the invoices", "post": [{"expect": {"title": {"equals": "Files"}}}]}]
    result = run(rt, steps, "files.html")
    assert result.status == "passed", result.message
    refused = result.steps[0].actions[0]
    assert not refused.ok and refused.error == "file:///etc/passwd is not a web address (http:// or https:// only)"
    assert "root:" not in fake.bodies_text()


@pytest.mark.slow
def test_agent_switch_page_and_close_page(rt: Runtime, fake: FakeLLM) -> None:
    def agent(req: Request) -> dict[str, str]:
        n = turns(req)
        if n == 0:
            return act("click", ref(req, "link", "Open the help in a tab"), message="I open the help.")
        if n == 1:
            return act("switch_page", value="main", message="Back to the form.")
        if n == 2:
            return act("switch_page", value="popup-info", message="To the help again.")
        if n == 3:
            return act("close_page", message="I close the help.")
        return act("done", message="Back on the form.")

    fake.add_rule("agent_action", None, agent)
    steps = [{"action": "Look at the help, then close it", "post": [{"expect": {"title": {"equals": "Book form"}}}]}]
    result = run(rt, steps, "popup.html")
    assert result.status == "passed", result.message
    assert [(a.description, a.ok) for a in result.steps[0].actions][1:] == [
        ("switch_page 'main'", True),
        ("switch_page 'popup-info'", True),
        ("close_page", True),
    ]
