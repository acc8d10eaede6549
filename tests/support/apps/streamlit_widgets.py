"""Streamlit's own widgets on one form, each labelled by its ``label`` argument as Streamlit's docs
write it; each one's ``on_change`` callback (run on the server when the browser sent the new
value) appends what the app received to the file ``WIDGET_COMMITS`` names, as a JSON line
``{"field": ..., "value": ...}``: labels, lists of labels, booleans, numbers, [low, high], ISO
dates."""

import datetime
import json
import os

import streamlit as st

COUNTRIES = ["France", "Germany", "Italy", "Spain", "Portugal", "Netherlands"]
EXTRAS = ["Gift wrap", "Insurance", "Express label", "Signature"]


def commit(field: str) -> None:
    value = st.session_state[field]
    if isinstance(value, tuple):  # a range slider's (low, high)
        value = list(value)
    if isinstance(value, datetime.date):
        value = value.isoformat()
    with open(os.environ["WIDGET_COMMITS"], "a", encoding="utf-8") as f:
        f.write(json.dumps({"field": field, "value": value}) + "\n")


st.title("Shipping")
# No option chosen at first (the placeholder): any option picked is a change the callback sees.
st.selectbox("Country", COUNTRIES, index=None, key="country", on_change=commit, args=("country",))
st.multiselect("Extras", EXTRAS, key="extras", on_change=commit, args=("extras",))
st.toggle("Express shipping", key="express", on_change=commit, args=("express",))
st.checkbox("Accept the terms", key="terms", on_change=commit, args=("terms",))
st.radio("Plan", ["Monthly", "Yearly", "Lifetime"], key="plan", on_change=commit, args=("plan",))
st.slider("Volume", 0, 100, 50, key="volume", on_change=commit, args=("volume",))
st.slider("Price range", 0, 100, (10, 90), key="price", on_change=commit, args=("price",))
st.date_input(
    "Ship date",
    datetime.date(2027, 3, 1),
    min_value=datetime.date(2026, 1, 1),
    max_value=datetime.date(2028, 12, 31),
    key="ship_date",
    on_change=commit,
    args=("ship_date",),
)
