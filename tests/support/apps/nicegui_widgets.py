"""NiceGUI's own widgets (Quasar's) on one page, each labelled as NiceGUI's docs write it: by its
``label`` or text argument where it has one, else a ``ui.label`` above it (a slider, a range, a
radio group, a calendar); each one's ``on_change`` handler (run on the server with the value the
browser sent) appends what the app received to the file ``WIDGET_COMMITS`` names, as a JSON line
``{"field": ..., "value": ...}``: labels, lists of labels, booleans, numbers, [low, high], ISO
dates."""

import json
import os
from collections.abc import Callable
from typing import Any

from nicegui import events, ui

COUNTRIES = ["France", "Germany", "Italy", "Spain", "Portugal", "Netherlands"]
EXTRAS = ["Gift wrap", "Insurance", "Express label", "Signature"]


def commit(field: str) -> Callable[[events.ValueChangeEventArguments[Any]], None]:
    def record(e: events.ValueChangeEventArguments[Any]) -> None:
        value = e.value
        if isinstance(value, dict):  # a range's {"min": low, "max": high}
            value = [value["min"], value["max"]]
        if isinstance(value, str) and field in ("delivery_date", "ship_date"):
            value = value.replace("/", "-")  # Quasar's QDate writes 2027/03/15
        with open(os.environ["WIDGET_COMMITS"], "a", encoding="utf-8") as f:
            f.write(json.dumps({"field": field, "value": value}) + "\n")

    return record


@ui.page("/")
def index() -> None:
    ui.label("Shipping").classes("text-h4")
    ui.select(COUNTRIES, label="Country", on_change=commit("country")).classes("w-64")
    ui.select(EXTRAS, label="Extras", multiple=True, value=[], on_change=commit("extras")).classes("w-64")
    ui.switch("Express shipping", on_change=commit("express"))
    ui.checkbox("Accept the terms", on_change=commit("terms"))
    ui.label("Plan")
    ui.radio(["Monthly", "Yearly", "Lifetime"], value="Monthly", on_change=commit("plan")).props("inline")
    ui.label("Volume")
    ui.slider(min=0, max=100, value=50, on_change=commit("volume")).classes("w-64")
    ui.label("Price range")
    ui.range(min=0, max=100, value={"min": 10, "max": 90}, on_change=commit("price")).classes("w-64")
    ui.label("Delivery date")
    ui.date(value="2027-03-01", on_change=commit("delivery_date"))
    ui.date_input("Ship date", value="2027-03-01", on_change=commit("ship_date"))


ui.run(host="127.0.0.1", port=int(os.environ["APP_PORT"]), reload=False, show=False, title="Shipping")
