"""Gradio's own widgets on one form, each labelled by its ``label`` argument as Gradio's docs
write it; each one's ``.change`` listener (run on the server with the value the browser sent)
appends what the app received to the file ``WIDGET_COMMITS`` names, as a JSON line
``{"field": ..., "value": ...}``: labels, lists of labels, booleans, numbers, ISO dates."""

import json
import os
from collections.abc import Callable
from typing import Any

import gradio as gr

COUNTRIES = ["France", "Germany", "Italy", "Spain", "Portugal", "Netherlands"]
EXTRAS = ["Gift wrap", "Insurance", "Express label", "Signature"]


def commit(field: str) -> Callable[[Any], None]:
    def record(value: Any) -> None:
        if isinstance(value, float) and value.is_integer():  # a slider sends 30.0 for 30
            value = int(value)
        if field == "ship_date" and isinstance(value, str):  # "2027-03-15 00:00:00" or the date alone
            value = value[:10]
        with open(os.environ["WIDGET_COMMITS"], "a", encoding="utf-8") as f:
            f.write(json.dumps({"field": field, "value": value}) + "\n")

    return record


with gr.Blocks(title="Shipping") as demo:
    gr.Markdown("# Shipping")
    fields = {
        "country": gr.Dropdown(COUNTRIES, value=None, label="Country"),
        "extras": gr.Dropdown(EXTRAS, value=[], multiselect=True, label="Extras"),
        "terms": gr.Checkbox(label="Accept the terms"),
        "plan": gr.Radio(["Monthly", "Yearly", "Lifetime"], value="Monthly", label="Plan"),
        "volume": gr.Slider(0, 100, value=50, step=1, label="Volume"),
        "ship_date": gr.DateTime("2027-03-01", include_time=False, type="string", label="Ship date"),
    }
    for name, component in fields.items():
        component.change(commit(name), component, None)

demo.launch(server_name="127.0.0.1", server_port=int(os.environ["APP_PORT"]))
