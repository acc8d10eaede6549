"""A small shop whose pages change from night to night: the multi-night monitoring scenario.

``Night`` says what the site does tonight (the add button's label, whether a newsletter overlay
covers the deals page); ``serve`` answers every page from it, so one server carries every night
and the test changes the night between pytest sessions, as a deploy would.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlparse


@dataclass
class Night:
    add_label: str = "Add to cart"
    overlay: bool = False
    labels: dict[str, str] = field(default_factory=dict)  # one product's own label tonight

    def label(self, item: str) -> str:
        return self.labels.get(item, self.add_label)


PRODUCTS = {"shoes": "Trail shoes", "jacket": "Rain jacket", "hat": "Sun hat"}


def product_page(night: Night, item: str) -> str:
    name = html.escape(PRODUCTS.get(item, item))
    label = html.escape(night.label(item))
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{name} - Shop</title></head>
<body><header><a href="/">Shop</a></header>
<main><h1>{name}</h1><p>In stock.</p>
<button id="add" type="button">{label}</button>
<p role="status" id="cart">Cart is empty</p></main>
<script>
document.getElementById('add').addEventListener('click', () => {{
  document.getElementById('cart').textContent = '1 item in cart';
}});
</script></body></html>"""


def deals_page(night: Night) -> str:
    overlay = (
        """<div role="dialog" aria-label="Newsletter" id="nl"
  style="position:fixed;inset:0;background:rgba(0,0,0,.6);display:flex;align-items:center;justify-content:center">
  <div style="background:#fff;padding:2em"><p>Join our newsletter</p>
  <button type="button" onclick="document.getElementById('nl').remove()">No thanks</button></div></div>"""
        if night.overlay
        else ""
    )
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Deals - Shop</title></head>
<body><main><h1>Deals</h1>
<button type="button" onclick="document.getElementById('list').hidden=false">Show deals</button>
<ul id="list" hidden><li>Trail shoes -20%</li></ul></main>{overlay}</body></html>"""


def handler(night: Night) -> type[BaseHTTPRequestHandler]:
    class Shop(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass

        def do_GET(self) -> None:
            url = urlparse(self.path)
            if url.path == "/product":
                body = product_page(night, parse_qs(url.query).get("item", ["shoes"])[0])
            elif url.path == "/deals":
                body = deals_page(night)
            else:
                body = "<!doctype html><title>Shop</title><h1>Shop</h1>"
            data = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Shop


# The suite the team runs every night against the shop: three workflows meet the same button (one
# cause when it is renamed), one meets the overlay that its fallback dismisses.
# A click waits 0.5 s: the pages answer at once from memory (a button that is there is found in a
# few milliseconds, even on a loaded machine), and each night a button is renamed or covered, three
# or four runs wait that long for it.
_ADD = """name: Add the {item} to the cart
task: Put the {item} in the cart
start_url: "{{base_url}}/product?item={item}"
settings: {{retries: 1, action_timeout: 0.5, check_timeout: 2}}
steps:
  - action: Click "Add to cart"
    do:
      - click: {{role: button, name: Add to cart}}
    post:
      - check: The cart holds one item
        expect: {{text: {{role: status, equals: 1 item in cart}}}}
"""

_DEALS = """name: Show the deals
task: Open the deals list
start_url: "{base_url}/deals"
settings: {retries: 1, action_timeout: 0.5, check_timeout: 2}
steps:
  - action: Click "Show deals"
    do:
      - click: {role: button, name: Show deals}
    post:
      - check: The deals are listed
        expect: {visible: {text: Trail shoes -20%}}
    fallback:
      - do: [{click: {role: button, name: No thanks}}]
        redo: true
"""

WORKFLOWS = {f"add-{item}.reuseit.yaml": _ADD.format(item=item) for item in PRODUCTS} | {"deals.reuseit.yaml": _DEALS}
