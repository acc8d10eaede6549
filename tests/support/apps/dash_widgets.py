"""Dash's own ``dcc`` widgets on one form, each with the ``html.Label`` Dash's docs put above it
(no ``htmlFor``, as the docs write it); one callback per widget (run on the server with the
value the browser sent) appends what the app received to the file ``WIDGET_COMMITS`` names, as a
JSON line ``{"field": ..., "value": ...}``: labels, lists of labels, booleans, numbers, [low,
high], ISO dates."""

import json
import os
from typing import Any

from dash import Dash, Input, Output, callback_context, dcc, html
from dash.exceptions import PreventUpdate

COUNTRIES = ["France", "Germany", "Italy", "Spain", "Portugal", "Netherlands"]
EXTRAS = ["Gift wrap", "Insurance", "Express label", "Signature"]


def field(label: str, widget: Any) -> html.Div:
    return html.Div([html.Label(label), widget], style={"margin": "1em 0"})


app = Dash(__name__, title="Shipping")
app.layout = html.Div(
    [
        html.H1("Shipping"),
        field("Country", dcc.Dropdown(COUNTRIES, id="country")),
        field("Extras", dcc.Dropdown(EXTRAS, [], multi=True, id="extras")),
        # A checklist of one option is Dash's checkbox: its value is the list of those ticked.
        dcc.Checklist(["Express shipping"], [], id="express"),
        field("Services", dcc.Checklist(["Tracking", "Carbon offset", "Weekend delivery"], [], id="services")),
        field("Plan", dcc.RadioItems(["Monthly", "Yearly", "Lifetime"], "Monthly", id="plan")),
        field("Volume", dcc.Slider(0, 100, 1, value=50, marks=None, id="volume")),
        field("Price range", dcc.RangeSlider(0, 100, 1, value=[10, 90], marks=None, id="price")),
        field("Ship date", dcc.DatePickerSingle(id="ship_date", date="2027-03-01")),
        html.Div(id="sink"),
    ],
    style={"maxWidth": "40em", "margin": "auto"},
)

FIELDS = ["country", "extras", "express", "services", "plan", "volume", "price", "ship_date"]


@app.callback(
    Output("sink", "children"),
    [Input(name, "date" if name == "ship_date" else "value") for name in FIELDS],
    prevent_initial_call=True,
)
def commit(*_values: Any) -> str:
    for fired in callback_context.triggered:  # only the widget whose value the browser sent
        name, _ = fired["prop_id"].split(".")
        value = fired["value"]
        if name == "express":
            value = "Express shipping" in (value or [])
        elif isinstance(value, str) and name == "ship_date":
            value = value[:10]
        with open(os.environ["WIDGET_COMMITS"], "a", encoding="utf-8") as f:
            f.write(json.dumps({"field": name, "value": value}) + "\n")
    if not callback_context.triggered:
        raise PreventUpdate
    return ""


app.run(host="127.0.0.1", port=int(os.environ["APP_PORT"]), debug=False)
