"""A small Streamlit tool, as a Python team writes one: greet a customer, read an orders file,
edit quantities in a data grid (a canvas grid: a cell is found by where it is drawn)."""

import pandas as pd
import streamlit as st

st.title("Orders desk")
name = st.text_input("Customer name")
if st.button("Greet", type="primary"):
    st.success(f"Hello, {name}!")

orders = st.file_uploader("Orders file", type=["csv"])
if orders is not None:
    frame = pd.read_csv(orders)
    st.markdown(f"**{len(frame)} orders**, total {frame['amount'].sum()}")

edited = st.data_editor(pd.DataFrame({"item": ["pen", "ink"], "qty": [1, 2]}), key="stock", width=300)
st.markdown(f"Total quantity: {int(edited['qty'].sum())}")
