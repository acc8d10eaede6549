"""The project's tests, one folder per layer of the package (tests/README.md).

A package, as each folder under it is: a test module is imported by its path
(``tests.browser.test_drag``), so two folders may hold modules of the same name. Helpers that
several test modules need are in tests/support (``from tests.support.model_answers import
shows``), not imported from another test module."""
