"""The project's tests, one folder per layer of the package (tests/README.md).

A package, as each folder under it is: a test module is imported by its path
(``tests.browser.test_drag``), so two folders may hold modules of the same name, and a test that
reads another's helpers (``from tests.llm.test_model_guards import shows``) gets the module pytest
collected, not a second copy of it."""
