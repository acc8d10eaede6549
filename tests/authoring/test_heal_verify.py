"""Every use of what the history proves, checked on the site before it is kept.

The shop (tests/support/heal_shop.py) renames "Add to cart" to "Add to basket". Two workflows use
the button: one through a shared file it ``use``s and again in a later step (with a fallback that
names it too), the other signs in with a secret and clicks it twice in one step. Each failing run
stops at the first place; ``reuseit heal`` edits every place that names the button the same way,
and ``--verify`` runs both workflows from a copy against the shop before writing anything. No
model is configured anywhere here.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.morning import Morning, shop_morning

pytestmark = pytest.mark.slow

PASSWORD = "tea-Leaf-7734-secret"

SHARED = """# The shop's add button, as every product page has it (used by the add workflows).
name: Add to the cart
task: Put the product in the cart
start_url: "{base_url}/product?item=tea"
settings: {retries: 1, action_timeout: 0.5, check_timeout: 2}
steps:
  - action: Click "Add to cart"
    do:
      - click: {role: button, name: Add to cart}  # the shop's main button
    post:
      - check: The cart holds one item
        expect: {text: {role: status, equals: 1 item in cart}}
"""

TEA = """# Two teas: the shared step, then one more.
name: Add two teas
task: Put two green teas in the cart
start_url: "{base_url}/product?item=tea"
settings: {retries: 1, action_timeout: 0.5, check_timeout: 2}
steps:
  - use: shared/add-to-cart.reuseit.yaml
  - action: Add one more
    do:
      - click: {role: button, name: Add to cart}
    fallback:
      - do: [{press: {role: button, name: Add to cart, key: Enter}}]  # the keyboard's way
    post:
      - check: The cart holds two items
        expect: {text: {role: status, equals: 2 items in cart}}
"""

MUGS = """# Sign in, then two mugs in one step.
name: Add two mugs
task: Sign in and put two mugs in the cart
start_url: "{base_url}/signin"
settings: {retries: 1, action_timeout: 0.5, check_timeout: 2}
steps:
  - action: Sign in
    do:
      - fill: {label: Email, value: ada@example.com}
      - fill: {label: Password, value: "{secret.SHOP_PASSWORD}"}
      - click: {role: button, name: Sign in}
    post:
      - check: The account page greets the user
        expect: {visible: {role: heading, name: Welcome back}}
  - action: Open the mug
    do:
      - goto: "{base_url}/product?item=mug"
  - action: Click "Add to cart" twice
    do:
      - click: {role: button, name: Add to cart}  # the first mug
      - click: {role: button, name: Add to cart}  # and the second
    post:
      - check: The cart holds two items
        expect: {text: {role: status, equals: 2 items in cart}}
"""

WORKFLOWS = {"shared/add-to-cart.reuseit.yaml": SHARED, "add-tea.reuseit.yaml": TEA, "add-mugs.reuseit.yaml": MUGS}


@pytest.fixture
def morning(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Iterator[Morning]:
    with shop_morning(pytester, monkeypatch, PASSWORD, WORKFLOWS) as morning:
        yield morning


def _files(root: Path) -> Iterator[Path]:
    return (p for p in root.rglob("*") if p.is_file())


ADDS = ("add-tea.reuseit.yaml", "add-mugs.reuseit.yaml")
BUTTON = "{role: button, name: Add to cart}"


def test_one_heal_with_verify_edits_every_use_and_the_next_night_passes(morning: Morning) -> None:
    assert morning.night(*ADDS)[0] == {"passed": 2}
    morning.deploy.add_label = "Add to basket"
    counts, report, data = morning.night(*ADDS)
    assert counts == {"failed": 2}

    # The morning's outputs count every place the edit touches, not only the two ops that failed.
    (cause,) = data["causes"]
    assert (cause["heal"]["files"], cause["heal"]["places"]) == (3, 5)
    assert cause["heal"]["workflows"] == [f"workflows/{n}" for n in sorted([*ADDS, "shared/add-to-cart.reuseit.yaml"])]
    command = "reuseit heal --from report-2/healing.json --apply"
    assert f"proven by the history: `{command}` edits 5 places in 3 files" in report
    monitor = (morning.root / "report-2" / "monitor.html").read_text(encoding="utf-8")
    assert f"<code>{command}</code> edits 5 places in 3 files" in monitor
    (alert,) = morning.hook.take()[-1:]
    assert f"fix proven by the history: `{command}` edits 5 places in 3 files" in alert["text"]
    assert "PROVEN by the history: 5 edits in 3 files" in morning.terminal

    before = morning.texts()
    code, out, err = morning.command("heal", "--from", "report-2/healing.json", "--apply", "--verify")
    assert code == 0, out + err
    assert 'cause: button "Add to cart" renamed "Add to basket" (3 files, 5 places; proven by the history)' in out
    # The places no run reached are in the same cause's diff: the second click of the step, a
    # later step and its fallback's op.
    unreached = [line.split(": ", 1)[1] for line in out.splitlines() if "not reached by the run" in line]
    assert [u.split(" (line")[0] for u in unreached] == [
        "step 3 op 2", "step 2 op 1", "step 2 fallback 1 op 1"
    ]  # fmt: skip
    assert "+      - do: [{press: {role: button, name: Add to basket, key: Enter}}] # the keyboard's way" in out
    # Checked on the site before anything was written.
    lines = out.splitlines()
    verified = lines.index(next(x for x in lines if x.startswith("verify: 2 runs of the workflows the edits touch")))
    assert lines[verified + 1 : verified + 4] == [
        "  passed: workflows/add-mugs.reuseit.yaml [default]",
        "  passed: workflows/add-tea.reuseit.yaml [default]",
        'confirmed by the site: button "Add to cart" renamed "Add to basket"',
    ]
    assert lines.index(next(x for x in lines if x.startswith("wrote "))) > verified
    assert sorted(x for x in lines if x.startswith("wrote ")) == [
        f"wrote workflows/{n}" for n in sorted([*ADDS, "shared/add-to-cart.reuseit.yaml"])
    ]

    # Every place that named the button says its new name; nothing else changed, no expect line.
    after = morning.texts()
    for name, text in before.items():
        assert BUTTON not in after[name] and "name: Add to cart," not in after[name]
        old, new = text.splitlines(), after[name].splitlines()
        changed = [(a, b) for a, b in zip(old, new, strict=True) if a != b]
        assert changed and all("Add to cart" in a and "Add to basket" in b for a, b in changed)
        assert [x for x in old if "expect" in x] == [x for x in new if "expect" in x]
    assert after["add-mugs.reuseit.yaml"].count("name: Add to basket}") == 2

    # The next night both pass; the password typed by one of them is in no file and no output.
    assert morning.night(*ADDS)[0] == {"passed": 2}
    for path in _files(morning.root):
        assert PASSWORD.encode() not in path.read_bytes(), path
    for text in (out, err, report, morning.terminal):
        assert PASSWORD not in text
    # The runs that verified left nothing in the team's folder: no run output, no history of theirs.
    assert not list(morning.root.rglob("verify-*"))


def test_an_edit_the_site_does_not_confirm_is_not_written_and_the_failing_step_is_named(morning: Morning) -> None:
    assert morning.night(*ADDS)[0] == {"passed": 2}
    morning.deploy.add_label = "Add to basket"
    assert morning.night(*ADDS)[0] == {"failed": 2}
    # By the morning the button also sits behind a new dialog: the renamed click cannot reach it.
    morning.deploy.product_dialog = True
    before = morning.texts()
    code, out, err = morning.command("heal", "--from", "report-2/healing.json", "--apply", "--verify")
    assert code == 1, out + err
    assert morning.texts() == before
    assert "wrote " not in out and "confirmed by the site" not in out
    lines = out.splitlines()
    refused = [x for x in lines if x.startswith("  not confirmed: ")]
    assert len(refused) == 2
    mugs = next(x for x in refused if "add-mugs" in x)
    # The run's own one-line reason: the step, its phase, and what stopped the edited click.
    assert mugs.startswith(
        "  not confirmed: workflows/add-mugs.reuseit.yaml [default]: failed: step 3 'Click \"Add to cart\" twice' "
        "(action): action failed: click role='button'[name='Add to basket']: timed out"
    ), mugs
    assert mugs.endswith(
        '<dialog open="" id="newsletter" aria-label="Our newsletter">…</dialog> intercepts pointer events)'
    )
    (not_written,) = [x for x in lines if x.startswith("not written: ")]
    assert not_written.startswith('not written: button "Add to cart" renamed "Add to basket": ')
    assert "workflows/add-tea.reuseit.yaml [default]: failed: step 1 'Click \"Add to cart\"' (action)" in not_written
    for text in (out, err):
        assert PASSWORD not in text
