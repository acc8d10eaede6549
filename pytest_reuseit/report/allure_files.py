"""Files Allure reads from the results folder: categories.json and environment.properties."""

from __future__ import annotations

import json
from pathlib import Path

from ..engine.result import CATEGORIES, Category

# Failure messages start with "[category]" so each challenge category becomes an Allure category.
CATEGORY_TITLES: dict[Category, str] = {
    "popup_or_overlay": "Pop-up or overlay in the way",
    "wrong_element_or_value": "Wrong element or value",
    "action_incomplete": "Action did not complete",
    "page_not_ready": "Page not ready",
    "site_changed": "Site changed (locator drift)",
    "product_defect": "Product defect",
    "ambiguous_instruction": "Ambiguous instruction",
    "infrastructure": "Infrastructure (site or model unreachable)",
}


# Recovered and healed runs pass, but their message starts with [recovered] / [healed]
# (report.allure_adapter.recovery_message), so they get categories of their own too.
PASS_CATEGORIES = {"recovered": "Recovered by fallback", "healed": "Healed locator"}


def categories() -> list[dict[str, object]]:
    out: list[dict[str, object]] = [
        {"name": title, "matchedStatuses": ["passed"], "messageRegex": rf"(?s)\[{label}\].*"}
        for label, title in PASS_CATEGORIES.items()
    ]
    for cat in CATEGORIES:
        statuses = ["broken"] if cat == "infrastructure" else ["failed"]
        out.append(
            {"name": CATEGORY_TITLES[cat], "matchedStatuses": statuses, "messageRegex": rf"(?s)[^\n]*\[{cat}\].*"}
        )
    return out


def write_categories(results: Path) -> None:
    results.mkdir(parents=True, exist_ok=True)
    (results / "categories.json").write_text(json.dumps(categories(), indent=2), encoding="utf-8")


def write_environment(results: Path, values: dict[str, str]) -> None:
    results.mkdir(parents=True, exist_ok=True)
    lines = [f"{k}={str(v).replace(chr(10), ' ')}" for k, v in sorted(values.items())]
    (results / "environment.properties").write_text("\n".join(lines) + "\n", encoding="utf-8")
