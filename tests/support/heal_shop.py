"""A tea shop whose deploys rename a button, grow a cookie dialog and change a price: the morning
after, ``reuseit heal`` must turn what the history proves into edits (tests/authoring/test_heal_history.py).

``Deploy`` says what the site does tonight; one server carries every night and the test changes the
deploy between pytest sessions. Pages:

- ``/signin``: e-mail and password fields and a submit button (``signin_label``); the account page
  greets the user. The workflow types the password from a secret.
- ``/product?item=tea|mug``: the add button (``add_label``), the price (``price``), a cart line.
  Two workflows add a product (one cause when the button is renamed); a third checks the price.
- ``/deals``: a "Show deals" button; ``cookie_dialog`` puts a modal cookie dialog over it.
- ``product_dialog`` puts a modal dialog over the product page (the add button behind it).
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlparse


@dataclass
class Deploy:
    add_label: str = "Add to cart"
    signin_label: str = "Sign in"
    price: str = "$4.00"
    cookie_dialog: bool = False
    product_dialog: bool = False


PRODUCTS = {"tea": "Green tea", "mug": "Tea mug"}


def _page(title: str, body: str) -> str:
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)} - Tea shop</title>'
        f"</head><body>{body}</body></html>"
    )


def signin_page(deploy: Deploy) -> str:
    label = html.escape(deploy.signin_label)
    return _page(
        "Sign in",
        f"""<main><h1>Your account</h1>
<form action="/account" method="get">
<label>Email <input name="email" type="email"></label>
<label>Password <input name="password" type="password"></label>
<button type="submit">{label}</button></form></main>""",
    )


def account_page() -> str:
    return _page("Account", "<main><h1>Welcome back</h1><p>Your orders will show here.</p></main>")


def product_page(deploy: Deploy, item: str) -> str:
    name = html.escape(PRODUCTS.get(item, item))
    dialog = (
        """<dialog id="newsletter" aria-label="Our newsletter"><p>Tea news every week.</p>
<button type="button" onclick="this.closest('dialog').close()">Subscribe</button></dialog>
<script>document.getElementById('newsletter').showModal()</script>"""
        if deploy.product_dialog
        else ""
    )
    return _page(
        name,
        f"""<main><h1>{name}</h1><p data-testid="price">{html.escape(deploy.price)}</p>
<button id="add" type="button">{html.escape(deploy.add_label)}</button>
<p role="status" id="cart">Cart is empty</p></main>{dialog}
<script>
let items = 0;
document.getElementById('add').addEventListener('click', () => {{
  items += 1;
  document.getElementById('cart').textContent = items === 1 ? '1 item in cart' : items + ' items in cart';
}});
</script>""",
    )


def deals_page(deploy: Deploy) -> str:
    dialog = (
        """<dialog id="cookies" aria-label="Cookie preferences"><p>We use cookies to keep your cart.</p>
<button type="button" onclick="this.closest('dialog').close()">Accept all</button>
<button type="button" onclick="this.closest('dialog').close()">Settings</button></dialog>
<script>document.getElementById('cookies').showModal()</script>"""
        if deploy.cookie_dialog
        else ""
    )
    return _page(
        "Deals",
        f"""<main><h1>Deals</h1>
<button type="button" onclick="document.getElementById('list').hidden=false">Show deals</button>
<ul id="list" hidden><li>Green tea -20%</li></ul></main>{dialog}""",
    )


def handler(deploy: Deploy) -> type[BaseHTTPRequestHandler]:
    class Shop(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass

        def do_GET(self) -> None:
            url = urlparse(self.path)
            if url.path == "/signin":
                body = signin_page(deploy)
            elif url.path == "/account":
                body = account_page()
            elif url.path == "/product":
                body = product_page(deploy, parse_qs(url.query).get("item", ["tea"])[0])
            elif url.path == "/deals":
                body = deals_page(deploy)
            else:
                body = _page("Tea shop", "<h1>Tea shop</h1>")
            data = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Shop


# The team's workflows, as a person writes them: comments, a flow locator per op. A click waits
# 0.5 s: the pages answer at once, and on the night of the change each broken run waits that long.
_ADD = """# Put the {item} in the cart from its product page.
name: Add the {item} to the cart
task: Put the {item} in the cart
start_url: "{{base_url}}/product?item={item}"
settings: {{retries: 1, action_timeout: 0.5, check_timeout: 2}}
steps:
  - action: Click "Add to cart"
    do:
      - click: {{role: button, name: Add to cart}}  # the shop's main button
    post:
      - check: The cart holds one item
        expect: {{text: {{role: status, equals: 1 item in cart}}}}
"""

SIGNIN = """# Sign in with the shop account (the password comes from SHOP_PASSWORD).
name: Sign in
task: Sign in to the tea shop
start_url: "{base_url}/signin"
settings: {retries: 1, action_timeout: 0.5, check_timeout: 2}
steps:
  - action: Sign in with the account's e-mail and password
    do:
      - fill: {label: Email, value: ada@example.com}
      - fill: {label: Password, value: "{secret.SHOP_PASSWORD}"}
      - click: {role: button, name: Sign in}
    post:
      - check: The account page greets the user
        expect: {visible: {role: heading, name: Welcome back}}
"""

DEALS = """name: Show the deals
task: Open the deals list
start_url: "{base_url}/deals"
settings: {retries: 1, action_timeout: 0.5, check_timeout: 2}
steps:
  - action: Click "Show deals"
    do:
      - click: {role: button, name: Show deals}
    post:
      - check: The deals are listed
        expect: {visible: {text: Green tea -20%}}
"""

PRICE = """name: The tea's price
task: Check the price of the green tea
start_url: "{base_url}/product?item=tea"
settings: {check_timeout: 1}
steps:
  - action: Look at the price
    do: []
    post:
      - check: The tea costs $4.00
        expect: {text: {test_id: price, equals: "$4.00"}}
"""

WORKFLOWS = {
    "add-tea.reuseit.yaml": _ADD.format(item="tea"),
    "add-mug.reuseit.yaml": _ADD.format(item="mug"),
    "signin.reuseit.yaml": SIGNIN,
    "deals.reuseit.yaml": DEALS,
    "price.reuseit.yaml": PRICE,
}
