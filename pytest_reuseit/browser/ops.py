"""Deterministic ops (the ``do:`` lists): the handlers of the registry's built-in ops.

Each op is declared once in ``workflow/ops.py`` (name, argument model, description); its handler
is attached here. Handlers act on the run's current page (``ctx.page``).

Errors are sorted here, once: the page did not let the op happen (``OpFailed``: a locator found
nothing, an element never became actionable, a script threw) is a *failure* the engine may
recover from or heal; the browser or the site being gone (``BrokenRun``) is *broken*.

The handlers live by what they act on: ``pointer_ops`` (click, the mouse, drag), ``field_ops``
(check, fill, select, keys, scripts), ``file_ops`` (extract, upload, download), ``page_ops``
(goto, pages, history); importing this module attaches them all.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from ..errors import BrokenRun, ReuseitError
from ..workflow import ops as registry
from ..workflow.ops import Op, describe_op

# The handlers attach themselves to the registry when their modules load.
from . import field_ops, file_ops, page_ops, pointer_ops  # noqa: F401
from .file_ops import extract_value
from .observe import acted, await_document
from .op_context import OpContext, OpFailed
from .op_errors import _performed, classify, failure, loaded_after, not_answered
from .pages import DialogPolicy, until_loaded
from .scripts import closed_unresponsive

__all__ = ["OpContext", "OpFailed", "_performed", "classify", "extract_value", "loaded_after", "run_op"]


def run_op(op: Op, ctx: OpContext) -> str:
    """Perform one op on the current page; return a readable line of what was done (secrets left
    as placeholders). Modifiers apply to any op: ``dialog`` answers the dialogs it raises,
    ``new_page`` waits for the page it opens and makes that page current."""
    what = ctx.render(describe_op(op))
    entry = registry.spec(op.kind)
    if entry.handler is None:
        raise BrokenRun(f"{what}: op '{op.kind}' is registered without a handler")
    assert ctx.pages is not None
    if ctx.page.is_closed() and closed_unresponsive(ctx.page):
        raise OpFailed(
            what, "not tried: the page was closed earlier in this run, when it stopped responding", "page_closed"
        )
    ctx.op = op
    policy = None
    if op.dialog is not None:
        policy = DialogPolicy.of(op.dialog)
        if policy.text is not None:
            policy = DialogPolicy(policy.accept, ctx.reveal(policy.text))
    try:
        # A second try only when the page closed under the op before it acted (see _acted_on).
        for tries_left in (1, 0):
            if _acted_on(ctx, entry.handler, op, policy, what, last_try=not tries_left):
                break
    except ReuseitError:
        raise
    except (PlaywrightError, PlaywrightTimeout) as exc:
        raise failure(ctx, exc, what, ctx.blocked) from None
    finally:
        ctx.op = None
        acted(ctx.pages.page)
    return what


def _loaded_after(ctx: OpContext, op: Op, exc: PlaywrightTimeout) -> bool:
    """:func:`loaded_after` for an op (an ``eval`` script that navigated, too); the page it
    loaded is then let finish loading, as after any op."""
    if not loaded_after(ctx.page, exc, acted=op.kind == "eval"):
        return False
    until_loaded(ctx.page, ctx.action_timeout_ms)
    return True


def _acted_on(
    ctx: OpContext, handler: registry.Handler, op: Op, policy: DialogPolicy | None, what: str, *, last_try: bool
) -> bool:
    """One try of an op on the current page: True once it is done; False when the page closed
    under it before it acted (a pop-up closing itself after the last op's click: the browser is
    fine and the opener is current again, so the op is meant for it)."""
    assert ctx.pages is not None
    acting_on = ctx.pages.page
    # A page whose next document has not answered yet is loading (a slow server is not a dead
    # one): it gets the navigation budget before the op's own wait for its element starts.
    if await_document(acting_on) is not None:
        raise not_answered(ctx, acting_on, what)
    until_loaded(acting_on, ctx.action_timeout_ms)
    ctx.pages.answer_with(policy)
    try:
        if op.new_page:
            _opening_page(ctx, handler, op.arg, what)
        else:
            handler(ctx, op.arg)
        if policy is not None:
            _let_dialogs_arrive(ctx)
        return True
    except (PlaywrightError, PlaywrightTimeout) as exc:
        if isinstance(exc, PlaywrightTimeout) and _loaded_after(ctx, op, exc):
            return True
        if not (acting_on.is_closed() and ctx.pages.open_pages()):
            raise
        if _performed(exc):
            # The op's own action closed its page (a pop-up's Save): Playwright reports the close
            # when it arrives before the click returns (1 click in 10 on an idle machine).
            return True
        if last_try:
            raise OpFailed(what, "the page closed while the op was acting on it", "page_closed") from exc
        return False


def _let_dialogs_arrive(ctx: OpContext) -> None:
    """After an op with its own ``dialog:`` answer, give a dialog it raised time to reach the holder
    before the next op sets another answer."""
    try:
        ctx.page.wait_for_timeout(100)
    except PlaywrightError:
        pass  # the page closed: no dialog of it is left to answer


def _opening_page(ctx: OpContext, handler: registry.Handler, arg: Any, what: str) -> None:
    """Run ``handler`` expecting it to open a page (pop-up or tab) within the op's timeout."""
    assert ctx.pages is not None
    acted = False
    try:
        with ctx.pages.expect_new_page(ctx.action_timeout_ms):
            handler(ctx, arg)
            acted = True
    except PlaywrightTimeout:
        if not acted:
            raise
        raise OpFailed(
            what,
            f"no new page opened within {ctx.action_timeout_ms / 1000:g}s (new_page: true): "
            "the op went through but no pop-up window or tab appeared",
            "no_page",
        ) from None
