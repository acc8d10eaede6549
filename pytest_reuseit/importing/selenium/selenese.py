"""The parts of a Selenium IDE or Katalon Recorder command: locators, option locators, keys,
patterns and ``${variables}``, each read as the runner of that tool reads it.

Two runners, two dialects:

- ``side``: Selenium IDE's own runner (SeleniumHQ/selenium-ide, ``packages/side-runtime``:
  ``webdriver.ts`` ``parseLocator``/``parseOptionLocator``/``preprocessKeys``, ``preprocessors.ts``
  ``interpolateString``/``interpolateScript``, ``variables.ts``). A locator is ``id=``, ``name=``,
  ``css=``, ``xpath=`` (or a leading ``//``), ``linkText=`` (``link=``), ``partialLinkText=``, and
  WebDriver acts on the first element it finds; a value is compared as it is (no patterns).
- ``katalon``: Katalon Recorder's Selenium Core (katalon-studio/katalon-recorder,
  ``content/selenium-browserbot.js`` locators and ``parse_locator``, ``content/utils.js``
  ``PatternMatcher``, ``panel/js/background/formatCommand.js`` ``xlateArgument``). A locator
  without a prefix is an id, else a name (``identifier``); ``link=`` matches a pattern; an expected
  value is a pattern (``glob:`` by default, ``regexp:``, ``regexpi:``, ``exact:``).

Every element locator becomes Playwright selectors ending ``>> nth=0``: both runners take the
first element that matches, where Playwright would refuse an ambiguous one. What has no exact
Playwright form raises :class:`NotImported` with the reason, written as a comment by the caller.
"""

from __future__ import annotations

import json
import re

from ..refs import holds_ref, ref

SIDE, KATALON = "side", "katalon"


class NotImported(Exception):
    """A command, or a part of one, the format cannot say as its runner does it: the reason."""


# ----------------------------------------------------------------------------- locators

_IDENT = re.compile(r"^-?[_a-zA-Z][_a-zA-Z0-9-]*$")


def css_string(text: str) -> str:
    """``text`` as a CSS string (double quotes; a quote, a backslash and control characters escaped)."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\{ord(ch):x} ")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def xpath_literal(text: str) -> str:
    """``text`` as an XPath 1.0 string literal (``concat()`` when it holds both kinds of quote)."""
    if "'" not in text:
        return f"'{text}'"
    if '"' not in text:
        return f'"{text}"'
    return "concat(" + ', "\'", '.join(f"'{part}'" for part in text.split("'")) + ")"


def _by_attribute(name: str, value: str) -> str:
    if name == "id" and _IDENT.match(value):
        return f"css=#{value}"
    return f"css=[{name}={css_string(value)}]"


def _link_text(text: str) -> str:
    return f"css=a:text-is({css_string(text)})"


def _side_locator(locator: str) -> list[str]:
    if locator.startswith("//"):
        return [f"xpath={locator}"]
    kind, _, rest = locator.partition("=")
    if not rest:
        raise NotImported(f"the locator {locator!r} has no strategy Selenium IDE knows (id=, css=, xpath=...)")
    if kind == "id":
        return [_by_attribute("id", rest)]
    if kind == "name":
        return [_by_attribute("name", rest)]
    if kind in ("link", "linkText"):
        return [_link_text(rest)]
    if kind == "partialLinkText":
        return [f"xpath=//a[contains(normalize-space(.), {xpath_literal(rest)})]"]
    if kind == "css":
        return [f"css={rest}"]
    if kind == "xpath":
        return [f"xpath={rest}"]
    raise NotImported(f"the locator strategy {kind}= (Selenium IDE's runner knows id, name, css, xpath, linkText)")


def _katalon_locator(locator: str) -> list[str]:
    m = re.match(r"^([A-Za-z]+)=.+", locator, re.S)
    kind = m.group(1).lower() if m else "implicit"
    rest = locator[len(kind) + 1 :] if m else locator
    if kind == "implicit":
        if rest.startswith("//"):
            return [f"xpath={rest}"]
        if rest.startswith("document."):
            raise NotImported(f"the DOM locator {locator!r} (a script, not a selector)")
        kind = "identifier"
    if kind == "identifier":  # the element of that id, else the first of that name
        return [_by_attribute("id", rest), _by_attribute("name", rest)]
    if kind in ("id", "name"):
        return [_by_attribute(kind, rest)]
    if kind == "css":
        return [f"css={rest}"]
    if kind == "xpath":
        return [f"xpath={rest}"]
    if kind == "link":
        match = text_match(rest, KATALON)
        if "equals" not in match:
            raise NotImported(f"the link locator {locator!r} matches a pattern (the format finds a link by its text)")
        return [_link_text(match["equals"])]
    raise NotImported(f"the locator strategy {kind}= (not one the format can say exactly)")


def selectors(locator: str, dialect: str) -> list[str]:
    """Playwright selectors for an element locator, each finding the first match (two for
    Katalon's ``identifier``: by id, else by name); NotImported when there is none."""
    if not locator:
        raise NotImported("an empty locator")
    found = _side_locator(locator) if dialect == SIDE else _katalon_locator(locator)
    return [f"{s} >> nth=0" for s in found]


def all_matches(locator: str, dialect: str) -> str:
    """A JavaScript expression counting every element ``locator`` finds (``storeElementCount``)."""
    found = _side_locator(locator) if dialect == SIDE else _katalon_locator(locator)
    if len(found) != 1:
        raise NotImported(f"counting the elements of {locator!r} (an id or else a name)")
    kind, _, body = found[0].partition("=")
    if kind == "css" and not re.search(r":text-is\(", body):
        return f"document.querySelectorAll({json.dumps(body)}).length"
    if kind == "xpath":
        return (
            f"document.evaluate({json.dumps(body)}, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null)"
            ".snapshotLength"
        )
    raise NotImported(f"counting the elements of {locator!r} (by their text: no CSS or XPath counts them exactly)")


# ----------------------------------------------------------------------------- options of a select


def option_choice(locator: str, dialect: str) -> str:
    """The label or value a select's option locator names, as the format's ``select`` takes it:
    ``label=``, ``value=``, or a bare label. NotImported for ``index=``, ``id=`` and patterns."""
    kind, sep, rest = locator.partition("=")
    if not sep or kind not in ("label", "value", "index", "id"):
        kind, rest = "label", locator
    if kind == "label" and rest.startswith("mostly-equals:") and dialect == SIDE:
        raise NotImported(f"the option {locator!r} (its label with spaces normalized: the format compares it whole)")
    if kind in ("label", "value") and dialect == KATALON:
        match = text_match(rest, KATALON)
        if "equals" not in match:
            raise NotImported(f"the option {locator!r} matches a pattern (the format chooses by a label or value)")
        rest = match["equals"]
    if kind in ("label", "value"):
        if not rest:
            raise NotImported(f"the option {locator!r} names no option")
        return rest
    raise NotImported(f"the option {locator!r} (the format chooses an option by its label or value)")


# ----------------------------------------------------------------------------- keys

# WebDriver's key code points (the W3C spec's table), as Playwright names the key.
_KEYS_BY_CODE = {
    "\ue003": "Backspace",
    "\ue004": "Tab",
    "\ue006": "Enter",
    "\ue007": "Enter",
    "\ue00b": "Pause",
    "\ue00c": "Escape",
    "\ue00d": " ",
    "\ue00e": "PageUp",
    "\ue00f": "PageDown",
    "\ue010": "End",
    "\ue011": "Home",
    "\ue012": "ArrowLeft",
    "\ue013": "ArrowUp",
    "\ue014": "ArrowRight",
    "\ue015": "ArrowDown",
    "\ue016": "Insert",
    "\ue017": "Delete",
    "\ue018": ";",
    "\ue019": "=",
    **{chr(0xE01A + n): f"Numpad{n}" for n in range(10)},
    "\ue024": "NumpadMultiply",
    "\ue025": "NumpadAdd",
    "\ue027": "NumpadSubtract",
    "\ue028": "NumpadDecimal",
    "\ue029": "NumpadDivide",
    **{chr(0xE031 + n): f"F{n + 1}" for n in range(12)},
}
_MODIFIER_CODES = {"\ue008": "Shift", "\ue009": "Control", "\ue00a": "Alt", "\ue03d": "Meta"}
_RELEASE_ALL = "\ue000"
# selenium-webdriver's Key names (``${KEY_ENTER}`` is Key.ENTER), as code points.
_SIDE_KEYS = {
    "NULL": "\ue000",
    "CANCEL": "\ue001",
    "HELP": "\ue002",
    "BACK_SPACE": "\ue003",
    "TAB": "\ue004",
    "CLEAR": "\ue005",
    "RETURN": "\ue006",
    "ENTER": "\ue007",
    "SHIFT": "\ue008",
    "CONTROL": "\ue009",
    "ALT": "\ue00a",
    "PAUSE": "\ue00b",
    "ESCAPE": "\ue00c",
    "SPACE": "\ue00d",
    "PAGE_UP": "\ue00e",
    "PAGE_DOWN": "\ue00f",
    "END": "\ue010",
    "HOME": "\ue011",
    "ARROW_LEFT": "\ue012",
    "LEFT": "\ue012",
    "ARROW_UP": "\ue013",
    "UP": "\ue013",
    "ARROW_RIGHT": "\ue014",
    "RIGHT": "\ue014",
    "ARROW_DOWN": "\ue015",
    "DOWN": "\ue015",
    "INSERT": "\ue016",
    "DELETE": "\ue017",
    "SEMICOLON": "\ue018",
    "EQUALS": "\ue019",
    **{f"NUMPAD{n}": chr(0xE01A + n) for n in range(10)},
    "MULTIPLY": "\ue024",
    "ADD": "\ue025",
    "SEPARATOR": "\ue026",
    "SUBTRACT": "\ue027",
    "DECIMAL": "\ue028",
    "DIVIDE": "\ue029",
    **{f"F{n + 1}": chr(0xE031 + n) for n in range(12)},
    "COMMAND": "\ue03d",
    "META": "\ue03d",
}
# Katalon Recorder's predefined ${KEY_...} variables (playback/service/variable-sevice.js).
KATALON_KEYS = {
    "KEY_ADD": "\ue025",
    "KEY_ALT": "\ue00a",
    "KEY_BACKSPACE": "\ue003",
    "KEY_BKSP": "\ue003",
    "KEY_COMMAND": "\ue03d",
    "KEY_CONTROL": "\ue009",
    "KEY_CTRL": "\ue009",
    "KEY_DECIMAL": "\ue028",
    "KEY_DEL": "\ue017",
    "KEY_DELETE": "\ue017",
    "KEY_DIV": "\ue029",
    "KEY_DIVIDE": "\ue029",
    "KEY_DOWN": "\ue015",
    "KEY_END": "\ue010",
    "KEY_ENTER": "\ue007",
    "KEY_EQUALS": "\ue019",
    "KEY_ESC": "\ue00c",
    "KEY_ESCAPE": "\ue00c",
    **{f"KEY_F{n + 1}": chr(0xE031 + n) for n in range(12)},
    "KEY_HOME": "\ue011",
    "KEY_INS": "\ue016",
    "KEY_INSERT": "\ue016",
    "KEY_LEFT": "\ue012",
    "KEY_META": "\ue03d",
    "KEY_MINUS": "\ue027",
    "KEY_MUL": "\ue024",
    "KEY_MULTIPLY": "\ue024",
    **{f"KEY_N{n}": chr(0xE01A + n) for n in range(10)},
    **{f"KEY_NUMPAD{n}": chr(0xE01A + n) for n in range(10)},
    "KEY_PAGE_DOWN": "\ue00f",
    "KEY_PAGE_UP": "\ue00e",
    "KEY_PAUSE": "\ue00b",
    "KEY_PERIOD": "\ue028",
    "KEY_PGDN": "\ue00f",
    "KEY_PGUP": "\ue00e",
    "KEY_PLUS": "\ue025",
    "KEY_RIGHT": "\ue014",
    "KEY_SEMICOLON": "\ue018",
    "KEY_SEP": "\ue026",
    "KEY_SEPARATOR": "\ue026",
    "KEY_SHIFT": "\ue008",
    "KEY_SPACE": "\ue00d",
    "KEY_SUBTRACT": "\ue027",
    "KEY_TAB": "\ue004",
    "KEY_UP": "\ue013",
}


def side_keys(text: str) -> str:
    """side-runtime's ``preprocessKeys`` after interpolation: each ``${KEY_X}`` as Key.X's code
    point, other ``${...}`` as they are; an unknown key is an error there, said here."""

    def key(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in _SIDE_KEYS:
            raise NotImported(f"${{KEY_{name}}}: Selenium IDE's runner stops on an unknown key")
        return _SIDE_KEYS[name]

    return re.sub(r"\$\{KEY_(\w+)\}", key, text)


def key_presses(text: str) -> list[tuple[str, str]]:
    """WebDriver's Element Send Keys of ``text`` as the format's ops: ``("type", chars)`` typed key
    by key, ``("press", "Control+a")`` for a key (or a character with modifiers held). A modifier's
    code point holds it down until it comes again or the NULL key; all are let go at the end."""
    out: list[tuple[str, str]] = []
    held: list[str] = []
    chars = ""
    for ch in text:
        if ch in _MODIFIER_CODES:
            name = _MODIFIER_CODES[ch]
            if chars:
                out.append(("type", chars))
                chars = ""
            held.remove(name) if name in held else held.append(name)
            continue
        if ch == _RELEASE_ALL:
            held = []
            continue
        if "\ue000" <= ch <= "\ue05f" and ch not in _KEYS_BY_CODE:
            raise NotImported(f"the key U+{ord(ch):04X} (no such key in Playwright)")
        key = _KEYS_BY_CODE.get(ch)
        if key is None and not held:
            chars += ch
            continue
        if chars:
            out.append(("type", chars))
            chars = ""
        out.append(("press", "+".join([*held, key or ch])))
    if chars:
        out.append(("type", chars))
    return out


# ----------------------------------------------------------------------------- patterns


def text_match(pattern: str, dialect: str) -> dict[str, str]:
    """How an expected text is compared: Selenium IDE's runner compares it whole (``equals``);
    Katalon's Selenium Core reads it as a pattern (``glob:`` unless ``regexp:``, ``regex:``,
    ``regexpi:``, ``regexi:`` or ``exact:`` says otherwise), whole for a glob."""
    if dialect == SIDE:
        return {"equals": pattern}
    m = re.match(r"^([a-z-]+):(.*)", pattern, re.S)
    kind, body = (m.group(1), m.group(2)) if m and m.group(1) in _STRATEGIES else ("glob", pattern)
    if kind == "exact":
        return {"equals": body}
    if kind in ("regexp", "regex", "regexpi", "regexi"):
        try:
            re.compile(body)
        except re.error as exc:
            raise NotImported(f"the pattern {pattern!r} (not a regular expression Python reads: {exc})") from None
        return {"matches": ("(?i)" if kind.endswith("i") else "") + body}
    if not re.search(r"[*?]", body):
        return {"equals": body}
    # PatternMatcher.regexpFromGlob: the glob's other characters literal, "?" any one, "*" any run.
    escaped = re.sub(r"([.^$+(){}\[\]\\|])", r"\\\1", body)
    return {"matches": "^" + escaped.replace("?", "(.|[\r\n])").replace("*", "(.|[\r\n])*") + "$"}


_STRATEGIES = ("exact", "regexp", "regex", "regexpi", "regexi", "glob")


# ----------------------------------------------------------------------------- variables

# JavaScript's \s: what side-runtime trims from a target or a value before reading it.
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
_JS_SPACE += "\u2028\u2029\u202f\u205f\u3000\ufeff"
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_VAR = re.compile(r"\$\{(.*?)\}", re.S)


def _unescaped(text: str) -> str:
    """side-runtime's ``string()``: ``\\\\`` as one backslash, then ``\\r`` and ``\\n`` as line breaks."""
    return text.replace("\\\\", "\\").replace("\\r", "\r").replace("\\n", "\n")


class Variables:
    """What a test has stored, by the name it gave: the text (the value known when importing, or
    a mark for a ``{placeholder}`` read at run time, see ``refs.py``)."""

    def __init__(self, dialect: str) -> None:
        self.dialect = dialect
        self.values: dict[str, str] = dict(KATALON_KEYS) if dialect == KATALON else {}
        self.read: dict[str, str] = {}  # the test's name -> the placeholder of a value read at run time
        # Names a command not imported would have stored into: what the runner would put there is
        # unknown here, so a later use is said (never typed as ``${name}``), with the command's words.
        self.lost: dict[str, str] = {}

    def has(self, name: str) -> bool:
        return name in self.values or name in self.lost or (self.dialect == SIDE and name.startswith("env:"))

    def lose(self, name: str, command: str) -> None:
        """``name`` was stored by ``command``, which is not imported."""
        self.values.pop(name, None)
        self.lost[name] = command

    def get(self, name: str) -> str:
        if name in self.lost:
            raise NotImported(f"${{{name}}} is stored by a command not imported ({self.lost[name]})")
        if name in self.values:
            return self.values[name]
        var = name[4:]
        if not _NAME.match(var):
            raise NotImported(f"${{{name}}}: the format reads environment variables named like {{env.NAME}}")
        return ref(f"env.{var}")

    def store(self, name: str, text: str) -> None:
        """``name`` now holds ``text`` (a value known when importing, or holding marks)."""
        self.lost.pop(name, None)
        self.values[name] = text

    def read_at_run_time(self, name: str) -> str:
        """``name`` now holds a value the run reads from the page: the placeholder it is written as."""
        into = self.read.get(name) or _placeholder_name(name, set(self.read.values()))
        self.read[name] = into
        self.store(name, ref(into))
        return into

    def interpolate(self, value: str) -> str:
        """The runner's own ``${...}``: side-runtime's ``interpolateString`` (trimmed, ``\\n``
        escapes read, known names replaced, ``${nbsp}``); Katalon's ``xlateArgument`` on each
        ``${...}`` (known names replaced, nothing else touched). Unknown names stay as written."""
        if not value:
            return ""
        if self.dialect == KATALON:
            return _VAR.sub(lambda m: self.get(m.group(1)) if self.has(m.group(1)) else m.group(0), value)
        value = value.lstrip(_JS_SPACE).rstrip(_JS_SPACE)
        if "${" not in value:
            return _unescaped(value)
        parts: list[str] = []
        last = 0
        for m in _VAR.finditer(value):
            name = m.group(1)
            if self.has(name):
                parts += [_unescaped(value[last : m.start()]), self.get(name)]
                last = m.end()
            elif name == "nbsp":
                if m.start() > last:
                    raise NotImported("${nbsp} after text (side-runtime writes 'undefined' for the text before it)")
                parts.append("\u00a0")
                last = m.end()
        parts.append(_unescaped(value[last:]))
        return "".join(parts)

    def script(self, script: str) -> str:
        """Katalon's script with each known ``${name}`` replaced by its text (``xlateArgument``);
        NotImported when one is read at run time (the format would put its text in the script)."""
        for m in _VAR.finditer(script):
            if m.group(1) in self.lost:
                self.get(m.group(1))  # said: stored by a command not imported
            if m.group(1) in self.values and holds_ref(self.values[m.group(1)]):
                raise NotImported(f"a script using ${{{m.group(1)}}}, a value read at run time")
        return self.interpolate(script)

    def script_parts(self, script: str) -> tuple[str, list[str]]:
        """side-runtime's ``interpolateScript``: the script trimmed, each known ``${name}`` as
        ``arguments[i]``, and the values passed (as JSON, known when importing); NotImported for a
        value read at run time (the format fills a script's text, not its arguments)."""
        value = script.lstrip(_JS_SPACE).rstrip(_JS_SPACE)
        args: list[str] = []
        used: dict[str, int] = {}
        parts: list[str] = []
        last = 0
        for m in _VAR.finditer(value):
            name = m.group(1)
            if not self.has(name):
                continue
            text = self.get(name)
            if holds_ref(text):
                raise NotImported(f"a script using ${{{name}}}, a value read at run time")
            if name not in used:
                used[name] = len(args)
                args.append(json.dumps(text, ensure_ascii=False))
            parts += [_unescaped(value[last : m.start()]), f"arguments[{used[name]}]"]
            last = m.end()
        parts.append(_unescaped(value[last:]))
        return "".join(parts), args


def _placeholder_name(name: str, taken: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9_]+", "_", name).strip("_") or "value"
    if base[0].isdigit():
        base = f"v_{base}"
    out, n = base, 1
    while out in taken or out in ("base_url", "unique"):
        n += 1
        out = f"{base}_{n}"
    return out


def as_function(body: str, args: list[str]) -> str:
    """WebDriver's Execute Script of ``body`` (a function body: ``return`` gives its value) as one
    expression the format's ``eval`` and ``js`` take, its arguments passed as ``arguments``."""
    return f"(function() {{\n{body}\n}}).apply(null, [{', '.join(args)}])"


def as_async_function(body: str, args: list[str]) -> str:
    """side-runtime's ``executeAsyncScript``: WebDriver's Execute Async Script of ``var callback =
    arguments[arguments.length - 1];`` + the script + ``.then(callback).catch(callback);`` (the
    script is an expression of a promise, the value is what the callback gets: the promise's
    value, or its error), as a promise of that value the format's ``eval`` and ``js`` await."""
    call = f"var callback = arguments[arguments.length - 1];{body}.then(callback).catch(callback);"
    return f"new Promise((done) => (function() {{ {call}\n}}).apply(null, [{''.join(a + ', ' for a in args)}done]))"


def as_stored(body: str, args: list[str], *, asynchronous: bool = False) -> str:
    """The value ``executeScript`` (``executeAsyncScript``) stores, as ``${name}`` later writes it
    (``String()`` of it; WebDriver answers ``null`` for undefined), awaited as WebDriver awaits a promise."""
    run = as_async_function(body, args) if asynchronous else as_function(body, args)
    return f"(async () => {{ const v = await {run}; return v === undefined ? 'null' : String(v); }})()"


# The boolean properties WebDriver's getAttribute answers "true" or null for (the WHATWG's, as
# Selenium's getAttribute atom lists them: javascript/webdriver/atoms/attribute.js).
_BOOLEAN_PROPERTIES = (
    *("allowfullscreen", "allowpaymentrequest", "allowusermedia", "async", "autofocus", "autoplay"),
    *("checked", "compact", "complete", "controls", "declare", "default", "defaultchecked"),
    *("defaultselected", "defer", "disabled", "ended", "formnovalidate", "hidden", "indeterminate"),
    *("iscontenteditable", "ismap", "itemscope", "loop", "multiple", "muted", "nohref", "nomodule"),
    *("noresize", "noshade", "novalidate", "nowrap", "open", "paused", "playsinline", "pubdate"),
    *("readonly", "required", "reversed", "scoped", "seamless", "seeking", "selected", "truespeed"),
    *("typemustmatch", "willvalidate"),
)


def webdriver_attribute(name: str) -> str:
    """A function of an element giving what WebDriver's getAttribute(``name``) gives (selenium-
    webdriver runs Selenium's getAttribute atom), only the rule that applies to ``name`` written:
    the style's cssText for ``style``; "true" or null for a checkbox's ``checked``, an option's
    ``selected`` and the boolean properties; the full address for a link's ``href`` and an image's
    ``src`` when the page wrote one; else the property when it is a plain value, the attribute when
    not. As side-runtime later writes the value it stored: ``String()`` of it, null is "null"."""
    low = name.lower()
    if low == "style":
        return "(el) => (el.style ? String(el.style.cssText) : 'null')"
    written = f"((a) => (a && a.specified ? a.value : null))(el.getAttributeNode({json.dumps(low)}))"
    tag = "String(el.tagName).toUpperCase()"
    rules = []
    if low in ("checked", "selected"):
        rules += [
            f"const type = {tag} === 'INPUT' ? String(el.type).toLowerCase() : '';",
            "if (type === 'checkbox' || type === 'radio') return el.checked ? 'true' : 'null';",
            f"if ({tag} === 'OPTION') return el.selected ? 'true' : 'null';",
        ]
    if low in ("href", "src"):
        rules.append(
            f"if ({tag} === '{'A' if low == 'href' else 'IMG'}') {{ const w = {written}; "
            f"return w ? String(el.{low}) : w === null ? 'null' : w; }}"
        )
    prop = json.dumps({"class": "className", "readonly": "readOnly"}.get(name, name))
    if low == "spellcheck":
        rules.append(
            f"const w = {written}; return w !== null && /^(true|false)$/i.test(w) ? w.toLowerCase() : String(el.spellcheck);"
        )
    elif low in _BOOLEAN_PROPERTIES:
        rules.append(f"return {written} !== null || el[{prop}] ? 'true' : 'null';")
    else:
        rules += [
            f"let p; try {{ p = el[{prop}]; }} catch (e) {{ p = undefined; }}",
            "if (p !== null && p !== undefined && typeof p !== 'object' && typeof p !== 'function') return String(p);",
            f"const w = {written}; return w === null ? 'null' : w;",
        ]
    return "(el) => {\n  " + "\n  ".join(rules) + "\n}"
