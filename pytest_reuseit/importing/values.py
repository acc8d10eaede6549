"""What is typed: parameters, secrets, and values a test made unique.

A value typed into a password field, or into a field whose name, id or label says token, key,
secret or password, becomes ``{secret.NAME}`` (NAME from the field): the value itself goes into
no file, summary or log. A value with a run of clock digits or a random suffix in it
(``Book 1764201234567``, ``user-3f9a1c2b``) had that part made unique by the test, so it becomes
``{unique}`` (new in each run): the workflow then passes twice in a row against a site that keeps
its rows. Anything else typed becomes a parameter named after its field.

Digits are only a hint: a value the site accepts once (a name it refuses the second time, with no
clock in it) is found by the import's own runs (``pipeline.py``: the workflow passed its first run
and failed a later one after typing the same value); it is then written with :func:`once_written`
and kept so when that passes every run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..workflow.writer import literal

_SECRET_WORDS = re.compile(r"pass(word|wd|phrase)?|secret|token|api[-_ ]?key|\bkey\b|credential|pin\b", re.I)
# The parts of a value a test makes unique: a UUID, clock digits (a time in seconds or
# milliseconds since 1970, as Date.now() or time.time() give them), or a random hex suffix with
# letters and digits mixed (8 or more, set apart). Digits alone are only a hint: a colour
# (#333333), a price (1234567.89), a phone number or a product code (ABC12345678) stay as typed.
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
_CLOCK = r"(?<![\d.,])1[5-9]\d{8}(?:\d{3})?(?![\d.,])"
_RANDOM = r"(?<![A-Za-z0-9#])(?=[a-f0-9]*\d)(?=[a-f0-9]*[a-f])[a-f0-9]{8,}(?![A-Za-z0-9])"
_UNIQUE = re.compile(f"{_UUID}|{_CLOCK}|{_RANDOM}")
# Fields whose values are no name a site keeps once: a colour, a date, a number, a phone.
_NOT_UNIQUE_TYPES = {"color", "date", "time", "datetime-local", "month", "week", "range", "number", "tel"}


def slug(text: str, *, upper: bool = False, limit: int = 40) -> str:
    words = re.findall(r"[A-Za-z0-9]+", text)
    name = "_".join(words)[:limit].strip("_") or "value"
    if name[0].isdigit():
        name = f"v_{name}"
    return name.upper() if upper else name.lower()


def is_secret_field(facts: dict[str, str], selectors: list[str]) -> bool:
    if facts.get("type", "").lower() == "password":
        return True
    named = " ".join(
        [facts.get("name", ""), facts.get("id", ""), facts.get("label", ""), facts.get("autocomplete", "")]
    )
    if named.strip():
        return bool(_SECRET_WORDS.search(named)) and "keyword" not in named.lower()
    # No facts (a recording read without its page): what its selectors say about the field.
    return any(_SECRET_WORDS.search(s) and "keyword" not in s.lower() for s in selectors)


def unique_part(value: str, facts: dict[str, str] | None = None) -> str | None:
    """The part of ``value`` a test made unique, or None. ``facts``: what the field is (a colour
    input, a select's option, a number field: never unique)."""
    facts = facts or {}
    if facts.get("tag") == "select" or facts.get("type", "").lower() in _NOT_UNIQUE_TYPES:
        return None
    m = _UNIQUE.search(value)
    return m.group(0) if m else None


@dataclass
class TypedValues:
    """Every value typed in one demonstration, as it is written in the file."""

    params: dict[str, str] = field(default_factory=dict)  # as written: literals, braces doubled
    secrets: dict[str, str] = field(default_factory=dict)  # NAME -> the value typed (never written)
    uniques: dict[str, str] = field(default_factory=dict)  # the unique part -> the value it was in
    # Values the site accepted once (found by the runs) -> as written, with {unique} in them.
    once: dict[str, str] = field(default_factory=dict)
    # Names no parameter may take: the workflow extracts values into them (an extracted value
    # is found before a parameter of the same name).
    reserved: frozenset[str] = frozenset()

    def typed(self, value: str, facts: dict[str, str], selectors: list[str]) -> str:
        """What the file says is typed: ``{secret.NAME}``, ``... {unique}`` or ``{param}``."""
        if not value:
            return value
        if is_secret_field(facts, selectors):
            base = facts.get("name") or facts.get("id") or facts.get("label") or "password"
            name = slug(base, upper=True)
            for known, typed in self.secrets.items():
                if typed == value:
                    return f"{{secret.{known}}}"
            name = _free(name, self.secrets)
            self.secrets[name] = value
            return f"{{secret.{name}}}"
        if value in self.once:
            self.once[value] = once_written(value)
            return self.once[value]
        unique = unique_part(value, facts)
        # Typed text stays text: a param's value is itself read for placeholders, so a recording
        # that typed "{env.HOME}" must type those characters, not this machine's home folder.
        text = literal(value)
        if unique is not None:
            self.uniques[unique] = value
            return text.replace(unique, "{unique}")
        base = facts.get("label") or facts.get("name") or facts.get("id") or "value"
        name = slug(base)
        for known, typed in self.params.items():
            if typed == text:
                return f"{{{known}}}"
        name = _free(name, {**self.params, **dict.fromkeys(self.reserved, "")})
        self.params[name] = text
        return f"{{{name}}}"

    def in_text(self, text: str) -> str:
        """A check's text with the values typed earlier written as they were typed (a todo named
        by a parameter is looked for by it; a unique part as ``{unique}``); its own braces doubled,
        so that they stay braces."""
        out = literal(text)
        for value, written in sorted(self.once.items(), key=lambda kv: -len(kv[0])):
            if written:  # typed earlier in this workflow: shown on the page as it was typed
                shown = re.escape(literal(value))
                out = re.sub(rf"(?<![\w-]){shown}(?![\w-])", written.replace("\\", "\\\\"), out)
        for unique in sorted(self.uniques, key=len, reverse=True):
            out = out.replace(unique, "{unique}")
        # Only the values the text holds are matched as words (a plain substring test first): a
        # test of hundreds of fields is written in linear time, not one pattern per value per text.
        for name, value in sorted(self.params.items(), key=lambda kv: -len(kv[1])):
            if value in out and distinctive(value):
                out = re.sub(rf"(?<!\w){re.escape(value)}(?!\w)", f"{{{name}}}", out)
        return out

    def holds_secret(self, text: str) -> bool:
        return any(v and v in text for v in self.secrets.values())


# A run of digits standing alone in a value ("reading-48213", "order 20931"): the part a test
# made new each run, when the value has one.
_DIGIT_RUN = re.compile(r"(?<![0-9A-Za-z])\d{3,}(?![0-9A-Za-z])")


def once_written(value: str) -> str:
    """A value the site accepts once, written so that each run types a new one: its run of digits
    as ``{unique}`` (``reading-{unique}``), else the value and ``{unique}`` (``Acme {unique}``)."""
    text = literal(value)
    runs = _DIGIT_RUN.findall(text)
    if len(runs) == 1:
        return _DIGIT_RUN.sub("{unique}", text)
    return f"{text} {{unique}}"


def distinctive(value: str) -> bool:
    """Whether a typed value, seen in a page's text, is surely the one typed: "buy milk" or
    "order 1234" are; "admin" is also the word in "Django site admin", and stays a word."""
    return len(value) >= 8 or (len(value) >= 3 and (" " in value.strip() or any(c.isdigit() for c in value)))


def _free(name: str, taken: dict[str, str]) -> str:
    """``name``, or ``name_2``, ``name_3``... the first not taken."""
    n, out = 1, name
    while out in taken:
        n += 1
        out = f"{name}_{n}"
    return out
