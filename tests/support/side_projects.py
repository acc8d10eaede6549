"""Selenium IDE projects as Selenium IDE 3 writes them (version 2.0: every command with its id,
comment, ``targets`` as [locator, strategy] pairs), for the pages in tests/pages/selenium."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

_ids = itertools.count(1)


def _id() -> str:
    return f"6f1c{next(_ids):04x}-3c1e-4f0b-9a57-0d2c5be1a{next(_ids):03x}"


def cmd(command: str, target: str = "", value: str = "", *targets: tuple[str, str], **more: Any) -> dict[str, Any]:
    """One command, with the keys Selenium IDE writes for every command."""
    return {
        "id": _id(),
        "comment": more.pop("comment", ""),
        "command": command,
        "target": target,
        "targets": [list(t) for t in targets],
        "value": value,
        **more,
    }


# The alternatives Selenium IDE's recorder keeps for each element of shop.html, as it names them.
SEARCH = (("id=q", "id"), ("name=q", "name"), ("css=#q", "css:finder"), ("xpath=//input[@id='q']", "xpath:attributes"))
SIZE = (("id=size", "id"), ("name=size", "name"), ("css=#size", "css:finder"), ("xpath=//select", "xpath:position"))
GIFT = (
    ("id=gift", "id"),
    ("name=gift", "name"),
    ("css=#gift", "css:finder"),
    ("xpath=//label/input", "xpath:position"),
)
ADD = (
    ("id=add", "id"),
    ("css=#add", "css:finder"),
    ("xpath=//button[@id='add']", "xpath:attributes"),
    ("xpath=//button[contains(.,'Add to cart')]", "xpath:innerText"),
)
EMPTY = (("id=empty", "id"), ("xpath=//button[contains(.,'Empty cart')]", "xpath:innerText"))
HELP = (
    ("linkText=Help", "linkText"),
    ("css=#help", "css:finder"),
    ("xpath=//a[contains(text(),'Help')]", "xpath:link"),
)
CARD = (("id=card", "id"), ("name=card", "name"), ("css=#card", "css:finder"))
PAY = (("id=paybtn", "id"), ("xpath=//button[contains(.,'Pay')]", "xpath:innerText"))


def shop_project(url: str) -> dict[str, Any]:
    """Two tests of the shop: one buys a book (a search, a select, a box, a pop-up, a frame, a
    confirmation), the other runs the first's opening and checks a search by a stored price."""
    open_shop = [
        cmd("open", "/shop.html"),
        cmd("setWindowSize", "1200x900"),
    ]
    buy = [
        *open_shop,
        cmd("storeWindowHandle", "root"),
        cmd("click", "id=q", "", *SEARCH, comment="find the book"),
        cmd("type", "id=q", "dune", *SEARCH),
        cmd("sendKeys", "id=q", "${KEY_ENTER}", *SEARCH),
        cmd("storeText", "css=#results .price", "price", ("css=#results .price", "css:finder")),
        cmd("select", "id=size", "label=Hardcover", *SIZE),
        cmd("click", "id=gift", "", *GIFT),
        cmd("verifyChecked", "id=gift", "", *GIFT),
        cmd("click", "id=add", "", *ADD),
        cmd("assertText", "id=cart", "1 × Dune (Hardcover), gift wrapped", ("id=cart", "id")),
        cmd("assertText", "id=total", "Total: ${price}", ("id=total", "id")),
        cmd("assertTitle", "Book shop"),
        cmd("echo", "bought for ${price}"),
        cmd("click", "linkText=Help", "", *HELP, opensWindow=True, windowHandleName="win4207", windowTimeout=2000),
        cmd("selectWindow", "handle=${win4207}"),
        cmd("assertTitle", "Help"),
        cmd("close"),
        cmd("selectWindow", "handle=${root}"),
        cmd("selectFrame", "index=0"),
        cmd("type", "id=card", "Ada", *CARD),
        cmd("click", "id=paybtn", "", *PAY),
        cmd("assertText", "id=paid", "Paid by Ada", ("id=paid", "id")),
        cmd("selectFrame", "relative=parent"),
        cmd("click", "id=empty", "", *EMPTY),
        cmd("assertConfirmation", "Empty the cart?"),
        cmd("acceptConfirmation"),
        cmd("assertText", "id=cart", "Cart is empty", ("id=cart", "id")),
    ]
    search = [
        cmd("run", "open the shop"),
        cmd("type", "id=q", "emma", *SEARCH),
        cmd("sendKeys", "id=q", "${KEY_ENTER}", *SEARCH),
        cmd("store", "4.50", "expected"),
        cmd("assertText", "css=#results .price", "${expected}", ("css=#results .price", "css:finder")),
        cmd("if", "${expected} > 4", ""),
        cmd("echo", "expensive"),
        cmd("end"),
    ]
    tests = [
        {"id": _id(), "name": "buy a book", "commands": buy},
        {"id": _id(), "name": "open the shop", "commands": open_shop},
        {"id": _id(), "name": "search by price", "commands": search},
    ]
    return {
        "id": _id(),
        "version": "2.0",
        "name": "Book shop",
        "url": url,
        "tests": tests,
        "suites": [
            {
                "id": _id(),
                "name": "Default Suite",
                "persistSession": False,
                "parallel": False,
                "timeout": 300,
                "tests": [tests[0]["id"], tests[2]["id"]],
            }
        ],
        "urls": [f"{url}/"],
        "plugins": [],
    }


def write(path: Path, project: dict[str, Any]) -> Path:
    path.write_text(json.dumps(project, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def extras_project(url: str) -> dict[str, Any]:
    """Scripts, stored values, keys, a list box and a drag: each command on extras.html."""
    commands = [
        cmd("open", "/extras.html"),
        cmd("executeScript", "return document.querySelectorAll('#list li').length", "n"),
        cmd("type", "id=a", "${n} items"),
        cmd("storeElementCount", "css=#list li", "m"),
        cmd("storeTitle", "title"),
        cmd("type", "id=b", "${m} in ${title}"),
        cmd("store", "hi 'there'", "greeting"),
        cmd("executeScript", "document.getElementById('c').value = ${greeting}"),
        cmd("assertValue", "id=c", "hi 'there'"),
        cmd("type", "id=keys", "abcd"),
        cmd("sendKeys", "id=keys", "${KEY_BACK_SPACE}${KEY_LEFT}X"),
        cmd("assertValue", "id=keys", "abXc"),
        cmd("addSelection", "id=multi", "label=Anchovies"),
        cmd("addSelection", "id=multi", "label=Capers"),
        cmd("pause", "100"),
        cmd("dragAndDropToObject", "id=drag", "id=drop"),
        cmd("assertText", "id=dropped", "Dropped"),
        cmd("assertValue", "id=a", "3 items"),
        cmd("assertValue", "id=b", "3 in Extras"),
    ]
    return {
        "id": _id(),
        "version": "3.0",
        "name": "Extras",
        "url": url,
        "tests": [{"id": _id(), "name": "extras", "commands": commands}],
        "suites": [],
    }
