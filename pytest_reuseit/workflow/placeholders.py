"""``{placeholder}`` filling, with secrets kept out of everything but the typed value.

``{name}`` comes from (in order) values extracted earlier in the run, the variation's params,
the workflow's params, then built-ins (fixture values first, ``{fixture.key}`` for a mapping's keys). ``{env.NAME}`` reads the environment. ``{secret.NAME}``
reads it too, but only :meth:`Values.render` with ``reveal=True`` (used at the moment of typing)
puts the value in; everywhere else it stays written as ``{secret.NAME}``. ``{{``/``}}`` are
literal braces; braces around anything that is not a name (JavaScript blocks) are left alone.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from ..errors import PlaceholderError

# {name}, {env.NAME}, {secret.NAME}, and {fixture.key} for a key of a fixture's mapping.
PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?)\}")
MASK = "******"


def names_in(text: str) -> Iterator[str]:
    """Every placeholder name used in ``text`` (``env.X``/``secret.X`` included)."""
    for m in PLACEHOLDER.finditer(text):
        if m.group(1):
            yield m.group(1)


@dataclass
class Values:
    """The values one run can fill in. ``extracted`` grows as the run goes."""

    params: Mapping[str, object]
    builtins: Mapping[str, object] = field(default_factory=dict)
    extracted: dict[str, str] = field(default_factory=dict)
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)
    secrets_used: dict[str, str] = field(default_factory=dict)

    def known(self) -> list[str]:
        return sorted({*self.extracted, *self.params, *self.builtins})

    def render(self, text: str, *, reveal: bool = False, _depth: int = 0) -> str:
        """Fill every placeholder; secrets only with ``reveal`` (the value is then remembered for masking)."""
        if _depth > 10:
            raise PlaceholderError(f"placeholders refer to each other in a loop in {text!r}")

        def sub(m: re.Match[str]) -> str:
            token = m.group(0)
            if token == "{{":
                return "{"
            if token == "}}":
                return "}"
            name = m.group(1)
            if name.startswith("secret."):
                var = name[len("secret.") :]
                value = self.environ.get(var)
                if value is None:
                    raise PlaceholderError(
                        f"secret '{var}' is not set: export {var}=... (secrets are read from the environment)"
                    )
                self.secrets_used[var] = value
                return value if reveal else token
            if name.startswith("env."):
                var = name[len("env.") :]
                if var not in self.environ:
                    raise PlaceholderError(f"environment variable '{var}' (used as {{{name}}}) is not set")
                return self.environ[var]
            for source in (self.extracted, self.params, self.builtins):
                if name in source:
                    # Params may themselves use placeholders (site: "{base_url}").
                    return self.render(str(source[name]), reveal=reveal, _depth=_depth + 1)
            hint = ""
            if name == "base_url":
                hint = " (pass --base-url or set it in params)"
            raise PlaceholderError(
                f"unknown placeholder {{{name}}}{hint}; known names: {', '.join(self.known()) or '(none)'}"
            )

        return PLACEHOLDER.sub(sub, text)

    def mask(self, text: str) -> str:
        """Replace every secret value that has been used with a mask (defence in depth)."""
        for value in self.secrets_used.values():
            if value:
                text = text.replace(value, MASK)
        return text
