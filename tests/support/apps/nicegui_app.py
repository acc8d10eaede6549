"""A small NiceGUI tool: greet a customer, count the lines of an uploaded orders file."""

import os

from nicegui import events, ui


@ui.page("/")
def index() -> None:
    ui.label("Orders desk").classes("text-h4")
    name = ui.input("Customer name")
    greeting = ui.label()
    ui.button("Greet", on_click=lambda: greeting.set_text(f"Hello, {name.value}!"))
    summary = ui.label()

    async def read(e: events.UploadEventArguments) -> None:
        text = (await e.file.read()).decode()
        rows = [line for line in text.splitlines()[1:] if line.strip()]
        summary.set_text(f"{e.file.name}: {len(rows)} orders")

    ui.upload(label="Orders file", on_upload=read, auto_upload=True)


ui.run(host="127.0.0.1", port=int(os.environ["APP_PORT"]), reload=False, show=False, title="Orders desk")
