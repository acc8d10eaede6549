"""The DOM a Playwright trace kept before each action, as HTML again.

A trace stores each page as it was before, during and after every call (``frame-snapshot``
events): a tree of ``[tag, attributes, ...children]`` and text, where a subtree unchanged since
an earlier snapshot of the same frame is written as a reference ``[[snapshots back, node
number]]`` (nodes numbered in post-order, references not counted). This is the format Playwright's
trace viewer renders (its ``snapshotRenderer``); here it is rebuilt to HTML with the page's scripts
left out, so that a browser can show the page as it was and find the element a step acted on.
"""

from __future__ import annotations

import html
from typing import Any

# Elements whose contents are not HTML, and void elements (no closing tag).
_RAW = {"SCRIPT", "NOSCRIPT"}
_VOID = {"AREA", "BASE", "BR", "COL", "EMBED", "HR", "IMG", "INPUT", "LINK", "META", "SOURCE", "TRACK", "WBR"}
# The attributes the recorder adds for state it cannot write as HTML: the value, checked and
# selected state become plain attributes again; the rest (scroll, bounding boxes) are dropped.
_STATE = {"__playwright_value_": "value", "__playwright_checked_": "checked", "__playwright_selected_": "selected"}


class FrameSnapshots:
    """The snapshots of one frame, in order, each renderable as HTML."""

    def __init__(self) -> None:
        self._raw: list[Any] = []
        self._nodes: list[list[Any] | None] = []

    def add(self, html_tree: Any) -> int:
        self._raw.append(html_tree)
        self._nodes.append(None)
        return len(self._raw) - 1

    def _post_order(self, index: int) -> list[Any]:
        nodes = self._nodes[index]
        if nodes is None:
            nodes = []

            def visit(n: Any) -> None:
                if isinstance(n, str):
                    nodes.append(n)
                elif isinstance(n, list) and n and isinstance(n[0], str):
                    for child in n[2:]:
                        visit(child)
                    nodes.append(n)

            visit(self._raw[index])
            self._nodes[index] = nodes
        return nodes

    def render(self, index: int) -> str:
        out: list[str] = []

        def visit(n: Any, at: int, depth: int) -> None:
            if depth > 500:  # a reference cycle in a damaged trace: stop, do not recurse for ever
                return
            if isinstance(n, str):
                out.append(html.escape(n, quote=False))
                return
            if not isinstance(n, list) or not n:
                return
            if isinstance(n[0], list):  # [[snapshots back, node number]]
                back, number = (n[0] + [0, 0])[:2]
                ref = at - int(back)
                if 0 <= ref <= at:
                    nodes = self._post_order(ref)
                    if 0 <= int(number) < len(nodes):
                        visit(nodes[int(number)], ref, depth + 1)
                return
            tag = str(n[0])
            attrs = n[1] if len(n) > 1 and isinstance(n[1], dict) else {}
            if tag in _RAW:
                return
            if tag == "TEMPLATE" and "__playwright_shadow_root_" in attrs:
                out.append('<template shadowrootmode="open">')
            else:
                out.append(f"<{tag.lower()}{_attributes(tag, attrs)}>")
            if tag in _VOID:
                return
            for child in n[2:]:
                visit(child, at, depth + 1)
            out.append(f"</{tag.lower()}>")

        visit(self._raw[index], index, 0)
        return "<!DOCTYPE html>" + "".join(out)


def _attributes(tag: str, attrs: dict[str, Any]) -> str:
    parts = []
    for name, value in attrs.items():
        if name in _STATE:
            if name == "__playwright_value_" and tag == "TEXTAREA":
                continue  # its text is its value, already a child
            if name != "__playwright_value_" and str(value).lower() == "false":
                continue
            name = _STATE[name]
        elif name.startswith("__playwright") or name.lower().startswith("on"):
            continue  # the recorder's own marks; event handlers (no script runs here anyway)
        parts.append(f' {name}="{html.escape(str(value), quote=True)}"')
    return "".join(parts)
