"""Dates as a workflow writes them and as a field shows them: parsed, and written in a field's
own format (its placeholder, or the date it shows)."""

from __future__ import annotations

import datetime as dt
import re

MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]

_ISO = re.compile(r"^\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2}))?\s*$")
_NUMERIC = re.compile(r"^\s*(\d{1,4})\s*([./-])\s*(\d{1,2})\s*[./-]\s*(\d{1,4})\s*$")
_WORDS = re.compile(r"([A-Za-z]{3,})\.?")


def parse(text: str, order: str = "MDY") -> dt.date | None:
    """A date in any of the ways a field or a person writes one: ISO, ``03/15/2027`` (in the
    field's ``order`` of day, month and year), ``15.03.2027``, ``March 15, 2027``, ``15 Mar 2027``."""
    text = text.strip()
    if not text:
        return None
    m = _ISO.match(text)
    if m:
        return _date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    m = _NUMERIC.match(text)
    if m:
        a, sep, b, c = m.group(1), m.group(2), m.group(3), m.group(4)
        if len(a) == 4:
            return _date(int(a), int(b), int(c))
        x, y, year = int(a), int(b), int(c)
        if year < 100:
            year += 2000
        if order.startswith("D") or sep == "." or x > 12:
            return _date(year, y, x)
        return _date(year, x, y)
    word = _WORDS.search(text)
    if word:
        month = _month(word.group(1))
        numbers = [int(n) for n in re.findall(r"\d+", text)]
        years = [n for n in numbers if n > 31]
        days = [n for n in numbers if n <= 31]
        if month and years and days:
            return _date(years[0], month, days[0])
    return None


def _month(word: str) -> int | None:
    w = word.lower()
    for i, name in enumerate(MONTHS):
        if name.startswith(w[:3]) and (len(w) <= 3 or name.startswith(w)):
            return i + 1
    return None


def _date(y: int, m: int, d: int) -> dt.date | None:
    try:
        return dt.date(y, m, d)
    except ValueError:
        return None


def fmt_of(placeholder: str, shown: str) -> str | None:
    """The field's format in tokens (``MM/DD/YYYY``), from its placeholder, else the date it shows."""
    p = placeholder.strip()
    if re.search(r"(?i)y{2,4}", p) and re.search(r"(?i)d{1,2}", p) and re.search(r"(?i)m{1,2}", p):
        return p.upper().replace("YYYY", "YYYY")
    s = shown.strip()
    if _ISO.match(s):
        return "YYYY-MM-DD"
    m = _NUMERIC.match(s)
    if m:
        sep = m.group(2)
        if len(m.group(1)) == 4:
            return f"YYYY{sep}MM{sep}DD"
        if sep == "." or int(m.group(1)) > 12:
            return f"DD{sep}MM{sep}YYYY"
        return f"MM{sep}DD{sep}YYYY"
    if _WORDS.search(s) and parse(s):
        return "MMMM D, YYYY"
    return None


def write(date: dt.date, fmt: str) -> str:
    """``date`` in the tokens of ``fmt`` (YYYY, YY, MMMM, MMM, MM, M, DD, D)."""
    out = []
    i = 0
    tokens = ("YYYY", "YY", "MMMM", "MMM", "MM", "M", "DD", "D")
    while i < len(fmt):
        for tok in tokens:
            if fmt.startswith(tok, i):
                out.append(_token(date, tok))
                i += len(tok)
                break
        else:
            out.append(fmt[i])
            i += 1
    return "".join(out)


def _token(date: dt.date, tok: str) -> str:
    name = MONTHS[date.month - 1].capitalize()
    return {
        "YYYY": f"{date.year:04d}",
        "YY": f"{date.year % 100:02d}",
        "MMMM": name,
        "MMM": name[:3],
        "MM": f"{date.month:02d}",
        "M": str(date.month),
        "DD": f"{date.day:02d}",
        "D": str(date.day),
    }[tok]


def order_of(fmt: str | None) -> str:
    """The order of day, month and year in a format: ``MDY``, ``DMY`` or ``YMD``."""
    if not fmt:
        return "MDY"
    f = fmt.upper()
    pos = {k: f.find(k) for k in "DMY"}
    return "".join(sorted((k for k in pos if pos[k] >= 0), key=lambda k: pos[k])) or "MDY"
