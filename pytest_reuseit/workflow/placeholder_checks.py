"""The checks of a workflow's ``{placeholders}`` that its models cannot make alone, at load time:
every name is known in every variation, none is used before the step that extracts it, params
do not refer to each other in a loop, and no secret is sent to the model in words."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from .model import Workflow
from .op_args import Extract
from .ops import Op
from .placeholders import names_in
from .source import Source, format_path
from .strict import closest

# The built-ins of the language (``unique``: a value new in each run, the same all through it);
# others come from whoever runs the file (the plugin's pytest_reuseit_placeholders hook, the
# Python API) and are passed in as ``builtin_names``.
BUILTIN_NAMES = ("base_url", "unique")


def _strings(data: Any) -> list[tuple[tuple[str | int, ...], str]]:
    """Every string in ``data`` with its path, in document order (into one list, not through nested
    generators: every workflow file is read this way at each collection)."""
    found: list[tuple[tuple[str | int, ...], str]] = []

    def walk(value: dict[Any, Any] | list[Any], prefix: tuple[str | int, ...]) -> None:  # as deep as MAX_DEPTH at most
        for key, item in value.items() if isinstance(value, dict) else enumerate(value):
            if isinstance(item, str):
                found.append(((*prefix, key), item))
            elif isinstance(item, (dict, list)):
                walk(item, (*prefix, key))

    if isinstance(data, str):
        return [((), data)]
    if isinstance(data, (dict, list)):
        walk(data, ())
    return found


@dataclass(frozen=True)
class Text:
    """A string of the file, where it is, and the placeholder names it uses."""

    path: tuple[str | int, ...]
    text: str
    names: tuple[str, ...]


def texts_of(data: Any) -> list[Text]:
    return [
        # A variable check's name is a placeholder's, written without its braces.
        Text(path, text, (text,)) if path[-2:] == ("variable", "name") else Text(path, text, tuple(names_in(text)))
        for path, text in _strings(data)
    ]


def _extract_targets(wf: Workflow) -> set[str]:
    names: set[str] = set()

    def from_ops(ops: tuple[Op, ...] | None) -> None:
        for op in ops or ():
            if isinstance(op.arg, Extract):
                names.add(op.arg.into)
            if op.into is not None:  # download's saved path
                names.add(op.into)

    for step in wf.steps:
        names.update(e.into for e in step.extract)
        from_ops(step.do)
        for fb in step.fallback:
            from_ops(fb.do)
    return names


def check_placeholders(wf: Workflow, texts: list[Text], source: Source, builtin_names: Collection[str]) -> list[str]:
    """Every ``{name}`` must be resolvable for every variation; say which and where if not."""
    problems: list[str] = []
    extracted = _extract_targets(wf)
    base = set(wf.params) | extracted | set(BUILTIN_NAMES) | set(builtin_names) | set(wf.usefixtures)
    for t in texts:
        path = t.path
        if path and path[0] == "variations" and len(path) > 2 and path[2] == "id":
            continue
        for name in t.names:
            if name.startswith(("env.", "secret.")):
                continue
            if name.split(".", 1)[0] in wf.usefixtures:
                continue  # a fixture's value (or a key of it): known only once the fixture has run
            missing_in = [v.id for v in wf.all_variations() if name not in base and name not in v.params]
            if missing_in:
                known = sorted(base | {k for v in wf.all_variations() for k in v.params})
                # The name may exist in other variations: suggesting it back would be no help.
                guess = closest(name, [k for k in known if k != name])
                hint = f" (did you mean '{{{guess}}}'?)" if guess else ""
                scope = (
                    "" if len(missing_in) == len(wf.all_variations()) else f" in variation(s) {', '.join(missing_in)}"
                )
                problems.append(
                    f"{source.where(*path)}: {format_path(path)}: unknown placeholder {{{name}}}{scope}{hint}; "
                    f"known names: {', '.join(known)}"
                )
    return problems


def _is_words(path: tuple[str | int, ...]) -> bool:
    """Strings that go to the model as words: checks in words, fallbacks in words, model queries."""
    tail = path[-1] if path else None
    if tail == "query" and "extract" in path:
        return True
    if path[:1] == ("outcome",):
        return len(path) == 2 or path[2:] == ("check",)
    if len(path) >= 4 and path[0] == "steps" and path[2] in ("pre", "post"):
        return len(path) == 4 or path[4:] == ("check",)
    if len(path) >= 4 and path[0] == "steps" and path[2] == "fallback":
        return len(path) == 4 or path[4:] == ("agent",)
    return False


def _params_sets(wf: Workflow) -> list[dict[str, object]]:
    return [{**wf.params, **v.params} for v in wf.all_variations()]


def _secrets_reached(text: str, params: dict[str, object], seen: frozenset[str] = frozenset()) -> set[str]:
    """The ``{secret.X}`` a text leads to, directly or through params."""
    found: set[str] = set()
    for name in names_in(text):
        if name.startswith("secret."):
            found.add(name)
        elif name in params and name not in seen:
            found |= _secrets_reached(str(params[name]), params, seen | {name})
    return found


def check_secret_words(wf: Workflow, texts: list[Text], source: Source) -> list[str]:
    problems = []
    for t in texts:
        path, text = t.path, t.text
        if not _is_words(path) or not t.names:
            continue
        reached = set().union(*(_secrets_reached(text, p) for p in _params_sets(wf)))
        if reached:
            problems.append(
                f"{source.where(*path)}: {format_path(path)}: {{{sorted(reached)[0]}}} would be sent to the model: "
                "secrets may not appear in checks in words, fallbacks in words or queries "
                "(compare it with an expect, or type it with a do op)"
            )
    return problems


def check_param_loops(wf: Workflow, data: dict[str, Any], source: Source) -> list[str]:
    """Params that refer to each other in a circle never resolve: name the circle."""
    problems: list[str] = []
    for params in _params_sets(wf):
        for start in params:
            chain = [start]
            while True:
                refs = [n for n in names_in(str(params[chain[-1]])) if n in params]
                nxt = next((n for n in refs if n in chain), None)
                if nxt is not None:
                    if nxt == start:
                        circle = " -> ".join(f"{{{n}}}" for n in [*chain, start])
                        line = f"{source.where('params', start)}: params.{start}: placeholders refer to each other in a loop: {circle}"
                        if line not in problems and not any(f"{{{start}}}" in p for p in problems):
                            problems.append(line)
                    break
                unvisited = [n for n in refs if n not in chain]
                if not unvisited:
                    break
                chain.append(unvisited[0])
    return problems


def _available_from(wf: Workflow) -> dict[str, float]:
    """For each extracted name, the first position where it has a value (see :func:`_position`)."""
    avail: dict[str, float] = {}
    for i, step in enumerate(wf.steps):
        for k, op in enumerate(step.do or ()):
            if isinstance(op.arg, Extract):
                avail.setdefault(op.arg.into, i + (k + 1) / 1000)  # for the ops after it, and the post checks
        for fb in step.fallback:
            for op in fb.do or ():
                if isinstance(op.arg, Extract):
                    avail.setdefault(op.arg.into, i + 1)
        for ex in step.extract:
            avail.setdefault(ex.into, i + 1)  # step extraction runs after the post checks
    return avail


def _position(path: tuple[str | int, ...]) -> float:
    """When a string is filled in: before step 1 (-1), during step i's pre checks, action and op k
    (i + k/1000), its post checks and fallbacks (i + 0.5), or after the last step (outcome)."""
    if path[:1] == ("outcome",):
        return float("inf")
    if path[:1] != ("steps",) or len(path) < 3 or not isinstance(path[1], int):
        return -1
    i = path[1]
    if path[2] == "do" and len(path) > 3 and isinstance(path[3], int):
        return i + path[3] / 1000
    if path[2] in ("post", "fallback", "extract"):
        return i + 0.5
    return i


def check_use_before_extract(
    wf: Workflow, texts: list[Text], source: Source, builtin_names: Collection[str] = ()
) -> list[str]:
    """A ``{name}`` that only an extraction provides must come after what extracts it."""
    given = {*BUILTIN_NAMES, *builtin_names} | {k for p in _params_sets(wf) for k in p}
    avail = _available_from(wf)
    problems: list[str] = []
    for t in texts:
        path = t.path
        for name in t.names:
            if name in given or name not in avail or avail[name] <= _position(path):
                continue
            problems.append(
                f"{source.where(*path)}: {format_path(path)}: {{{name}}} is used before it is extracted "
                f"(step {int(avail[name] - 0.001) + 1} extracts it)"
            )
    return problems
