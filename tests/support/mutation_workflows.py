"""The workflows reuseit mutate's tests run, on the pages of tests/pages/mutation/:

- ``WORKFLOWS``: four on shop.html (a catalogue loaded by fetch, a basket an item is added to on
  a click, its count), each named by what its mutants should show; ``SHOP_START``,
  ``FAST_SETTINGS``, ``CATALOGUE_STEP`` and ``ADD_STEP`` are the pieces they are made of, for a
  test that makes another;
- ``GREETER``: a click and its checks on learn.html;
- ``RERENDER``: the filter links of rerender.html, which renders its whole app again after a route
  change (in a microtask and once more 150 ms later, each time with new nodes);
- ``REACT``: two todos added, one completed, then the Active and Completed filter links of the
  React TodoMVC (npm ``todomvc``, in node_modules/todomvc).
"""

from __future__ import annotations

FAST_SETTINGS = "settings: {retries: 1, check_timeout: 1, action_timeout: 1}\n"
SHOP_START = 'start_url: "{base_url}/mutation/shop.html"\n'
CATALOGUE_STEP = """  - action: Wait for the catalogue
    do: []
    post:
      - expect: {text: {css: "#catalogue", equals: 3 products in the catalogue}}
"""
ADD_STEP = """  - action: Add an apple
    do:
      - fill: {css: "#item", value: apple}
      - click: {css: "#add"}
"""
WORKFLOWS = {
    # Every step checks what it does: its mutants should be killed at that step.
    "strong": "name: Strong\ntask: Add an apple\n"
    + SHOP_START
    + FAST_SETTINGS
    + "steps:\n"
    + CATALOGUE_STEP
    + ADD_STEP
    + """    post:
      - expect:
          - text: {css: "#basket li", equals: apple}
          - text: {css: "#count", equals: "Basket: 1"}
""",
    # Adds and opens the help without checking either: its faults go unnoticed, unless another
    # workflow that uses the same element notices them (the Add button: "strong" does).
    "basic": "name: Basic\ntask: Add an apple, open the help\n"
    + SHOP_START
    + FAST_SETTINGS
    + "steps:\n"
    + ADD_STEP
    + """  - action: Open the help
    do:
      - click: {css: "#help"}
""",
    # Adds with the second button; a fallback adds with the first: a broken second button is
    # walked around.
    "healing": "name: Healing\ntask: Add an apple\n"
    + SHOP_START
    + FAST_SETTINGS
    + """steps:
  - action: Add an apple
    do:
      - fill: {css: "#item", value: apple}
      - click: {css: "#add2"}
    post:
      - expect: {text: {css: "#count", equals: "Basket: 1"}}
    fallback:
      - do: [{fill: {css: "#item", value: apple}}, {click: {css: "#add"}}]
""",
    # Fails clean (the page says 3 products): listed, and no mutants.
    "failing": "name: Failing\ntask: Read the catalogue\n"
    + SHOP_START
    + FAST_SETTINGS
    + """steps:
  - action: Read the catalogue
    do: []
    post:
      - expect: {text: {css: "#catalogue", equals: 9 products in the catalogue}}
""",
}

GREETER = """name: Greeter
task: Greet
start_url: "{base_url}/mutation/learn.html"
settings: {retries: 0, check_timeout: 1, action_timeout: 1}
steps:
  - action: Greet
    do:
      - click: {css: "#greet"}
    post:
      - expect:
          - text: {css: "#greeting", equals: Hello there}
          - count: {css: "#list li", min: 1}
"""

RERENDER = """name: Rerender
task: Show the completed todos, then the active ones
start_url: "{base_url}/mutation/rerender.html"
settings: {retries: 0, check_timeout: 1, action_timeout: 1}
steps:
  - action: Show the completed todos
    do:
      - click: {css: "#filters a[href='#/completed']"}
    post:
      - expect:
          - text: {css: "#filters a.selected", equals: Completed}
          - count: {css: "#list li", equals: 1}
          - text: {css: "#left", equals: "2 items left"}
  - action: Show the active todos
    do:
      - click: {css: "#filters a[href='#/active']"}
    post:
      - expect: {text: {role: status, equals: Showing active}}
"""

REACT = """name: React filters
task: With two todos, the first completed, show the active ones, then the completed ones
start_url: "{base_url}/examples/react/index.html"
settings: {retries: 0, check_timeout: 2, action_timeout: 2}
steps:
  - action: Add two todos and complete the first
    do:
      - fill: {css: "#new-todo", value: milk}
      - press: {css: "#new-todo", key: Enter}
      - fill: {css: "#new-todo", value: tea}
      - press: {css: "#new-todo", key: Enter}
      - check: {css: "#todo-list li .toggle", nth: 0}
    post:
      - expect: {count: {css: "#todo-list li.completed", equals: 1}}
  - action: Show the active todos
    do:
      - click: {role: link, name: Active, exact: true}
    post:
      - expect:
          - count: {css: "#filters a.selected", equals: 1}
          - text: {css: "#filters a.selected", equals: Active}
  - action: Show the completed todos
    do:
      - click: {role: link, name: Completed, exact: true}
    post:
      - expect:
          - count: {css: "#filters a.selected", equals: 1}
          - text: {css: "#filters a.selected", equals: Completed}
"""
