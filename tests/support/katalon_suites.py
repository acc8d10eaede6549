"""Katalon Recorder test suites as Katalon Recorder saves them (its ``marshall``: one table per
test case, each target's alternatives in a ``<datalist>``), for the pages in tests/pages/selenium."""

from __future__ import annotations

import html
from pathlib import Path

Row = tuple[str, str, list[str], str]


def row(command: str, target: str = "", value: str = "", *alternatives: str) -> Row:
    return command, target, list(alternatives), value


def _cell(text: str) -> str:
    return html.escape(text, quote=False)


def suite(name: str, cases: list[tuple[str, list[Row]]]) -> str:
    tables = []
    for title, rows in cases:
        lines = [
            f"<tr><td>{_cell(c)}</td><td>{_cell(t)}<datalist>"
            + "".join(f"<option>{_cell(a)}</option>" for a in alts)
            + f"</datalist></td><td>{_cell(v)}</td></tr>"
            for c, t, alts, v in rows
        ]
        tables.append(
            '<table cellpadding="1" cellspacing="1" border="1">\n<thead>\n'
            f'<tr><td rowspan="1" colspan="3">{_cell(title)}</td></tr>\n</thead>\n<tbody>\n'
            + "\n".join(lines)
            + "\n</tbody></table>"
        )
    body = "\n".join(tables)
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">
<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">
<head>
<meta content="text/html; charset=UTF-8" http-equiv="content-type" />
<title>{_cell(name)}</title>
</head>
<body>
{body}
</body>
</html>"""


def shop_suite(url: str) -> str:
    """Buying a book as Katalon Recorder records it (implicit XPath, link=, patterns, windows by
    their place, the confirmation answered OK by default), and a case with a loop."""
    buy = [
        row("open", f"{url}/shop.html", "", f"{url}/shop.html"),
        row("type", "id=q", "dune", "id=q", "name=q", "css=#q", "//input[@id='q']"),
        row("sendKeys", "id=q", "${KEY_ENTER}", "id=q", "name=q"),
        row("storeText", "css=#results .price", "price", "css=#results .price", "//ul[@id='results']/li/span"),
        row("select", "id=size", "label=Hardcover", "id=size", "name=size"),
        row("click", "id=gift", "", "id=gift", "name=gift", "//label/input"),
        row("verifyChecked", "id=gift", "", "id=gift"),
        row("click", "id=add", "", "id=add", "//button[@id='add']", "//button[contains(.,'Add to cart')]"),
        row("verifyText", "id=cart", "1 × Dune*", "id=cart"),
        row("assertText", "id=total", "Total: ${price}", "id=total"),
        row("assertTitle", "Book shop"),
        row("click", "link=Help", "", "link=Help", "id=help"),
        row("selectWindow", "win_ser_1"),
        row("assertTitle", "Help"),
        row("close", "win_ser_1"),
        row("selectWindow", "win_ser_local"),
        row("selectFrame", "index=0"),
        row("type", "id=card", "Ada", "id=card", "name=card"),
        row("click", "id=paybtn", "", "id=paybtn", "//button[contains(.,'Pay')]"),
        row("assertText", "id=paid", "regexp:^Paid by A", "id=paid"),
        row("selectFrame", "relative=top"),
        row("click", "id=empty", "", "id=empty"),
        row("assertConfirmation", "Empty the cart?"),
        row("waitForText", "id=cart", "exact:Cart is empty", "id=cart"),
        row("storeEval", "1 + 1", "two"),
        row("echo", "${two}"),
    ]
    loop = [
        row("open", f"{url}/shop.html"),
        row("store", "0", "i"),
        row("while", "${i} < 2"),
        row("click", "id=add"),
        row("storeEval", "${i} + 1", "i"),
        row("endWhile"),
        row("assertText", "id=total", "Total: 0.00"),
    ]
    return suite("Book shop", [("buy a book", buy), ("add twice", loop)])


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path
