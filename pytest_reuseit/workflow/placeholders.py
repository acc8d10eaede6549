"""``{placeholder}`` filling, with secrets kept out of everything but the typed value.

``{name}`` comes from (in order) values extracted earlier in the run, the variation's params,
the workflow's params, then built-ins (fixture values first, ``{fixture.key}`` for a mapping's keys).
``{env.NAME}`` reads the environment. ``{secret.NAME}`` reads it too, but only :meth:`Values.render`
with ``reveal=True`` (used at the moment a value is typed, navigated to, evaluated or compared) puts
the value in; everywhere else it stays written as ``{secret.NAME}``. Every secret value the run
knows (the workflow's secrets, and values read from the page that hold one) is replaced by
:data:`MASK` in anything written or sent to a model. ``{{``/``}}`` are literal braces; braces
around anything that is not a name (JavaScript blocks) are left alone.
"""

from __future__ import annotations

import os
import re
import secrets
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from urllib.parse import quote, quote_plus

from ..errors import PlaceholderError

# {name}, {env.NAME}, {secret.NAME}, and {fixture.key} for a key of a fixture's mapping.
PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?)\}")
MASK = "***"
# Shorter secrets are refused: masking "ab" would blank every "ab" in every report.
MIN_SECRET_LENGTH = 4


def new_unique() -> str:
    """A value for ``{unique}``: the clock in milliseconds and a random suffix, in hex."""
    return f"{int(time.time() * 1000):x}{secrets.token_hex(2)}"


def names_in(text: str) -> Iterator[str]:
    """Every placeholder name used in ``text`` (``env.X``/``secret.X`` included)."""
    if "{" not in text:  # most strings of a file: a scan for a brace is far cheaper than the pattern's
        return
    for m in PLACEHOLDER.finditer(text):
        if m.group(1):
            yield m.group(1)


def secret_value(var: str, environ: Mapping[str, str]) -> str:
    """The value of ``{secret.VAR}``; a clear error when it is unset or too short to mask safely."""
    value = environ.get(var)
    if value is None:
        raise PlaceholderError(f"secret '{var}' is not set: export {var}=... (secrets are read from the environment)")
    if len(value) < MIN_SECRET_LENGTH:
        raise PlaceholderError(
            f"secret '{var}' is {len(value)} characters long; secrets need at least {MIN_SECRET_LENGTH} "
            "characters (a shorter one would be masked everywhere it occurs in ordinary text)"
        )
    return value


def as_shown(secrets: Iterable[str]) -> set[str]:
    """The secrets as a page shows them: a page's text, its accessibility tree and an element's
    name show a run of spaces, tabs or line breaks as one space, trimmed. A form too short to be
    told from other text (under MIN_SECRET_LENGTH) is left out."""
    collapsed = {" ".join(v.split()) for v in secrets if v}
    return {f for f in collapsed if len(f) >= MIN_SECRET_LENGTH}


@dataclass
class Values:
    """The values one run can fill in. ``extracted`` grows as the run goes."""

    params: Mapping[str, object]
    builtins: Mapping[str, object] = field(default_factory=dict)
    extracted: dict[str, str] = field(default_factory=dict)
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)
    secrets_used: dict[str, str] = field(default_factory=dict)
    # Values to mask besides the secrets themselves: values read from the page that hold a secret.
    derived: set[str] = field(default_factory=set)
    known_secrets: dict[str, str] = field(default_factory=dict)
    # ``{unique}``: made on first use, then the same all through the run (a name typed in one step
    # and looked for in the next); new in the next run, so a site that keeps rows takes it again.
    unique: str = ""

    def known(self) -> list[str]:
        return sorted({*self.extracted, *self.params, *self.builtins, "unique"})

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
                value = secret_value(var, self.environ)
                self.known_secrets[var] = value
                if reveal:
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
            return self._builtin(name)

        return PLACEHOLDER.sub(sub, text)

    def _builtin(self, name: str) -> str:
        """The language's own built-ins (what no source above defines), else the error naming them."""
        if name == "unique":
            if not self.unique:
                self.unique = new_unique()
            return self.unique
        hint = " (pass --base-url or set it in params)" if name == "base_url" else ""
        raise PlaceholderError(
            f"unknown placeholder {{{name}}}{hint}; known names: {', '.join(self.known()) or '(none)'}"
        )

    def load_secrets(self, names: Iterable[str]) -> None:
        """Read every ``{secret.NAME}`` a workflow uses up front: an unset or short one fails before
        anything runs, and each is masked from the start (a page may show one before it is typed)."""
        for var in names:
            self.known_secrets[var] = secret_value(var, self.environ)

    def add_derived(self, value: str) -> None:
        """Treat ``value`` (read from the page) as secret from now on."""
        if len(value.strip()) >= MIN_SECRET_LENGTH:
            self.derived.add(value)

    def _masked_values(self) -> list[str]:
        values = {*self.known_secrets.values(), *self.secrets_used.values(), *self.derived}
        forms = {f for v in values if v for f in (v, quote(v, safe=""), quote_plus(v), quote(v))}
        forms |= as_shown(values)
        # Longest first, so a secret inside a longer derived value does not leave the rest showing.
        return sorted(forms, key=len, reverse=True)

    @property
    def has_secrets(self) -> bool:
        """Whether the run knows any secret value (named, typed, compared or read from the page)."""
        return bool(self.known_secrets or self.secrets_used or self.derived)

    def holds_secret(self, text: str) -> bool:
        return any(v in text for v in self._masked_values())

    def mask(self, text: str) -> str:
        """Replace every known secret value (also URL-encoded) with :data:`MASK`."""
        for value in self._masked_values():
            text = text.replace(value, MASK)
        return text
