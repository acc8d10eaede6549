"""A small Gradio tool: greet a customer, count the lines of an uploaded orders file."""

import os

import gradio as gr


def greet(name: str) -> str:
    return f"Hello, {name}!"


def count(path: str | None) -> str:
    if not path:
        return "no file"
    with open(path, encoding="utf-8") as f:
        rows = [line for line in f.read().splitlines()[1:] if line.strip()]
    return f"{len(rows)} orders"


with gr.Blocks(title="Orders desk") as demo:
    name = gr.Textbox(label="Customer name")
    greeting = gr.Textbox(label="Greeting")
    gr.Button("Greet", variant="primary").click(greet, name, greeting)
    orders = gr.File(label="Orders file", file_types=[".csv"], type="filepath")
    summary = gr.Textbox(label="Summary")
    orders.upload(count, orders, summary)

demo.launch(server_name="127.0.0.1", server_port=int(os.environ["APP_PORT"]))
