"""A small Dash tool: greet a customer, count the lines of an uploaded orders file."""

import base64
import os

from dash import Dash, Input, Output, State, dcc, html

app = Dash(__name__, title="Orders desk")
app.layout = html.Div(
    [
        html.H1("Orders desk"),
        html.Label("Customer name", htmlFor="name"),
        dcc.Input(id="name", type="text"),
        html.Button("Greet", id="greet", n_clicks=0),
        html.P(id="greeting"),
        dcc.Upload(id="orders", children=html.Div(["Drop the orders file here or ", html.A("choose it")])),
        html.P(id="summary"),
    ]
)


@app.callback(Output("greeting", "children"), Input("greet", "n_clicks"), State("name", "value"))
def greet(clicks: int, name: str | None) -> str:
    return f"Hello, {name}!" if clicks else ""


@app.callback(Output("summary", "children"), Input("orders", "contents"), State("orders", "filename"))
def count(contents: str | None, filename: str | None) -> str:
    if not contents:
        return ""
    text = base64.b64decode(contents.split(",", 1)[1]).decode()
    rows = [line for line in text.splitlines()[1:] if line.strip()]
    return f"{filename}: {len(rows)} orders"


app.run(host="127.0.0.1", port=int(os.environ["APP_PORT"]), debug=False)
